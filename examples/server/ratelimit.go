package main

import (
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of the per-tenant rate limit of /api/summarize: one request a
// second on average, in bursts of up to ten.
const (
	DefaultSummarizeRate  = 1.0 // see -summarize-rate
	DefaultSummarizeBurst = 10  // see -summarize-burst
)

// tenantLimits keeps a token bucket per tenant. Its tenants are
// authenticated ones, so its map is bounded by the key file. A
// tenantLimits is safe for concurrent use by multiple goroutines.
type tenantLimits struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu sync.Mutex               // protects m
	m  map[string]*rate.Limiter // tenant to its bucket
}

func newTenantLimits(perSecond float64, burst int, now func() time.Time) *tenantLimits {
	if now == nil {
		now = time.Now
	}
	return &tenantLimits{limit: rate.Limit(perSecond), burst: burst, now: now, m: make(map[string]*rate.Limiter)}
}

func (l *tenantLimits) limiter(tenant string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.m[tenant]
	if !ok {
		lim = rate.NewLimiter(l.limit, l.burst)
		l.m[tenant] = lim
	}
	return lim
}

// rateLimit answers 429, with Retry-After in whole seconds, to a request
// of a tenant (see requireTenant, which must run first) over its rate.
// A request refused takes no token.
func rateLimit(log *slog.Logger, l *tenantLimits) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			now := l.now()
			res := l.limiter(tenantFrom(r.Context())).ReserveN(now, 1)
			if d := res.DelayFrom(now); !res.OK() || d > 0 {
				res.CancelAt(now)
				secs := int64(math.Ceil(d.Seconds()))
				if !res.OK() || d == rate.InfDuration {
					secs = 60
				}
				w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
				fail(log, w, r, http.StatusTooManyRequests, "rate limit exceeded: retry later")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
