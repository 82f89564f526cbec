package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recapgo/recap"
)

// Bounds on what an error message takes from the request, so that a huge
// field is echoed neither into the response nor into the log: a quoted
// value is cut to maxQuote bytes, a whole message to maxError, each with
// "…" where it was cut.
const (
	maxQuote = 64
	maxError = 256
)

// maxChatID bounds a chat ID, from the path or the body.
const maxChatID = 200

// statusClientGone is the status of a request whose client went away
// before the answer was ready (nginx's 499): nobody reads it, but the log
// and the metrics of a proxy do, and it is not a server error.
const statusClientGone = 499

// Config is what NewServer needs besides its collaborators.
type Config struct {
	// Keys are the API keys and their tenants; nil serves every request
	// as one tenant, without authentication (-insecure-no-auth).
	Keys *keyring
	// Timeout bounds each request's summarizing and store calls.
	Timeout time.Duration
	// SummarizeRate and SummarizeBurst are each tenant's rate limit on
	// /api/summarize: requests a second, and the bucket's size.
	SummarizeRate  float64
	SummarizeBurst int
	// AllowedHosts are the Host names allowed besides the loopback ones
	// (see checkHost); CORSOrigins the origins answered CORS (see cors).
	AllowedHosts, CORSOrigins []string
	// MaxMessages bounds the messages of a request (see decode).
	MaxMessages int
	// MaxIDBytes bounds a message's ID, in bytes (-max-id-bytes); 0 means
	// DefaultMaxIDBytes. A summary stores the ID of every message it
	// covers, so long IDs multiply what a chat stores.
	MaxIDBytes int
	// TenantMaxConcurrent bounds one tenant's requests in flight
	// (-tenant-max-concurrent); 0: half of MaxConcurrent with several
	// tenants, all of it with one.
	TenantMaxConcurrent int
	// TenantRate bounds one tenant's requests a second on every /api/
	// route (-tenant-rate, a burst of twice as many); 0: DefaultTenantRate
	// with several tenants, no bound with one.
	TenantRate float64
	// UsageTenants may report usage to POST /api/usage (-usage-tenants):
	// the Calibrator is shared, so a report moves every tenant's counts.
	// Empty: only the one tenant of a server that has one (a key file
	// naming one tenant, or -insecure-no-auth).
	UsageTenants []string
	// MaxConcurrent bounds the /api/ requests served at once; one more
	// waits up to QueueWait for a slot, then is a 503 (see limitConcurrency).
	MaxConcurrent int
	QueueWait     time.Duration
	// Archive, if not nil, keeps the messages each chat's summary covers
	// for POST /api/chats/{id}/recall (-archive-ttl; see archive).
	Archive archive
	// Now is the clock of the rate limits; nil means time.Now.
	Now func() time.Time
	// Telemetry, if not nil, traces requests (otelhttp), records each
	// Compress (recapotel) and serves /metrics; Counter counts what
	// clients report to POST /api/usage.
	Telemetry *telemetry
	Counter   recap.TokenCounter
	// Calibrator, if not nil, learns the counts of Model from the usage
	// clients report to POST /api/usage (see handleUsage); Overhead is the
	// tokens of a message's framing that the Compressor adds.
	Calibrator *recap.Calibrator
	Model      string
	Overhead   int
}

// NewServer returns the service's HTTP handler: the routes of routes.go.
// c compresses chats for the payload routes and st is its Store (for the
// summary routes), sum serves /api/summarize. Every /api/ route
// authenticates its client and scopes its chats to the client's tenant
// (see storeKey). Rejected requests and clients gone are logged to log at
// Info, failures at Warn or Error.
func NewServer(log *slog.Logger, cfg Config, c *recap.Compressor, st recap.Store, sum recap.Summarizer) http.Handler {
	mux := http.NewServeMux()
	addRoutes(mux, log, cfg, c, st, sum)
	var h http.Handler = mux
	h = cors(log, cfg.CORSOrigins)(h)
	h = checkHost(log, cfg.AllowedHosts)(h)
	return withRequestID(h)
}

