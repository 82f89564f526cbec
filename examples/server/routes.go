package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/recapgo/recap"
)

// addRoutes maps the whole API surface of the service, in one place.
func addRoutes(mux *http.ServeMux, log *slog.Logger, c *recap.Compressor, sum recap.Summarizer, timeout time.Duration) {
	mux.Handle("POST /api/summarize", handleSummarize(log, sum, timeout))
	mux.Handle("POST /api/chats/{id}/payload", handlePayload(log, c, timeout))
	mux.Handle("POST /api/payload", handlePayload(log, c, timeout)) // the chat's id in the body
	mux.Handle("GET /healthz", handleHealthz())
}
