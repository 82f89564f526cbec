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
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	lookup := func(k string) (string, bool) { v := getenv(k); return v, v != "" }
	log, err := newLogger(stderr, o.logFormat)
	if err != nil {
		return err
	}
	if o.keysFile == "" {
		o.keysFile = getenv("RECAP_API_KEYS_FILE")
	}
	keys, err := loadKeys(log, o.keysFile, o.noAuth, o.addr)
	if err != nil {
		return err
	}
	opts, budget, err := setup.Options(lookup, []string{"RECAP_"}, o.fs, &o.trigger, &o.window)
	if err != nil {
		return err
	}
	counter, _ := tokens.NewTiktoken(tokens.O200kBase)
	opts, cal, err := o.countOptions(opts, counter)
	if err != nil {
		return err
	}
	if o.otlpURL == "" {
		o.otlpURL = getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	tel, err := newTelemetry(ctx, o.metricsOn, o.otlpURL, setup.Model(lookup), "")
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tel.shutdown(sctx) // flushes the last spans
	}()
	backoff := newSaveBackoff(log, now)
	backoff.maxStored = o.maxStored
	sums, opts, err := o.summarizers(lookup, counter, setup.SummaryBudget(0, budget), tel, backoff, now, opts)
	if err != nil {
		return err
	}
	opts = append(opts, recap.WithLogger(log), recap.WithSummarizeTimeout(o.timeout/2), recap.WithSummaryRole(recap.Role(o.role)),
		recap.WithHooks(tel.in.Hooks()), recap.WithLeaseWait(o.leaseWait), recap.WithLeaseTTL(o.leaseTTL))
	if o.instanceID != "" {
		opts = append(opts, recap.WithLeaseHolder(o.instanceID))
	}
	if o.sumCheck {
		opts = append(opts, recap.WithSummaryCheck())
	}
	st, db, where, err := o.openStore(ctx, getenv)
	if err != nil {
		return err
	}
	defer db.Close()
	store := markedStore{st}
	var pool *workers
	if o.background {
		pool = newWorkers(log, o.workersN, o.queueN)
		defer pool.stop()
		opts = append(opts, recap.WithBackground(pool.run))
	}
	c, err := recap.New(sums.compress, backoff.store(store), opts...)
	if err != nil {
		return err
	}
	var ar archive
	if o.archiveTTL > 0 {
		sa, err := st.Archive(o.archiveTTL, o.tenantStored, now)
		if err != nil {
			return err
		}
		ar = newMemoArchive(sa)
	}
	srv := o.httpServer(log, NewServer(log, Config{
		Keys: keys, Timeout: o.timeout,
		SummarizeRate: o.sumRate, SummarizeBurst: o.sumBurst,
		MaxMessages: o.maxMsgs, MaxIDBytes: o.maxIDBytes, MaxConcurrent: o.maxConc, QueueWait: o.queueWait,
		TenantMaxConcurrent: o.tenantConc, TenantRate: o.tenantRate,
		AllowedHosts: append(list(o.hosts), addrHost(o.addr)), CORSOrigins: list(o.origins),
		Telemetry: tel, Counter: counter,
		Calibrator: cal, Model: o.model, Overhead: o.overhead, Now: now, UsageTenants: list(o.usageTenants),
		Archive: ar,
	}, c, store, sums.serve))
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	trusted, err := parsePrefixes(o.trustedProxies)
	if err != nil {
		ln.Close()
		return fmt.Errorf("-trusted-proxies: %w", err)
	}
	lim := newConnLimiter(ln, log, o.maxConns, o.maxConnsPerIP, trusted)
	srv.ConnState = lim.connState
	ln = lim
	if err := tel.observeConns(lim); err != nil {
		ln.Close()
		return err
	}
	log.Info("listening", "addr", ln.Addr().String(), "store", where, "summarizer", sums.label)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	return shutdown(log, srv, serveErr, c, pool, o.grace)
}

// options are the server's command-line flags (see parseFlags).
type options struct {
	fs *flag.FlagSet // where they were parsed, to tell a flag set from its default

	addr, dbPath, pgDSN, keysFile, toolsFile string
	hosts, origins, role, logFormat, otlpURL string
	model, usageTenants, instanceID          string
	trigger, window, maxPayload, reserved    int
	sumBurst, maxMsgs, maxInput, maxConc     int
	maxIDBytes, maxLLMCalls, tenantLLM       int
	maxStored, tenantConc, maxConnsPerIP     int
	trustedProxies                           string
	pgMax, pgIdle, maxConns, brkFails        int
	workersN, queueN, llmRetries, overhead   int
	sumRate, tenantRate                      float64
	timeout, queueWait, pgIdleTime, pgLife   time.Duration
	brkCool, leaseWait, leaseTTL, grace      time.Duration
	archiveTTL                               time.Duration
	tenantStored                             int64
	noAuth, background, metricsOn, sumCheck  bool
}