// summarizeResponse is the answer of POST /api/summarize (see
// handleSummarize).
type summarizeResponse struct {
	Summary string `json:"summary"`
	// PreviousFrom says where the old summary that Summary folds in came
	// from: "previous" (the request's field) or "messages[0]" (a leading
	// system message, in a request without "previous"). Left out when
	// there was none.
	PreviousFrom string `json:"previousFrom,omitempty"`
}

// payloadResponse is the answer of the payload routes (see handlePayload).
type payloadResponse struct {
	// Payload is the payload, each message in its format; for an
	// Anthropic chat it is left out and System and Messages hold it.
	Payload []recap.Message `json:"payload,omitempty"`
	// System and Messages are the payload of an Anthropic Messages API
	// chat (a body with a "system", or Anthropic blocks) as a request's
	// "system" (left out if there is none) and "messages".
	System        json.RawMessage `json:"system,omitempty"`
	Messages      json.RawMessage `json:"messages,omitempty"`
	PayloadTokens int             `json:"payloadTokens"`
	Summary       recap.Summary   `json:"summary"`
	Boundary      string          `json:"boundary"`
	Summarized    bool            `json:"summarized"`
	// Scheduled is recap.Result.Scheduled: a background summarization of
	// the chat is pending or running after this request (-background),
	// so a later request will find a newer summary. Left out when false.
	Scheduled bool     `json:"scheduled,omitempty"`
	Stale     bool     `json:"stale,omitempty"`
	Dropped   []string `json:"dropped,omitempty"`
	// Warning is a failure recap absorbed: the payload is still usable.
	Warning string `json:"warning,omitempty"`
	// Check is what the summary check found in the summary this request
	// made (-summary-check); left out otherwise.
	Check *checkResponse `json:"check,omitempty"`
}

// checkResponse counts what recap.WithSummaryCheck found (see
// recap.SummaryCheck): the key items the summary left out, whether the
// summarizer was asked again, and of those still missing, the ones
// appended verbatim and the ones that did not fit.
type checkResponse struct {
	Missing  int  `json:"missing"`
	Retried  bool `json:"retried,omitempty"`
	Repaired int  `json:"repaired"`
	Unfit    int  `json:"unfit"`
}

type errorResponse struct {
	Error string `json:"error"`
}

// handleSummarize serves the seed client's endpoint: {"messages": the
// messages to summarize, "previous": the old summary} answered by
// {"summary": the new one, "previousFrom": where the old one came from}.
//
// The old summary is the request's "previous" field when it has one: a
// string, "" for none (a leading system message is then summarized like
// the others, as the chat's system prompt). Without the field (or with
// null), a leading system message is the old summary, as the seed client
// sends it. "previousFrom" says which: "previous", "messages[0]", or left
// out when there was no old summary. An id in the body, if any, names the
// chat to the summarizer.
func handleSummarize(log *slog.Logger, sum recap.Summarizer, timeout time.Duration, maxMessages int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var previous optString
		body, ok := decode(log, w, r, maxMessages, map[string]any{"previous": &previous})
		if !ok {
			return
		}
		id, msgs := body.id, body.msgs
		if len(id) > maxChatID {
			fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("id: must be 1 to %d bytes", maxChatID))
			return
		}
		if len(msgs) == 0 {
			fail(log, w, r, http.StatusBadRequest, "messages: must not be empty")
			return
		}
		for i, m := range msgs {
			if err := checkMessage(m); err != nil {
				fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("messages[%d]: %v", i, err))
				return
			}
		}
		sr := recap.SummarizeRequest{ChatID: storeKey(tenantFrom(r.Context()), id), Messages: msgs}
		var from string
		switch {
		case previous.set:
			if sr.Previous = previous.s; sr.Previous != "" {
				from = "previous"
			}
		case msgs[0].Role == recap.RoleSystem:
			sr.Previous, sr.Messages = msgs[0].Text(), msgs[1:]
			from = "messages[0]"
		}
		if len(sr.Messages) == 0 {
			fail(log, w, r, http.StatusBadRequest, "messages: nothing to summarize after the previous summary")
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		text, err := sum.Summarize(ctx, sr)
		if err == nil && strings.TrimSpace(text) == "" {
			err = recap.ErrEmptySummary
		}
		switch {
		case err != nil && r.Context().Err() != nil:
			clientGone(log, w, r, err)
		case err != nil:
			log.WarnContext(r.Context(), "summarize failed", "err", err)
			fail(log, w, r, http.StatusBadGateway, publicError(err))
		default:
			reply(log, w, http.StatusOK, summarizeResponse{Summary: strings.TrimSpace(text), PreviousFrom: from})
		}
	})
}

