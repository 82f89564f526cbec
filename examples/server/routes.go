package main

import (
	"log/slog"
	"net/http"

	"github.com/recapgo/recap"
)

// addRoutes maps the whole API surface of the service, in one place.
// Every /api/ route requires a tenant (see requireTenant).
func addRoutes(mux *http.ServeMux, log *slog.Logger, cfg Config, c *recap.Compressor, st recap.Store, sum recap.Summarizer) {
	auth := func(h http.Handler) http.Handler {
		return limitConcurrency(log, cfg.MaxConcurrent, cfg.QueueWait)(requireTenant(log, cfg.Keys)(h))
	}
	limit := rateLimit(log, newTenantLimits(cfg.SummarizeRate, cfg.SummarizeBurst, cfg.Now))
	mux.Handle("POST /api/summarize", auth(limit(handleSummarize(log, sum, cfg.Timeout, cfg.MaxMessages))))
	mux.Handle("POST /api/chats/{id}/payload", auth(handlePayload(log, c, cfg)))
	mux.Handle("POST /api/payload", auth(handlePayload(log, c, cfg))) // the chat's id in the body
	mux.Handle("POST /api/usage", auth(handleUsage(log, cfg)))
	mux.Handle("GET /api/chats/{id}/summary", auth(handleGetSummary(log, st, cfg.Timeout)))
	mux.Handle("DELETE /api/chats/{id}/summary", auth(handleDeleteSummary(log, st, cfg.Timeout)))
	mux.Handle("GET /healthz", handleHealthz())
	if cfg.Telemetry != nil && cfg.Telemetry.metrics != nil {
		// Counts by outcome, no tenant or chat: not behind a key, so that
		// Prometheus can scrape it (from an allowed Host).
		mux.Handle("GET /metrics", cfg.Telemetry.metrics)
	}
}