// parseFlags parses args into options and checks them. Bad flags, which
// the flag package reports on stderr, are errUsage.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&o.dbPath, "db", "recap.db", "SQLite file of the summaries (when -postgres is not set)")
	fs.StringVar(&o.pgDSN, "postgres", "", "PostgreSQL DSN of the summaries (default $RECAP_POSTGRES_DSN)")
	fs.IntVar(&o.trigger, "trigger", 0, "summarize above this many tokens (default 1000, or $RECAP_SUMMARY_TRIGGER_TOKENS)")
	fs.IntVar(&o.window, "window", 0, "conversations kept raw (default 2, or $RECAP_SUMMARY_WINDOW_CONVERSATIONS)")
	fs.IntVar(&o.maxPayload, "max-payload", 0, "hard ceiling on payload tokens (0: none)")
	fs.IntVar(&o.reserved, "reserved-tokens", 0, "tokens of -max-payload kept for what a request holds besides the payload (recap.WithReservedTokens)")
	fs.StringVar(&o.toolsFile, "tools", "", "JSON file of the tool definitions clients send (an array in any provider's shape, or a request body): their tokens and the request's priming for -chat-model are added to -reserved-tokens")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "time limit of one request, summarizing included")
	fs.StringVar(&o.keysFile, "api-keys", "", "file of TENANT KEY lines, KEY in clear or sha256:<hex> (default $RECAP_API_KEYS_FILE)")
	fs.Float64Var(&o.sumRate, "summarize-rate", DefaultSummarizeRate, "requests a second each tenant may make to /api/summarize, on average")
	fs.IntVar(&o.sumBurst, "summarize-burst", DefaultSummarizeBurst, "requests each tenant may make to /api/summarize at once")
	fs.StringVar(&o.hosts, "allowed-hosts", "", "comma-separated Host names accepted besides localhost, 127.0.0.1 and [::1] (and -addr's host)")
	fs.StringVar(&o.usageTenants, "usage-tenants", "", "comma-separated tenants that may report usage to POST /api/usage, which calibrates the counter every tenant shares (default: the only tenant of a key file that names one, or of -insecure-no-auth; else none)")
	fs.StringVar(&o.origins, "cors-origins", "", "comma-separated origins (https://app.example.com) allowed to call the API from a browser")
	fs.StringVar(&o.role, "summary-role", DefaultSummaryRole, "role of the summary message in payloads: user, system or assistant")
	fs.IntVar(&o.maxMsgs, "max-messages", DefaultMaxMessages, "messages a request may hold")
	fs.IntVar(&o.maxStored, "max-stored-bytes", DefaultMaxStoredBytes, "bytes a chat's summary may store (text, covered IDs, digests); a larger one is not saved, and the chat backs off")
	fs.DurationVar(&o.archiveTTL, "archive-ttl", DefaultArchiveTTL, "how long a chat's archive (the messages its summary covers, which POST /api/chats/{id}/recall searches) is kept after its last write, in the database of the summaries (0: no archive)")
	fs.Int64Var(&o.tenantStored, "tenant-max-stored-bytes", DefaultTenantMaxStoredBytes, "bytes one tenant's chat archives may hold; beyond, a chat's oldest archived messages are evicted")
	fs.IntVar(&o.maxIDBytes, "max-id-bytes", DefaultMaxIDBytes, "bytes a message's ID may hold; a longer one, or one with NUL or invalid UTF-8, is a 400 before any LLM call")
	fs.IntVar(&o.maxInput, "max-summarize-input", DefaultMaxSummarizeInput, "tokens one summarizer call is given at most; a larger backlog is folded in chunks (0: no limit)")
	fs.IntVar(&o.maxConc, "max-concurrent", DefaultMaxConcurrent, "/api/ requests served at once; more wait -queue-wait, then get 503")
	fs.IntVar(&o.tenantConc, "tenant-max-concurrent", 0, "requests of one tenant served at once; one more waits -queue-wait without holding a slot, then gets 429 (0: half of -max-concurrent when the key file names several tenants; no bound of its own with one)")
	fs.Float64Var(&o.tenantRate, "tenant-rate", 0, "requests a second one tenant may make on every /api/ route, on average (a burst of twice as many); more get 429 with Retry-After (0: 50 when the key file names several tenants; no bound with one)")
	fs.DurationVar(&o.queueWait, "queue-wait", DefaultQueueWait, "how long a request waits for one of -max-concurrent slots")
	fs.IntVar(&o.pgMax, "pg-max-conns", DefaultPGMaxConns, "PostgreSQL: connections at most")
	fs.IntVar(&o.pgIdle, "pg-max-idle-conns", DefaultPGMaxIdle, "PostgreSQL: idle connections kept at most")
	fs.DurationVar(&o.pgIdleTime, "pg-conn-idle-time", DefaultPGIdleTime, "PostgreSQL: close a connection idle this long")
	fs.DurationVar(&o.pgLife, "pg-conn-lifetime", DefaultPGConnLifetime, "PostgreSQL: replace a connection this old")
	fs.IntVar(&o.maxConns, "max-conns", DefaultMaxConns, "open client connections at most; at the bound the connection idle longest is closed for a new one, and only when all are serving does a new one wait in the kernel's backlog")
	fs.IntVar(&o.maxConnsPerIP, "max-conns-per-ip", DefaultMaxConnsPerIP, "open connections of one client address at most; more are closed at once (not those of -trusted-proxies)")
	fs.StringVar(&o.trustedProxies, "trusted-proxies", "", "comma-separated addresses or CIDR prefixes of reverse proxies, whose connections carry many clients: exempt from -max-conns-per-ip")
	fs.IntVar(&o.brkFails, "breaker-failures", breaker.DefaultThreshold, "consecutive LLM failures that stop calling it for -breaker-cooldown (the fallback serves)")
	fs.DurationVar(&o.brkCool, "breaker-cooldown", breaker.DefaultCooldown, "how long the LLM is not called once the breaker opened")
	fs.BoolVar(&o.noAuth, "insecure-no-auth", false, "serve without authentication, as one tenant: local development only, on a loopback -addr")
	fs.BoolVar(&o.background, "background", true, "summarize off the request path while the payload fits -max-payload (recap.WithBackground)")
	fs.BoolVar(&o.sumCheck, "summary-check", false, "check each new summary against its input and repair it (recap.WithSummaryCheck): an LLM may be asked twice, and payload answers say what the check found")
	fs.IntVar(&o.maxLLMCalls, "max-llm-calls", 0, "the Compressor's LLM calls in flight at once; one more is summarized by the offline fallback at once, so that a stuck LLM holds at most this many requests (0: half of -max-concurrent, at least 1)")
	fs.IntVar(&o.tenantLLM, "tenant-llm-per-minute", DefaultTenantLLMPerMinute, "LLM calls each tenant's chats may cost a minute (a burst of as many); beyond, the offline fallback summarizes")
	fs.IntVar(&o.workersN, "summarize-workers", DefaultSummarizeWorkers, "background summarizations running at once")
	fs.IntVar(&o.queueN, "summarize-queue", DefaultSummarizeQueue, "background summarizations waiting at most; more are dropped and scheduled again by a later request")
	fs.IntVar(&o.llmRetries, "llm-retries", 0, "retries of a failed LLM call; 0: none, a failure goes to the breaker, which honours a rate limit's Retry-After (default $RECAP_LLM_MAX_RETRIES, else 0)")
	fs.StringVar(&o.logFormat, "log-format", "json", "log lines as json or text; each line about a request has its request_id (X-Request-ID)")
	fs.BoolVar(&o.metricsOn, "metrics", true, "serve OpenTelemetry metrics for Prometheus at GET /metrics (no key; from an allowed Host)")
	fs.StringVar(&o.otlpURL, "otlp-endpoint", "", "OTLP/HTTP endpoint to send traces to, e.g. http://127.0.0.1:4318 (default $OTEL_EXPORTER_OTLP_ENDPOINT; none: no traces)")
	fs.StringVar(&o.model, "chat-model", "", "the chat model the payloads are for: counted by its tokenizer or estimate (tokens.EstimatorForModel: OpenAI, Claude, Gemini; else o200k_base) and calibrated from the usage clients report to POST /api/usage (none: o200k_base, uncalibrated)")
	fs.IntVar(&o.overhead, "message-overhead", 0, "tokens of each message's framing, counted beside its text (recap.WithMessageOverhead; default the -chat-model family's, else 0)")
	fs.DurationVar(&o.leaseWait, "lease-wait", DefaultLeaseWait, "how long a request that must summarize waits while another replica summarizes the same chat (recap.WithLeaseWait); then it goes on unsummarized within -max-payload")
	fs.StringVar(&o.instanceID, "instance-id", "", "this replica's stable name, the holder of its summarization leases (recap.WithLeaseHolder): restarted with the same name, it takes over at once the leases it held when it died instead of waiting -lease-ttl. Never give two running replicas one name (default: a random holder per summarization)")
	fs.DurationVar(&o.leaseTTL, "lease-ttl", 0, "time-to-live of a chat's summarization lease, after which a replica that died holding it is taken over (0: 3 x -timeout/2 + 30s; recap.WithLeaseTTL)")
	fs.DurationVar(&o.grace, "grace", DefaultGrace, "on SIGINT or SIGTERM, how long requests in flight and background summarizations may take to finish (a second signal exits at once)")
	if err := fs.Parse(args); err != nil {
		return nil, errUsage
	}
	o.fs = fs
	return o, o.check()
}