// handlePayload runs the rolling compression of a chat and answers with the
// payload to send to the LLM. The chat is named by the path's {id}, or by
// the body's id where the route has none; both, if different, are an
// error.
//
// The answer (payloadResponse) holds "payload" (for an Anthropic chat,
// "system" and "messages" instead: see payloadResponse), its "payloadTokens", the
// "summary" in force and its "boundary" (the last message it covers),
// "summarized" (this request saved a new summary), and, when they apply,
// "scheduled": true (a background summarization is pending or running for
// the chat: a later request will find its summary), "stale": true (the
// stored summary did not match the history and was set aside), "dropped"
// (IDs of messages left out for -max-payload) and "warning" (a failure
// absorbed: the payload is still usable).
func handlePayload(log *slog.Logger, c *recap.Compressor, cfg Config) http.Handler {
	timeout, maxMessages := cfg.Timeout, cfg.MaxMessages
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := decode(log, w, r, maxMessages, nil)
		if !ok {
			return
		}
		msgs := body.msgs
		id, err := chatID(r.PathValue("id"), body.id)
		if err == nil {
			err = checkMessageIDs(msgs, cfg.MaxIDBytes)
		}
		if err != nil {
			fail(log, w, r, http.StatusBadRequest, err.Error())
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		res, err := c.Compress(ctx, storeKey(tenantFrom(r.Context()), id), msgs)
		if t := cfg.Telemetry; t != nil && t.recordsMetrics() && r.Context().Err() == nil {
			t.in.RecordCompress(r.Context(), res, err, c.Measure(msgs)) // counts Compress remembers
		}
		var me *recap.MessageError
		switch {
		case err != nil && r.Context().Err() != nil:
			clientGone(log, w, r, err)
			return
		case errors.As(err, &me):
			fail(log, w, r, http.StatusBadRequest, body.invalid(me))
			return
		case errors.Is(err, recap.ErrNoMessages):
			fail(log, w, r, http.StatusBadRequest, "messages: must not be empty")
			return
		case errors.Is(err, recap.ErrNoUserMessage):
			fail(log, w, r, http.StatusBadRequest, "messages: no user message starts a turn")
			return
		case errors.Is(err, recap.ErrBudget):
			fail(log, w, r, http.StatusRequestEntityTooLarge, err.Error())
			return
		case errors.Is(err, context.DeadlineExceeded):
			fail(log, w, r, http.StatusGatewayTimeout, "timed out")
			return
		case err != nil:
			log.ErrorContext(r.Context(), "compress failed", "chat", id, "err", err)
			fail(log, w, r, http.StatusInternalServerError, "store unavailable")
			return
		}

		out := payloadResponse{
			Payload: res.Payload, PayloadTokens: res.PayloadTokens, Summary: res.Summary,
			Boundary: res.Summary.LastMessageID, Summarized: res.Summarized, Scheduled: res.Scheduled, Stale: res.Stale,
		}
		for _, m := range res.Dropped {
			out.Dropped = append(out.Dropped, m.ID)
		}
		if chk := res.Check; chk != nil {
			out.Check = &checkResponse{Missing: len(chk.Missing), Retried: chk.Retried, Repaired: len(chk.Repaired), Unfit: len(chk.Unfit)}
		}
		if body.anthropic {
			// An Anthropic request is answered as one: the payload as
			// its "system" and "messages" (the summary, of the default
			// role, the last system block), which the client sends as
			// they are and sends back with the next turn.
			if out.System, out.Messages, err = recap.EncodeAnthropic(res.Payload); err != nil {
				log.ErrorContext(r.Context(), "encode anthropic payload failed", "chat", id, "err", err)
				fail(log, w, r, http.StatusInternalServerError, "the payload has no Anthropic form")
				return
			}
			out.Payload = nil
		}
		if res.Err != nil {
			out.Warning = publicError(res.Err)
			if res.Fallback {
				out.Warning += " (the fallback summarized)"
			}
		}
		if cfg.Archive != nil && !res.Older && !res.Summary.IsZero() {
			if err := cfg.Archive.Sync(ctx, tenantFrom(r.Context()), storeKey(tenantFrom(r.Context()), id), msgs, res.Summary); err != nil {
				// The payload stands; recall lacks what this request folded.
				log.WarnContext(r.Context(), "archive failed", "chat", id, "tenant", tenantFrom(r.Context()), "err", err)
				if out.Warning != "" {
					out.Warning += "; "
				}
				out.Warning += "the archive of the chat's covered messages was not written (recall lacks them)"
			}
		}
		reply(log, w, http.StatusOK, out)
	})
}

