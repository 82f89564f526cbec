package main

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Defaults of the concurrency bound (see limitConcurrency).
const (
	DefaultMaxConcurrent = 4               // see -max-concurrent; TestMemoryBound measures what each costs
	DefaultQueueWait     = 2 * time.Second // see -queue-wait
)

// limitConcurrency serves at most n requests at once. A request beyond
// waits for a slot up to wait, without reading its body, then is answered
// 503 with Retry-After: 1. A client that leaves while waiting frees
// nothing, since it held nothing.
func limitConcurrency(log *slog.Logger, n int, wait time.Duration) func(http.Handler) http.Handler {
	return limitSlots(log, make(chan struct{}, n), wait)
}

// limitSlots is limitConcurrency with its slots, sem, made by the caller,
// who may look at how many are taken (see handleReadyz).
func limitSlots(log *slog.Logger, sem chan struct{}, wait time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !acquire(log, w, r, sem, wait, http.StatusServiceUnavailable, "busy: too many requests at once, retry later") {
				return
			}
			defer func() { <-sem }()
			next.ServeHTTP(w, r)
		})
	}
}

// acquire takes a slot of sem for r, waiting up to wait; if none frees in
// time it answers status with msg and Retry-After: 1, and if the client
// leaves first it notes that; in both cases it reports false.
func acquire(log *slog.Logger, w http.ResponseWriter, r *http.Request, sem chan struct{}, wait time.Duration, status int, msg string) bool {
	select {
	case sem <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case sem <- struct{}{}:
		return true
	case <-t.C:
		w.Header().Set("Retry-After", strconv.Itoa(1))
		fail(log, w, r, status, msg)
	case <-r.Context().Done():
		clientGone(log, w, r, r.Context().Err())
	}
	return false
}

// limitTenants serves at most n requests of a tenant at once (requireTenant
// must run first); one more waits up to wait without holding any of the
// server's slots, then is answered 429 with Retry-After: 1. It runs before
// limitSlots, so that one tenant's slow uploads or floods hold at most n
// of the server's slots and the others stay free for other tenants (issue
// 23, F2). The tenants are those of the key file: a semaphore each, kept.
func limitTenants(log *slog.Logger, n int, wait time.Duration) func(http.Handler) http.Handler {
	var (
		mu   sync.Mutex
		sems = map[string]chan struct{}{}
	)
	semOf := func(tenant string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		sem, ok := sems[tenant]
		if !ok {
			sem = make(chan struct{}, n)
			sems[tenant] = sem
		}
		return sem
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sem := semOf(tenantFrom(r.Context()))
			if !acquire(log, w, r, sem, wait, http.StatusTooManyRequests, "busy: this tenant has as many requests in flight as it may (-tenant-max-concurrent)") {
				return
			}
			defer func() { <-sem }()
			next.ServeHTTP(w, r)
		})
	}
}
