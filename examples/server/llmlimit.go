package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/recapgo/recap"
)

// errLLMBusy is the Compressor's LLM summarizer's error when
// -max-llm-calls calls are in flight: recap's fallback summarizer (the
// offline extractive one) serves the request at once.
var errLLMBusy = errors.New("summarizer: not called: the LLM has as many calls in flight as -max-llm-calls allows")

// limitCalls returns s with at most n calls in flight; one more fails at
// once with errLLMBusy instead of waiting. A stuck LLM so holds at most n
// requests (each until WithSummarizeTimeout), however many arrive: the
// others are summarized by the fallback, or answered unsummarized, without
// waiting for it (issue 23, F3). And when n calls in a row end past their
// deadline (the LLM is stuck, not slow for one request), no call is made
// for cooldown (on now's clock), as a circuit breaker that opens on
// concurrent timeouts: the breaker in front of the LLM counts failures one
// by one, and with n calls stuck at a time it would let the next n requests
// wait out their deadline again, round after round.
func limitCalls(s recap.Summarizer, n int, cooldown time.Duration, now func() time.Time) recap.Summarizer {
	sem := make(chan struct{}, n)
	var (
		mu       sync.Mutex
		timeouts int       // calls past their deadline in a row
		until    time.Time // no call before
	)
	return recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		mu.Lock()
		stuck := now().Before(until)
		mu.Unlock()
		if stuck {
			return "", errLLMStuck
		}
		select {
		case sem <- struct{}{}:
		default:
			return "", errLLMBusy
		}
		defer func() { <-sem }()
		text, err := s.Summarize(ctx, req)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			if timeouts++; timeouts >= n {
				timeouts, until = 0, now().Add(cooldown)
			}
		case err == nil:
			timeouts = 0
		}
		return text, err
	})
}

// errLLMStuck is the Compressor's LLM summarizer's error while its calls
// keep ending past their deadline: the fallback serves.
var errLLMStuck = errors.New("summarizer: not called: the LLM's last calls all timed out, waiting before the next")

// DefaultTenantLLMPerMinute bounds each tenant's LLM calls by the
// Compressor (-tenant-llm-per-minute).
const DefaultTenantLLMPerMinute = 60

// errTenantLLMBudget is the Compressor's LLM summarizer's error for a
// tenant over -tenant-llm-per-minute: the fallback serves.
var errTenantLLMBudget = errors.New("summarizer: not called: this tenant's LLM calls for the minute are spent (-tenant-llm-per-minute)")

// limitTenantCalls returns s calling the LLM at most perMinute times a
// minute for each tenant (a burst of perMinute, refilled evenly), the
// tenant read from the request's chat key (see storeKey); a call beyond
// fails at once with errTenantLLMBudget, and recap's fallback summarizer
// serves it. So one tenant's huge backlogs, folded in dozens of chunks, or
// histories made to be summarized again and again, cost the LLM bill a
// bounded amount (issue 23, F6). A chat key that names no tenant counts
// as the tenant "".
func limitTenantCalls(s recap.Summarizer, perMinute int, now func() time.Time) recap.Summarizer {
	limits := newTenantLimits(float64(perMinute)/60, perMinute, now)
	return recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		tenant, _, _ := splitStoreKey(req.ChatID)
		if !limits.limiter(tenant).AllowN(limits.now(), 1) {
			return "", errTenantLLMBudget
		}
		return s.Summarize(ctx, req)
	})
}
