// Command server wraps recap in an HTTP service:
//
//	POST /api/summarize            {"messages": [...]}  → {"summary": "..."}
//	POST /api/chats/{id}/payload   {"messages": [...]}  → {"payload": [...], "summary": {...}, "boundary": "...", ...}
//	GET  /healthz
//
// /api/summarize is the seed client's endpoint (the messages to summarize,
// the old summary first as a system message); /api/chats/{id}/payload runs
// the whole rolling compression for a chat and keeps its summary in the
// store: SQLite (-db FILE, the default recap.db) or PostgreSQL (-postgres
// DSN or RECAP_POSTGRES_DSN).
//
// The summarizer is chosen by the environment as for the CLI: an
// OpenAI-compatible endpoint (RECAP_OPENAI_BASE_URL, RECAP_OPENAI_API_KEY,
// RECAP_MODEL) or Anthropic (RECAP_ANTHROPIC_API_KEY), with the offline
// extractive summarizer as fallback, or the extractive one alone. It shuts
// down gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/internal/setup"
	"github.com/recapgo/recap/examples/sqlstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr, os.LookupEnv, nil))
}

// run is the whole program. It calls ready, if not nil, with the address
// it listens on, and returns the exit code once ctx is done and the server
// has shut down.
func run(ctx context.Context, args []string, stderr io.Writer, lookup func(string) (string, bool), ready func(addr string)) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		addr       = fs.String("addr", "127.0.0.1:8080", "address to listen on")
		dbPath     = fs.String("db", "recap.db", "SQLite file of the summaries (when -postgres is not set)")
		pgDSN      = fs.String("postgres", "", "PostgreSQL DSN of the summaries (default $RECAP_POSTGRES_DSN)")
		trigger    = fs.Int("trigger", 0, "summarize above this many tokens (default 1000, or $RECAP_SUMMARY_TRIGGER_TOKENS)")
		window     = fs.Int("window", 0, "conversations kept raw (default 2, or $RECAP_SUMMARY_WINDOW_CONVERSATIONS)")
		maxPayload = fs.Int("max-payload", 0, "hard ceiling on payload tokens (0: none)")
		timeout    = fs.Duration("timeout", 60*time.Second, "time limit of one request, summarizing included")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	fail := func(err error) int {
		log.Error("server", "err", err)
		return 1
	}

	opts, budget, err := setup.Options(lookup, []string{"RECAP_"}, fs, trigger, window)
	if err != nil {
		return fail(err)
	}
	if *maxPayload > 0 {
		opts = append(opts, recap.WithMaxPayloadTokens(*maxPayload))
	}
	counter, _ := recap.NewTiktokenCounter(recap.O200kBase)
	sum, fallback, label, err := setup.Summarizers(lookup, counter, budget)
	if err != nil {
		return fail(err)
	}
	if fallback != nil {
		opts = append(opts, recap.WithFallbackSummarizer(fallback))
	}
	opts = append(opts, recap.WithLogger(log), recap.WithSummarizeTimeout(*timeout/2))

	if *pgDSN == "" {
		*pgDSN, _ = lookup("RECAP_POSTGRES_DSN")
	}
	var (
		st    *sqlstore.Store
		db    *sql.DB
		where string
	)
	if *pgDSN != "" {
		st, db, err = sqlstore.OpenPostgres(ctx, *pgDSN)
		where = "postgres"
	} else {
		st, db, err = sqlstore.OpenSQLite(ctx, *dbPath)
		where = "sqlite " + *dbPath
	}
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	c, err := recap.New(sum, st, opts...)
	if err != nil {
		return fail(err)
	}

	h := &handler{c: c, sum: sum, log: log, timeout: *timeout}
	srv := &http.Server{
		Handler:           h.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      *timeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fail(err)
	}
	log.Info("listening", "addr", ln.Addr().String(), "store", where, "summarizer", label)
	if ready != nil {
		ready(ln.Addr().String())
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		return fail(err)
	case <-ctx.Done():
	}
	// Graceful shutdown: stop accepting, let requests in flight finish.
	shutCtx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fail(fmt.Errorf("shutdown: %w", err))
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return fail(err)
	}
	log.Info("stopped")
	return 0
}