// check reports flags out of their ranges.
func (o *options) check() error {
	switch {
	case o.maxMsgs < 1 || o.maxConc < 1 || o.queueWait < 0 || o.maxIDBytes < 1:
		return fmt.Errorf("-max-messages %d, -max-concurrent %d, -max-id-bytes %d: must be positive; -queue-wait %v: must not be negative", o.maxMsgs, o.maxConc, o.maxIDBytes, o.queueWait)
	case o.workersN < 1 || o.queueN < 0 || o.grace <= 0 || o.maxLLMCalls < 0 || o.tenantLLM < 1:
		return fmt.Errorf("-summarize-workers %d and -tenant-llm-per-minute %d must be positive, -max-llm-calls %d not negative, -summarize-queue %d not negative, -grace %v positive", o.workersN, o.tenantLLM, o.maxLLMCalls, o.queueN, o.grace)
	case o.leaseWait < 0 || o.leaseTTL < 0:
		return fmt.Errorf("-lease-wait %v, -lease-ttl %v: must not be negative", o.leaseWait, o.leaseTTL)
	case o.sumRate <= 0 || o.sumBurst < 1:
		return fmt.Errorf("-summarize-rate %v, -summarize-burst %d: both must be positive", o.sumRate, o.sumBurst)
	}
	return o.checkBounds()
}