// summaryResponse is the answer of GET /api/chats/{id}/summary.
type summaryResponse struct {
	Summary recap.Summary `json:"summary"`
}

// handleGetSummary answers the summary the Store holds for the tenant's
// chat, or 404 if there is none. Only the tenant's own chats are visible:
// another tenant's chat of the same ID is a different key.
func handleGetSummary(log *slog.Logger, st recap.Store, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := chatID(r.PathValue("id"), "")
		if err != nil {
			fail(log, w, r, http.StatusBadRequest, err.Error())
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		sum, err := st.Load(ctx, storeKey(tenantFrom(r.Context()), id))
		switch {
		case err != nil && r.Context().Err() != nil:
			clientGone(log, w, r, err)
		case err != nil:
			log.ErrorContext(r.Context(), "load summary failed", "chat", id, "tenant", tenantFrom(r.Context()), "err", err)
			fail(log, w, r, http.StatusServiceUnavailable, "store unavailable")
		case sum.IsZero():
			fail(log, w, r, http.StatusNotFound, "no summary for this chat")
		default:
			reply(log, w, http.StatusOK, summaryResponse{Summary: sum})
		}
	})
}

// deleteAttempts bounds how often DELETE retries a compare-and-swap lost
// to a concurrent summarization.
const deleteAttempts = 5

// handleDeleteSummary erases the tenant's chat's summary, for a user who
// asks for their data to be erased: a compare-and-swap from what the Store
// holds to the zero Summary, retried if a summarization saved in between.
// It answers 204 whether or not there was a summary. A background
// summarization already scheduled for the chat still holds the history it
// was given and may save a new summary from it; delete again after it ran
// (or after the service drained) for a guarantee.
func handleDeleteSummary(log *slog.Logger, st recap.Store, timeout time.Duration, ar archive) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := chatID(r.PathValue("id"), "")
		if err != nil {
			fail(log, w, r, http.StatusBadRequest, err.Error())
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		key := storeKey(tenantFrom(r.Context()), id)
		for attempt := 1; ; attempt++ {
			prev, err := st.Load(ctx, key)
			if err == nil && ar != nil {
				err = ar.Erase(ctx, key) // the chat's covered messages go with its summary
			}
			if err == nil && !prev.IsZero() {
				err = st.Save(ctx, key, prev, recap.Summary{})
			}
			switch {
			case err == nil:
				w.WriteHeader(http.StatusNoContent)
				return
			case errors.Is(err, recap.ErrConflict) && attempt < deleteAttempts:
				continue
			case r.Context().Err() != nil:
				clientGone(log, w, r, err)
			case errors.Is(err, recap.ErrConflict):
				fail(log, w, r, http.StatusConflict, "the summary keeps changing: try again")
			default:
				log.ErrorContext(r.Context(), "delete summary failed", "chat", id, "tenant", tenantFrom(r.Context()), "err", err)
				fail(log, w, r, http.StatusServiceUnavailable, "store unavailable")
			}
			return
		}
	})
}

