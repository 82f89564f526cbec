package main

import (
	"log/slog"
	"net/http"

	"github.com/recapgo/recap"
)

// addRoutes maps the whole API surface of the service, in one place.
// Every /api/ route requires a tenant (see requireTenant).
func addRoutes(mux *http.ServeMux, log *slog.Logger, cfg Config, c *recap.Compressor, st recap.Store, sum recap.Summarizer) {
	// Spans and HTTP metrics are of authenticated requests from an
	// allowed Host only, labelled by the route, never by what a client
	// sends (issue 23, F4): rejected requests are counted by
	// the rejections' own log lines, not by series a client could
	// multiply.
	observe := func(h http.Handler) http.Handler { return h }
	if cfg.Telemetry != nil {
		observe = cfg.Telemetry.handler
	}
	slots := make(chan struct{}, cfg.MaxConcurrent)
	tenants := func(h http.Handler) http.Handler { return h } // one tenant: the server's slots are its
	several := cfg.Keys != nil && !cfg.Keys.single()
	if perTenant := cfg.TenantMaxConcurrent; perTenant > 0 || several {
		if perTenant == 0 {
			perTenant = max(1, cfg.MaxConcurrent/2)
		}
		tenants = limitTenants(log, perTenant, cfg.QueueWait)
	}
	if r := cfg.TenantRate; r > 0 || several {
		if r == 0 {
			r = DefaultTenantRate
		}
		byTenant := rateLimit(log, newTenantLimits(r, max(1, int(2*r)), cfg.Now))
		concurrency := tenants
		tenants = func(h http.Handler) http.Handler { return byTenant(concurrency(h)) }
	}
	auth := func(h http.Handler) http.Handler {
		// The tenant first, from the request's headers: a request without
		// a key takes no slot; a tenant's requests take at most perTenant.
		return requireTenant(log, cfg.Keys)(tenants(limitSlots(log, slots, cfg.QueueWait)(observe(h))))
	}
	limit := rateLimit(log, newTenantLimits(cfg.SummarizeRate, cfg.SummarizeBurst, cfg.Now))
	mux.Handle("POST /api/summarize", auth(limit(handleSummarize(log, sum, cfg.Timeout, cfg.MaxMessages))))
	mux.Handle("POST /api/chats/{id}/payload", auth(handlePayload(log, c, cfg)))
	mux.Handle("POST /api/payload", auth(handlePayload(log, c, cfg))) // the chat's id in the body
	mux.Handle("POST /api/usage", auth(handleUsage(log, cfg)))
	mux.Handle("GET /api/chats/{id}/summary", auth(handleGetSummary(log, st, cfg.Timeout)))
	mux.Handle("DELETE /api/chats/{id}/summary", auth(handleDeleteSummary(log, st, cfg.Timeout, cfg.Archive)))
	mux.Handle("POST /api/chats/{id}/recall", auth(handleRecall(log, st, cfg)))
	mux.Handle("DELETE /api/chats/{id}/messages/{mid}", auth(handleDeleteMessage(log, c, cfg)))
	mux.Handle("GET /healthz", handleHealthz())
	mux.Handle("GET /readyz", handleReadyz(st, slots))
	if cfg.Telemetry != nil && cfg.Telemetry.metrics != nil {
		// Counts by outcome, no tenant or chat: not behind a key, so that
		// Prometheus can scrape it (from an allowed Host).
		mux.Handle("GET /metrics", cfg.Telemetry.metrics)
	}
}