// checkBounds is check of the size, connection and pool bounds.
func (o *options) checkBounds() error {
	switch {
	case o.archiveTTL < 0 || o.tenantStored < 1:
		return fmt.Errorf("-archive-ttl %v: must not be negative; -tenant-max-stored-bytes %d: must be positive", o.archiveTTL, o.tenantStored)
	case o.maxStored < 1 || o.tenantConc < 0 || o.tenantRate < 0:
		return fmt.Errorf("-max-stored-bytes %d: must be positive; -tenant-max-concurrent %d, -tenant-rate %v: not negative", o.maxStored, o.tenantConc, o.tenantRate)
	case o.overhead < 0:
		return fmt.Errorf("-message-overhead %d: must not be negative", o.overhead)
	case o.maxConns < 1 || o.maxConnsPerIP < 1:
		return fmt.Errorf("-max-conns %d, -max-conns-per-ip %d: must be positive", o.maxConns, o.maxConnsPerIP)
	case o.pgMax < 1 || o.pgIdle < 0:
		return fmt.Errorf("-pg-max-conns %d must be positive, -pg-max-idle-conns %d not negative", o.pgMax, o.pgIdle)
	}
	return nil
}

// countOptions adds to opts how payloads are measured: the ceiling, the
// summarizer's input bound, the counter of -chat-model (calibrated from
// reported usage; nil without -chat-model), the message overhead and the
// reserved tokens.
func (o *options) countOptions(opts []recap.Option, counter recap.TokenCounter) ([]recap.Option, *recap.Calibrator, error) {
	if o.maxPayload > 0 {
		opts = append(opts, recap.WithMaxPayloadTokens(o.maxPayload))
	}
	if o.maxInput > 0 {
		// Bounds what a summarizer holds at once (an LLM's context, the
		// extractive one's memory), whatever the request's size.
		opts = append(opts, recap.WithMaxSummarizeInput(o.maxInput))
	}
	var cal *recap.Calibrator
	if o.model != "" {
		// The model's own counter or estimate where recap knows the model
		// (tokens.EstimatorForModel), else o200k_base, corrected by usage.
		base := counter
		if e, err := tokens.EstimatorForModel(o.model); err == nil {
			base = e
			if !flagSet(o.fs, "message-overhead") {
				o.overhead = e.MessageOverhead()
			}
		}
		cal = recap.NewCalibrator(base)
		opts = append(opts, recap.WithTokenCounter(cal.Counter(o.model)))
	}
	opts = append(opts, recap.WithMessageOverhead(o.overhead))
	fixed, err := reservedTokens(o.reserved, o.toolsFile, o.model)
	switch {
	case err != nil:
		return nil, nil, err
	case fixed > 0 && o.maxPayload == 0:
		return nil, nil, errors.New("-reserved-tokens and -tools keep part of -max-payload: set it")
	case fixed > 0:
		opts = append(opts, recap.WithReservedTokens(fixed))
	}
	return opts, cal, nil
}