// chatID returns the chat's ID from the path or the body.
func chatID(path, body string) (string, error) {
	id := path
	switch {
	case path != "" && body != "" && path != body:
		return "", fmt.Errorf("id: the body's %s differs from the path's %s", quote(body), quote(path))
	case id == "":
		id = body
	}
	switch {
	case id == "":
		return "", errors.New("id: required, in the path (/api/chats/{id}/payload) or the body")
	case len(id) > maxChatID:
		return "", fmt.Errorf("id: must be 1 to %d bytes", maxChatID)
	case !utf8.ValidString(id):
		return "", errors.New("id: must be valid UTF-8")
	case strings.ContainsRune(id, 0):
		return "", errors.New("id: must not contain NUL") // PostgreSQL's TEXT cannot hold it
	}
	return id, nil
}

// DefaultTenantRate is a tenant's requests a second on every /api/ route,
// when the key file names several tenants (-tenant-rate).
const DefaultTenantRate = 50

// DefaultMaxIDBytes bounds a message's ID (-max-id-bytes): a UUID is 36
// bytes, a chain ID 24.
const DefaultMaxIDBytes = 128

// checkMessageIDs refuses, before anything is summarized, a message ID
// that no store can keep (not valid UTF-8, or with NUL, which PostgreSQL's
// TEXT refuses: its summary could never be saved, and every request would
// spend an LLM call on it) or longer than max bytes (DefaultMaxIDBytes
// for 0).
func checkMessageIDs(msgs []recap.Message, max int) error {
	if max <= 0 {
		max = DefaultMaxIDBytes
	}
	for i, m := range msgs {
		switch {
		case len(m.ID) > max:
			return fmt.Errorf("messages[%d]: id: %d bytes, more than %d (-max-id-bytes)", i, len(m.ID), max)
		case !utf8.ValidString(m.ID):
			return fmt.Errorf("messages[%d]: id: must be valid UTF-8", i)
		case strings.ContainsRune(m.ID, 0):
			return fmt.Errorf("messages[%d]: id: must not contain NUL", i)
		}
	}
	return nil
}

// readyzProbe is the chat whose summary /readyz loads to reach the store.
const readyzProbe = "recap:readyz"

// readyzTimeout bounds /readyz's load of the store.
const readyzTimeout = 2 * time.Second

// handleReadyz answers whether the server can serve: 200 "ready" when a
// load from the store succeeds (within readyzTimeout) and a request slot
// is free (see -max-concurrent), else 503 with what is wrong, so that a
// load balancer sends traffic elsewhere. /healthz says only that the
// process is alive (a liveness probe that restarts it would not bring the
// store back).
func handleReadyz(st recap.Store, slots chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyzTimeout)
		defer cancel()
		if _, err := st.Load(ctx, readyzProbe); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "not ready: the store does not answer\n")
			return
		}
		if len(slots) == cap(slots) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "not ready: every request slot is taken\n")
			return
		}
		io.WriteString(w, "ready\n")
	})
}

// handleHealthz answers 200 "ok" while the process serves: a liveness
// probe (see handleReadyz for readiness).
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
}

// checkMessage validates what /api/summarize needs of a message.
func checkMessage(m recap.Message) error {
	switch m.Role {
	case recap.RoleSystem, recap.RoleUser, recap.RoleAssistant, recap.RoleTool:
	default:
		return fmt.Errorf("role: unknown role %s", quote(string(m.Role)))
	}
	return nil
}

func reply(log *slog.Logger, w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "<" stays 1 byte, not 6: the answer is at most a few times the body
	if err := enc.Encode(v); err != nil {
		log.Warn("write response", "err", err)
	}
}

// fail answers an error, cut to maxError bytes, and logs it at Info.
func fail(log *slog.Logger, w http.ResponseWriter, r *http.Request, status int, msg string) {
	msg = clip(msg, maxError)
	log.InfoContext(r.Context(), "request rejected", "method", r.Method, "path", clip(r.URL.Path, maxQuote), "status", status, "error", msg)
	reply(log, w, status, errorResponse{Error: msg})
}

