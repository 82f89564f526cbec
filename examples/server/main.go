// Command server wraps recap in an HTTP service:
//
//	POST /api/summarize            {"messages": [...], "previous": "..."}  → {"summary": "...", "previousFrom": "..."}
//	POST /api/chats/{id}/payload   {"messages": [...]}        → {"payload": [...], "summary": {...}, "boundary": "...", "scheduled": true, ...}
//	POST /api/payload              {"id": ..., "messages": [...]}  → the same
//	GET    /api/chats/{id}/summary                            → {"summary": {...}} or 404
//	DELETE /api/chats/{id}/summary                            → 204
//	GET  /healthz
//
// Every /api/ route needs "Authorization: Bearer KEY" with a key of the
// -api-keys file, and sees only the chats of the key's tenant (see
// storeKey); -insecure-no-auth serves one tenant without keys, on a
// loopback address only.
//
// /api/summarize is the seed client's endpoint (the messages to summarize,
// the old summary in "previous", or, without that field, first as a
// system message; see handleSummarize); the payload routes run the
// whole rolling compression for a chat and keep its summary in the store:
// SQLite (-db FILE, the default recap.db) or PostgreSQL (-postgres DSN or
// RECAP_POSTGRES_DSN).
//
// Every route takes the body that the Vercel AI SDK's useChat posts by
// default ({"id", "messages", "trigger", "messageId", ...}): the body's id
// names the chat where the path does not (a different id in each is an
// error), and fields the server does not use are ignored.
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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/breaker"
	"github.com/recapgo/recap/examples/sqlstore"
	"github.com/recapgo/recap/internal/setup"
	"github.com/recapgo/recap/tokens"
	"golang.org/x/net/netutil"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver of -postgres
	_ "modernc.org/sqlite"             // the SQLite driver of -db
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go onSignals(sigs, cancel, func() {
		fmt.Fprintln(os.Stderr, "server: second signal: exiting now")
		os.Exit(1)
	})
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, time.Now); err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintf(os.Stderr, "server: %v\n", err)
		}
		os.Exit(1)
	}
}

// onSignals calls first on the first signal (a graceful shutdown) and
// second on the next (exit at once, for an operator who does not want to
// wait for the drain).
func onSignals(sigs <-chan os.Signal, first, second func()) {
	<-sigs
	first()
	<-sigs
	second()
}