// serverSummarizers are the Summarizers the server calls.
type serverSummarizers struct {
	compress recap.Summarizer // the Compressor's
	serve    recap.Summarizer // /api/summarize's
	label    string           // what the log says of them
}

// summarizers makes the Summarizers the environment chooses (setup.Summarizers).
// An LLM is called through a circuit breaker, and by the Compressor not
// while the store cannot save (backoff), with the extractive fallback added
// to opts.
func (o *options) summarizers(lookup func(string) (string, bool), counter recap.TokenCounter, budget int, tel *telemetry,
	backoff *saveBackoff, now func() time.Time, opts []recap.Option) (serverSummarizers, []recap.Option, error) {
	if _, set := lookup(setup.EnvMaxRetries); !set || flagSet(o.fs, "llm-retries") {
		// The server retries nothing by default: the SDK would wait out a
		// Retry-After in the request or the task; the breaker opens for it.
		lookup = withValue(lookup, setup.EnvMaxRetries, strconv.Itoa(o.llmRetries))
	}
	sum, fallback, label, err := setup.Summarizers(lookup, counter, budget, newLLM)
	if err != nil {
		return serverSummarizers{}, nil, err
	}
	sum = shieldSummarizer(sum)                                             // errors without the provider's body
	s := serverSummarizers{compress: sum, serve: sum, label: redact(label)} // a base URL may hold credentials
	if fallback == nil {
		return s, opts, nil
	}
	// An LLM: stop calling it while it keeps failing, and while the store
	// cannot save what it would make.
	brk, err := breaker.New(sum, o.brkFails, o.brkCool, now)
	if err != nil {
		return serverSummarizers{}, nil, err
	}
	if err := tel.in.ObserveCircuit("llm", func() int64 { return int64(brk.State()) }); err != nil {
		return serverSummarizers{}, nil, err
	}
	calls := o.maxLLMCalls
	if calls == 0 {
		calls = max(1, o.maxConc/2)
	}
	s.serve, s.compress = brk, backoff.summarizer(limitCalls(limitTenantCalls(brk, o.tenantLLM, now), calls, o.brkCool, now))
	return s, append(opts, recap.WithFallbackSummarizer(fallback)), nil
}

// openStore opens the SQL store of -postgres (or $RECAP_POSTGRES_DSN), or
// else of -db, and returns it, its database and where it is (for the log).
func (o *options) openStore(ctx context.Context, getenv func(string) string) (*sqlstore.Store, *sql.DB, string, error) {
	if o.pgDSN == "" {
		o.pgDSN = getenv("RECAP_POSTGRES_DSN")
	}
	if o.pgDSN == "" {
		st, db, err := sqlstore.OpenSQLite(ctx, o.dbPath)
		if err != nil {
			return nil, nil, "", err
		}
		sqlitePool.apply(db)
		return st, db, "sqlite " + o.dbPath, nil
	}
	st, db, err := sqlstore.OpenPostgres(ctx, o.pgDSN)
	if err != nil {
		return nil, nil, "", redactError(err, dsnPassword(o.pgDSN))
	}
	poolConfig{maxOpen: o.pgMax, maxIdle: o.pgIdle, idleTime: o.pgIdleTime, lifetime: o.pgLife}.apply(db)
	return st, db, "postgres " + redact(o.pgDSN), nil
}

// httpServer returns the HTTP server of h with the server's time limits.
func (o *options) httpServer(log *slog.Logger, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       o.queueWait + 30*time.Second, // a request waiting for a slot has not read its body yet
		WriteTimeout:      o.timeout + 10*time.Second,
		IdleTimeout:       DefaultIdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
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