// clientGone answers a request whose client went away: a 499 nobody reads,
// and a line at Info, since nothing failed on the server's side.
func clientGone(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	log.InfoContext(r.Context(), "client gone", "method", r.Method, "path", clip(r.URL.Path, maxQuote), "err", err)
	w.WriteHeader(statusClientGone)
}

// quote returns s, cut to maxQuote bytes, as a Go string literal.
func quote(s string) string { return strconv.Quote(clip(s, maxQuote)) }

// clip returns s cut to at most n bytes on a character boundary, with "…"
// added where it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// usageResponse is the answer of POST /api/usage.
type usageResponse struct {
	Model        string `json:"model"`
	Observations int    `json:"observations"`
	// Estimate is what the server now counts for the payload reported,
	// framing and fixedTokens included.
	Estimate int `json:"estimate"`
}

// Plausible bounds of a reported count, relative to o200k_base's count of
// the payload (framing and fixedTokens included): every tokenizer of a
// current model counts within them, and a report outside is a client's
// mistake (or an attempt to skew the counts of every tenant).
const (
	minUsageRatio = 0.5
	maxUsageRatio = 3.0
)

// handleUsage takes a client's report of one model call, {"messages": the
// payload it sent, "inputTokens": what the provider billed (OpenAI's
// usage.prompt_tokens; Anthropic's input_tokens plus cache reads and
// writes; Gemini's promptTokenCount), "fixedTokens": the request's tokens
// besides the messages, counted as tokens.OpenAIRequestOverhead does}, and
// feeds it to the server's Calibrator, which corrects the counts of the
// payload routes from then on.
func handleUsage(log *slog.Logger, cfg Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cfg.Calibrator == nil {
			fail(log, w, r, http.StatusNotImplemented, "usage: the server counts for no model; start it with -chat-model to calibrate from usage")
			return
		}
		if !cfg.mayCalibrate(tenantFrom(r.Context())) {
			fail(log, w, r, http.StatusForbidden, "usage: this tenant may not calibrate the counter that every tenant shares (see -usage-tenants)")
			return
		}
		var input, fixed int
		body, ok := decode(log, w, r, cfg.MaxMessages, map[string]any{"inputTokens": &input, "fixedTokens": &fixed})
		if !ok {
			return
		}
		msgs := body.msgs
		if input == 0 {
			fail(log, w, r, http.StatusBadRequest, "inputTokens: required, a positive integer")
			return
		}
		base := fixed
		for _, m := range msgs {
			base += cfg.Counter.CountTokens(m.Text()) + cfg.Overhead
		}
		if ratio := float64(input) / float64(max(base, 1)); ratio < minUsageRatio || ratio > maxUsageRatio {
			fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("inputTokens: %d is implausible for this payload (o200k_base counts %d)", input, base))
			return
		}
		u := recap.Usage{Payload: msgs, Overhead: cfg.Overhead, Fixed: fixed, Reported: input}
		if err := cfg.Calibrator.Observe(cfg.Model, u); err != nil {
			fail(log, w, r, http.StatusBadRequest, strings.TrimPrefix(err.Error(), "recap: "))
			return
		}
		est := fixed
		counter := cfg.Calibrator.Counter(cfg.Model)
		for _, m := range msgs {
			est += counter.CountTokens(m.Text()) + cfg.Overhead
		}
		reply(log, w, http.StatusOK, usageResponse{Model: cfg.Model, Observations: cfg.Calibrator.Observations(cfg.Model), Estimate: est})
	})
}

// mayCalibrate reports whether tenant may report usage (see
// Config.UsageTenants).
func (cfg Config) mayCalibrate(tenant string) bool {
	if len(cfg.UsageTenants) > 0 {
		return slices.Contains(cfg.UsageTenants, tenant)
	}
	return cfg.Keys == nil || cfg.Keys.single()
}