// loadKeys returns the keyring of file, or nil with noAuth, which it
// refuses on an address that is not loopback. One of the two is required.
func loadKeys(log *slog.Logger, file string, noAuth bool, addr string) (*keyring, error) {
	switch {
	case file != "" && noAuth:
		return nil, errors.New("-api-keys and -insecure-no-auth: choose one")
	case noAuth:
		if !loopback(addr) {
			return nil, fmt.Errorf("-insecure-no-auth: refused on %s, which is not a loopback address", addr)
		}
		log.Warn("INSECURE: -insecure-no-auth: no authentication, every client is the same tenant; for local development only")
		return nil, nil
	case file == "":
		return nil, errors.New("no API keys: give -api-keys FILE (or RECAP_API_KEYS_FILE), or -insecure-no-auth for local development")
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseKeys(f)
}

// loopback reports whether addr (host:port) listens on loopback only:
// "localhost" or a loopback IP, not "" (every interface).
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// list splits a comma-separated flag, dropping empty items.
func list(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// addrHost returns the host of the listening address, which clients may
// use as Host ("" for every interface, which allows nothing more).
func addrHost(addr string) string {
	host, _, _ := net.SplitHostPort(addr)
	return host
}

// DefaultSummaryRole is the role of the summary message unless
// -summary-role says otherwise: user, not recap's default system. A summary
// is made from what the chat's users wrote (the extractive summarizer
// copies their sentences verbatim; an LLM can be talked into writing
// instructions), and a service takes anyone's chat: as a system message,
// a user's "ignore your instructions and ..." would come back on the next
// turn with the authority of the app's own prompt. As a user message it
// keeps the authority of where it came from. Choose system only for
// trusted users, where the model's fidelity to the summary matters more.
const DefaultSummaryRole = string(recap.RoleUser)

// Bounds on connections: each takes a file descriptor, and idle
// keep-alives are closed after DefaultIdleTimeout (20,000 idle
// keep-alives took the service down with the former 2 minutes and no cap).
const (
	DefaultMaxConns    = 1024 // see -max-conns; keep it under ulimit -n
	DefaultIdleTimeout = 30 * time.Second
)

// errUsage reports bad flags, which the flag package has already printed.
var errUsage = errors.New("usage")

// run is the whole program: it serves until ctx is done, then shuts down
// gracefully and returns nil. It logs to stderr, the address it listens on
// first (a JSON line {"msg":"listening","addr":...}), and reads the environment with getenv,
// where an empty variable counts as unset. stdout is unused: the service
// prints nothing but its log. now is the clock of the LLM's circuit
// breaker, of the back-off after failed saves and of the rate limits
// (time.Now, or a test's fake clock); the time limits of requests,
// summarizations and the shutdown run on the runtime's timers.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, now func() time.Time) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		addr       = fs.String("addr", "127.0.0.1:8080", "address to listen on")
		dbPath     = fs.String("db", "recap.db", "SQLite file of the summaries (when -postgres is not set)")
		pgDSN      = fs.String("postgres", "", "PostgreSQL DSN of the summaries (default $RECAP_POSTGRES_DSN)")
		trigger    = fs.Int("trigger", 0, "summarize above this many tokens (default 1000, or $RECAP_SUMMARY_TRIGGER_TOKENS)")
		window     = fs.Int("window", 0, "conversations kept raw (default 2, or $RECAP_SUMMARY_WINDOW_CONVERSATIONS)")
		maxPayload = fs.Int("max-payload", 0, "hard ceiling on payload tokens (0: none)")
		reserved   = fs.Int("reserved-tokens", 0, "tokens of -max-payload kept for what a request holds besides the payload (recap.WithReservedTokens)")
		toolsFile  = fs.String("tools", "", "JSON file of the tool definitions clients send (an array in any provider's shape, or a request body): their tokens and the request's priming for -chat-model are added to -reserved-tokens")
		timeout    = fs.Duration("timeout", 60*time.Second, "time limit of one request, summarizing included")
		keysFile   = fs.String("api-keys", "", "file of TENANT KEY lines, KEY in clear or sha256:<hex> (default $RECAP_API_KEYS_FILE)")
		sumRate    = fs.Float64("summarize-rate", DefaultSummarizeRate, "requests a second each tenant may make to /api/summarize, on average")
		sumBurst   = fs.Int("summarize-burst", DefaultSummarizeBurst, "requests each tenant may make to /api/summarize at once")
		hosts      = fs.String("allowed-hosts", "", "comma-separated Host names accepted besides localhost, 127.0.0.1 and [::1] (and -addr's host)")
		origins    = fs.String("cors-origins", "", "comma-separated origins (https://app.example.com) allowed to call the API from a browser")
		role       = fs.String("summary-role", DefaultSummaryRole, "role of the summary message in payloads: user, system or assistant")
		maxMsgs    = fs.Int("max-messages", DefaultMaxMessages, "messages a request may hold")
		maxInput   = fs.Int("max-summarize-input", DefaultMaxSummarizeInput, "tokens one summarizer call is given at most; a larger backlog is folded in chunks (0: no limit)")
		maxConc    = fs.Int("max-concurrent", DefaultMaxConcurrent, "/api/ requests served at once; more wait -queue-wait, then get 503")
		queueWait  = fs.Duration("queue-wait", DefaultQueueWait, "how long a request waits for one of -max-concurrent slots")
		pgMax      = fs.Int("pg-max-conns", DefaultPGMaxConns, "PostgreSQL: connections at most")
		pgIdle     = fs.Int("pg-max-idle-conns", DefaultPGMaxIdle, "PostgreSQL: idle connections kept at most")
		pgIdleTime = fs.Duration("pg-conn-idle-time", DefaultPGIdleTime, "PostgreSQL: close a connection idle this long")
		pgLife     = fs.Duration("pg-conn-lifetime", DefaultPGConnLifetime, "PostgreSQL: replace a connection this old")
		maxConns   = fs.Int("max-conns", DefaultMaxConns, "open client connections at most; more wait in the kernel's backlog")
		brkFails   = fs.Int("breaker-failures", breaker.DefaultThreshold, "consecutive LLM failures that stop calling it for -breaker-cooldown (the fallback serves)")
		brkCool    = fs.Duration("breaker-cooldown", breaker.DefaultCooldown, "how long the LLM is not called once the breaker opened")
		noAuth     = fs.Bool("insecure-no-auth", false, "serve without authentication, as one tenant: local development only, on a loopback -addr")
		background = fs.Bool("background", true, "summarize off the request path while the payload fits -max-payload (recap.WithBackground)")
		workersN   = fs.Int("summarize-workers", DefaultSummarizeWorkers, "background summarizations running at once")
		queueN     = fs.Int("summarize-queue", DefaultSummarizeQueue, "background summarizations waiting at most; more are dropped and scheduled again by a later request")
		llmRetries = fs.Int("llm-retries", 0, "retries of a failed LLM call; 0: none, a failure goes to the breaker, which honours a rate limit's Retry-After (default $RECAP_LLM_MAX_RETRIES, else 0)")
		logFormat  = fs.String("log-format", "json", "log lines as json or text; each line about a request has its request_id (X-Request-ID)")
		metricsOn  = fs.Bool("metrics", true, "serve OpenTelemetry metrics for Prometheus at GET /metrics (no key; from an allowed Host)")
		otlpURL    = fs.String("otlp-endpoint", "", "OTLP/HTTP endpoint to send traces to, e.g. http://127.0.0.1:4318 (default $OTEL_EXPORTER_OTLP_ENDPOINT; none: no traces)")
		model      = fs.String("chat-model", "", "the chat model the payloads are for: counted by its tokenizer or estimate (tokens.EstimatorForModel: OpenAI, Claude, Gemini; else o200k_base) and calibrated from the usage clients report to POST /api/usage (none: o200k_base, uncalibrated)")
		overhead   = fs.Int("message-overhead", 0, "tokens of each message's framing, counted beside its text (recap.WithMessageOverhead; default the -chat-model family's, else 0)")
		leaseWait  = fs.Duration("lease-wait", DefaultLeaseWait, "how long a request that must summarize waits while another replica summarizes the same chat (recap.WithLeaseWait); then it goes on unsummarized within -max-payload")
		leaseTTL   = fs.Duration("lease-ttl", 0, "time-to-live of a chat's summarization lease, after which a replica that died holding it is taken over (0: 3 x -timeout/2 + 30s; recap.WithLeaseTTL)")
		grace      = fs.Duration("grace", DefaultGrace, "on SIGINT or SIGTERM, how long requests in flight and background summarizations may take to finish (a second signal exits at once)")
	)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *maxMsgs < 1 || *maxConc < 1 || *queueWait < 0 {
		return fmt.Errorf("-max-messages %d, -max-concurrent %d: must be positive; -queue-wait %v: must not be negative", *maxMsgs, *maxConc, *queueWait)
	}
	if *workersN < 1 || *queueN < 0 || *grace <= 0 {
		return fmt.Errorf("-summarize-workers %d must be positive, -summarize-queue %d not negative, -grace %v positive", *workersN, *queueN, *grace)
	}
	if *leaseWait < 0 || *leaseTTL < 0 {
		return fmt.Errorf("-lease-wait %v, -lease-ttl %v: must not be negative", *leaseWait, *leaseTTL)
	}
	if *sumRate <= 0 || *sumBurst < 1 {
		return fmt.Errorf("-summarize-rate %v, -summarize-burst %d: both must be positive", *sumRate, *sumBurst)
	}
	lookup := func(k string) (string, bool) { v := getenv(k); return v, v != "" }
	log, err := newLogger(stderr, *logFormat)
	if err != nil {
		return err
	}

	if *keysFile == "" {
		*keysFile = getenv("RECAP_API_KEYS_FILE")
	}
	keys, err := loadKeys(log, *keysFile, *noAuth, *addr)
	if err != nil {
		return err
	}

	opts, budget, err := setup.Options(lookup, []string{"RECAP_"}, fs, trigger, window)
	if err != nil {
		return err
	}
	if *maxPayload > 0 {
		opts = append(opts, recap.WithMaxPayloadTokens(*maxPayload))
	}
	if *maxInput > 0 {
		// Bounds what a summarizer holds at once (an LLM's context, the
		// extractive one's memory), whatever the request's size.
		opts = append(opts, recap.WithMaxSummarizeInput(*maxInput))
	}
	counter, _ := tokens.NewTiktoken(tokens.O200kBase)
	if *overhead < 0 {
		return fmt.Errorf("-message-overhead %d: must not be negative", *overhead)
	}
	var cal *recap.Calibrator
	if *model != "" {
		// The model's own counter or estimate where recap knows the model
		// (tokens.EstimatorForModel), else o200k_base, corrected by usage.
		var base recap.TokenCounter = counter
		if e, err := tokens.EstimatorForModel(*model); err == nil {
			base = e
			if !flagSet(fs, "message-overhead") {
				*overhead = e.MessageOverhead()
			}
		}
		cal = recap.NewCalibrator(base)
		opts = append(opts, recap.WithTokenCounter(cal.Counter(*model)))
	}
	opts = append(opts, recap.WithMessageOverhead(*overhead))
	fixed, err := reservedTokens(*reserved, *toolsFile, *model)
	if err != nil {
		return err
	}
	if fixed > 0 {
		if *maxPayload == 0 {
			return errors.New("-reserved-tokens and -tools keep part of -max-payload: set it")
		}
		opts = append(opts, recap.WithReservedTokens(fixed))
	}
	if _, set := lookup(setup.EnvMaxRetries); !set || flagSet(fs, "llm-retries") {
		// The server retries nothing by default: the SDK would wait out a
		// Retry-After in the request or the task; the breaker opens for it.
		lookup = withValue(lookup, setup.EnvMaxRetries, strconv.Itoa(*llmRetries))
	}
	sum, fallback, label, err := setup.Summarizers(lookup, counter, budget, newLLM)
	if err != nil {
		return err
	}
	label = redact(label)       // a base URL may hold credentials
	sum = shieldSummarizer(sum) // errors without the provider's body
	if *otlpURL == "" {
		*otlpURL = getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	tel, err := newTelemetry(ctx, *metricsOn, *otlpURL, setup.Model(lookup), "")
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tel.shutdown(sctx) // flushes the last spans
	}()
	backoff := newSaveBackoff(log, now)
	compressSum := sum // what the Compressor calls; sum also serves /api/summarize
	if fallback != nil {
		// An LLM: stop calling it while it keeps failing, and while the
		// store cannot save what it would make.
		brk, err := breaker.New(sum, *brkFails, *brkCool, now)
		if err != nil {
			return err
		}
		if err := tel.in.ObserveCircuit("llm", func() int64 { return int64(brk.State()) }); err != nil {
			return err
		}
		sum = brk
		compressSum = backoff.summarizer(sum)
		opts = append(opts, recap.WithFallbackSummarizer(fallback))
	}
	opts = append(opts, recap.WithLogger(log), recap.WithSummarizeTimeout(*timeout/2), recap.WithSummaryRole(recap.Role(*role)),
		recap.WithHooks(tel.in.Hooks()), recap.WithLeaseWait(*leaseWait), recap.WithLeaseTTL(*leaseTTL))

	if *pgDSN == "" {
		*pgDSN = getenv("RECAP_POSTGRES_DSN")
	}
	var (
		st    *sqlstore.Store
		db    *sql.DB
		where string
	)
	if *pgDSN != "" {
		st, db, err = sqlstore.OpenPostgres(ctx, *pgDSN)
		err = redactError(err, dsnPassword(*pgDSN))
		where = "postgres " + redact(*pgDSN)
		if err == nil {
			if *pgMax < 1 || *pgIdle < 0 {
				db.Close()
				return fmt.Errorf("-pg-max-conns %d must be positive, -pg-max-idle-conns %d not negative", *pgMax, *pgIdle)
			}
			poolConfig{maxOpen: *pgMax, maxIdle: *pgIdle, idleTime: *pgIdleTime, lifetime: *pgLife}.apply(db)
		}
	} else {
		st, db, err = sqlstore.OpenSQLite(ctx, *dbPath)
		where = "sqlite " + *dbPath
		if err == nil {
			sqlitePool.apply(db)
		}
	}
	if err != nil {
		return err
	}
	defer db.Close()
	store := markedStore{st}
	var pool *workers
	if *background {
		pool = newWorkers(log, *workersN, *queueN)
		defer pool.stop()
		opts = append(opts, recap.WithBackground(pool.run))
	}
	c, err := recap.New(compressSum, backoff.store(store), opts...)
	if err != nil {
		return err
	}

	srv := &http.Server{
		Handler: NewServer(log, Config{
			Keys: keys, Timeout: *timeout,
			SummarizeRate: *sumRate, SummarizeBurst: *sumBurst,
			MaxMessages: *maxMsgs, MaxConcurrent: *maxConc, QueueWait: *queueWait,
			AllowedHosts: append(list(*hosts), addrHost(*addr)), CORSOrigins: list(*origins),
			Telemetry: tel, Counter: counter,
			Calibrator: cal, Model: *model, Overhead: *overhead, Now: now,
		}, c, store, sum),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       *queueWait + 30*time.Second, // a request waiting for a slot has not read its body yet
		WriteTimeout:      *timeout + 10*time.Second,
		IdleTimeout:       DefaultIdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if *maxConns < 1 {
		return fmt.Errorf("-max-conns %d: must be positive", *maxConns)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ln = netutil.LimitListener(ln, *maxConns)
	log.Info("listening", "addr", ln.Addr().String(), "store", where, "summarizer", label)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	return shutdown(log, srv, serveErr, c, pool, *grace)
}

// DefaultLeaseWait is how long a request that must summarize waits for
// another replica's summarization of the same chat (-lease-wait).
const DefaultLeaseWait = 10 * time.Second

// DefaultGrace is how long a shutdown waits for requests in flight and
// background summarizations.
const DefaultGrace = 30 * time.Second

// shutdown stops srv gracefully: it stops accepting, lets the requests in
// flight finish, then waits for the background summarizations (c.Drain),
// all within grace; what is still running then is cut short (its context
// is cancelled: nothing half-saved, the store's compare-and-swap sees to
// that).
func shutdown(log *slog.Logger, srv *http.Server, serveErr <-chan error, c *recap.Compressor, pool *workers, grace time.Duration) error {
	log.Info("shutting down", "grace", grace)
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	var errs []error
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
		errs = append(errs, fmt.Errorf("shutdown: requests still running after %v: %w", grace, err))
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, err)
	}
	if pool != nil {
		if err := c.Drain(ctx); err != nil {
			log.Warn("grace period over: cancelling the background summarizations still running", "grace", grace)
			errs = append(errs, fmt.Errorf("shutdown: background summarizations still running after %v: %w", grace, err))
		}
		pool.stop()
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	log.Info("stopped")
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// withValue returns lookup with key set to value.
func withValue(lookup func(string) (string, bool), key, value string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if k == key {
			return value, true
		}
		return lookup(k)
	}
}

// reservedTokens returns the tokens of the payload ceiling that requests
// need for the rest: n, plus, with a tools file, its tool definitions and
// the request's priming as recap estimates them for model (as for an
// OpenAI model counted by o200k_base when recap does not know model).
func reservedTokens(n int, toolsFile, model string) (int, error) {
	if n < 0 {
		return 0, fmt.Errorf("-reserved-tokens %d: must not be negative", n)
	}
	if toolsFile == "" {
		return n, nil
	}
	data, err := os.ReadFile(toolsFile)
	if err != nil {
		return 0, fmt.Errorf("-tools: %w", err)
	}
	e, err := tokens.EstimatorForModel(model)
	if err != nil {
		e, _ = tokens.EstimatorForModel("gpt-4o") // o200k_base, the server's counter
	}
	tools, err := e.ToolTokens(data)
	if err != nil {
		return 0, fmt.Errorf("-tools %s: %w", toolsFile, err)
	}
	return n + tools + e.RequestOverhead(), nil
}
