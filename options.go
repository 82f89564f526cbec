package recap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Defaults of the options, as in the seed client's .env.
const (
	DefaultTriggerTokens       = 1000       // see WithTriggerTokens
	DefaultWindowConversations = 2          // see WithWindowConversations
	DefaultSummaryRole         = RoleSystem // see WithSummaryRole
	DefaultMessageOverhead     = 0          // see WithMessageOverhead
	DefaultMediaTokens         = 2000       // see WithMediaTokens
)

// config is what the options set; a Compressor keeps it read-only.
type config struct {
	trigger     int
	window      int
	counter     TokenCounter
	role        Role
	timeout     time.Duration
	overhead    int
	maxSummary  int          // 0: no limit
	maxPayload  int          // 0: no limit
	maxTurn     int          // 0: the current turn is never compacted
	reserved    int          // tokens of the request besides the payload (WithReservedTokens)
	maxInput    int          // 0: no limit
	check       bool         // WithSummaryCheck
	fallback    Summarizer   // nil: none
	hooks       Hooks        // zero: none
	logger      *slog.Logger // nil: silent
	now         func() time.Time
	media       map[string]int                       // media type pattern to tokens; nil: DefaultMediaTokens for all
	background  func(task func(ctx context.Context)) // nil: summarize in the request
	clear       *clearing                            // nil: no tool-result clearing
	leaseTTL    time.Duration                        // 0: from the summarize timeout (see WithLeaseTTL)
	leaseWait   time.Duration                        // 0: do not wait for another lease holder
	leaseHolder string                               // "": a random holder per summarization (see WithLeaseHolder)
	recallHint  string                               // "": none (see WithRecallHint)
}

// mediaCost returns the tokens of an attachment of mediaType: the rule of
// its exact type, else of its type's wildcard ("image/*"), else of "*",
// else DefaultMediaTokens.
func (c *config) mediaCost(mediaType string) int {
	t := strings.ToLower(strings.TrimSpace(mediaType))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	if n, ok := c.media[t]; ok {
		return n
	}
	if i := strings.IndexByte(t, '/'); i > 0 {
		if n, ok := c.media[t[:i]+"/*"]; ok {
			return n
		}
	}
	if n, ok := c.media["*"]; ok {
		return n
	}
	return DefaultMediaTokens
}

func defaultConfig() config {
	return config{
		trigger:  DefaultTriggerTokens,
		window:   DefaultWindowConversations,
		role:     DefaultSummaryRole,
		overhead: DefaultMessageOverhead,
		now:      time.Now,
	}
}

// An Option configures a [Compressor]. Options are applied in order, so of
// two options that set the same thing the last one wins.
type Option interface {
	apply(*config) error
}

type optionFunc func(*config) error

func (f optionFunc) apply(c *config) error { return f(c) }

// optionError is an invalid option value; it matches ErrInvalidOption.
type optionError struct {
	option string // the option's name, such as "WithTriggerTokens"
	reason string // what is wrong with the value
}

func (e *optionError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrInvalidOption, e.option, e.reason)
}

func (e *optionError) Is(target error) bool { return target == ErrInvalidOption }

func invalid(option string, format string, args ...any) error {
	return &optionError{option: option, reason: fmt.Sprintf(format, args...)}
}

// WithTriggerTokens sets the threshold: the part to summarize (the old
// summary and the messages between it and the window) is summarized when
// its tokens exceed n. n must be positive. The default is
// [DefaultTriggerTokens].
func WithTriggerTokens(n int) Option {
	return optionFunc(func(c *config) error {
		if n < 1 {
			return invalid("WithTriggerTokens", "%d is not positive", n)
		}
		c.trigger = n
		return nil
	})
}

// WithWindowConversations sets how many conversations (a user message and
// what follows it up to the next user message) stay raw, counting the
// current turn: with n = 2, the current turn and the one conversation before
// it. n must be at least 1. The default is [DefaultWindowConversations].
func WithWindowConversations(n int) Option {
	return optionFunc(func(c *config) error {
		if n < 1 {
			return invalid("WithWindowConversations", "%d is less than 1", n)
		}
		c.window = n
		return nil
	})
}

// WithTokenCounter sets the counter used to measure messages. The default
// is the exact o200k_base counter of GPT-4o (see [tokens.NewTiktoken]),
// loaded on first use. A nil counter is an error.
func WithTokenCounter(tc TokenCounter) Option {
	return optionFunc(func(c *config) error {
		if tc == nil {
			return invalid("WithTokenCounter", "nil counter")
		}
		c.counter = tc
		return nil
	})
}

// WithSummaryRole sets the role of the summary message in the payload:
// [RoleSystem] (the default, as in the seed), [RoleUser] or
// [RoleAssistant].
//
// The summary is written by a model from user-controlled text. As a system
// message it carries the authority of the app's own instructions, which
// is what keeps the model faithful to it, but also what a user could abuse
// by talking the summarizer into writing instructions. Choose RoleUser (or
// RoleAssistant) where that matters more than fidelity.
func WithSummaryRole(r Role) Option {
	return optionFunc(func(c *config) error {
		switch r {
		case RoleSystem, RoleUser, RoleAssistant:
			c.role = r
			return nil
		}
		return invalid("WithSummaryRole", "role %q cannot carry a summary", r)
	})
}

// WithSummarizeTimeout bounds each Summarizer call to d. When it runs out,
// Compress absorbs the failure like any other summarizer error. d must not
// be negative; 0, the default, means no bound other than the caller's
// context.
func WithSummarizeTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) error {
		if d < 0 {
			return invalid("WithSummarizeTimeout", "%v is negative", d)
		}
		c.timeout = d
		return nil
	})
}

// WithLeaseTTL sets the time-to-live of the chat's lease that Compress
// takes before it summarizes, with a Store that is a [Leaser]. It must be
// longer than a chunk's summarization may take, since Compress starts no
// goroutine to renew the lease: it extends it only between the chunks of a
// backlog (see WithMaxSummarizeInput), and a lease that expires during a
// Summarizer call may be taken over by another process, whose call is then
// wasted (the compare-and-swap still keeps one summary). A holder that
// dies is taken over by others once its lease expires. The default is
// three times WithSummarizeTimeout plus 30 seconds (a chunk may call the
// Summarizer twice and the fallback once), or [DefaultLeaseTTL] without a
// summarize timeout. d must not be negative; 0 means the default.
func WithLeaseTTL(d time.Duration) Option {
	return optionFunc(func(c *config) error {
		if d < 0 {
			return invalid("WithLeaseTTL", "%v is negative", d)
		}
		c.leaseTTL = d
		return nil
	})
}

// WithLeaseHolder makes id the holder of every lease the Compressor takes
// (see [Leaser]), instead of a random holder per summarization. A process
// that restarts with the same id takes over, at once, the leases its
// previous incarnation held when it died, instead of waiting for them to
// expire (see WithLeaseTTL): a server passes its replica's stable name.
// Two processes running at once must never share an id: each would take
// the other's leases, and both would summarize the chat (the Store's
// compare-and-swap still keeps one summary, but both LLM calls are paid).
// Within one Compressor, summarizations of a chat are one at a time
// whatever the holder. id must not be empty.
func WithLeaseHolder(id string) Option {
	return optionFunc(func(c *config) error {
		if id == "" {
			return invalid("WithLeaseHolder", "empty holder")
		}
		c.leaseHolder = id
		return nil
	})
}

// WithLeaseWait sets how long Compress waits, with a Store that is a
// [Leaser], when another holder has the lease of a chat it would
// summarize: it tries to take the lease at growing intervals (50 ms
// doubling to 1 s) and, once it has it, plans again against what the
// holder saved, which usually needs no summarization any more. When the
// wait runs out, Compress goes on without summarizing, as after an absorbed
// failure: the payload is built on the stored summary, within
// WithMaxPayloadTokens, and [Result.Err] matches [ErrLeaseHeld]. Calls of
// one Compressor share one summarization without a lease (see Compress);
// this is the wait across Compressors and processes. A background task
// (WithBackground) never waits: it ends, and the next turn finds the
// holder's summary. The default, 0, is not to wait. d must not be
// negative.
func WithLeaseWait(d time.Duration) Option {
	return optionFunc(func(c *config) error {
		if d < 0 {
			return invalid("WithLeaseWait", "%v is negative", d)
		}
		c.leaseWait = d
		return nil
	})
}

// WithMessageOverhead adds n tokens per message to every count, for the
// framing a chat format adds around each message's content. n must not be
// negative. The default, [DefaultMessageOverhead] (0), is what the seed
// client does. [tokens.OpenAIMessageOverhead] is the framing of OpenAI's
// chat models; an [tokens.Estimator]'s MessageOverhead that of its model
// family.
func WithMessageOverhead(n int) Option {
	return optionFunc(func(c *config) error {
		if n < 0 {
			return invalid("WithMessageOverhead", "%d is negative", n)
		}
		c.overhead = n
		return nil
	})
}

// WithBackground moves summarization off the request path. When the
// trigger fires and the unsummarized payload still fits the ceiling
// (WithMaxPayloadTokens; with no ceiling, always), Compress does not call
// the Summarizer: it hands a task to run and returns at once with the
// unsummarized payload and [Result.Scheduled] set. run is the caller's
// scheduler: `func(task func(context.Context)) { go task(ctx) }`, a worker
// pool, or a test that queues tasks and runs them by hand; it may also run
// the task before it returns. recap starts no goroutine of its own.
//
// At most one task per chat is pending or running per Compressor; calls
// while it is pending schedule no other. The task plans the chat it was
// given against the Store, summarizes (in chunks, see
// WithMaxSummarizeInput) and saves with the compare-and-swap, with the
// context run gives it; hooks and the logger are then called on the task's
// goroutine. A failure is reported to the logger and retried by a later
// Compress, never in a loop.
//
// When the unsummarized payload would not fit the ceiling, the request
// does the work itself, as without this option: it waits for a task that
// is running, takes over a task still pending (which then finds nothing to
// do), and leaves out the oldest conversations if summarizing fails, so
// the ceiling holds even if run never runs anything. That summarization is
// not cancelled with the request's context (only WithSummarizeTimeout
// bounds it), so a client that gives up does not waste the LLM call;
// Compress then returns the context's error once it is saved.
//
// [Compressor.Drain] waits for the tasks to finish. run must not be nil;
// the default is none: every summarization runs in the request.
func WithBackground(run func(task func(ctx context.Context))) Option {
	return optionFunc(func(c *config) error {
		if run == nil {
			return invalid("WithBackground", "nil scheduler")
		}
		c.background = run
		return nil
	})
}

// WithToolResultClearing replaces old tool outputs in the payload by a
// short placeholder (the tool's name, the call's ID, the original size and
// that it was cleared), in the same part and in the chat's own format, so
// that each call and its result stay a valid pair for every provider: a
// JSON string output in a UIMessage part, a content string in an OpenAI
// tool message. Results older than the keep most recent ones in the
// payload and larger than minTokens (and than their placeholder) are
// cleared, except those of the tools named in exempt.
//
// Clearing is deterministic and happens before the trigger is checked, so
// it often makes summarizing unnecessary: the trigger and the ceiling count
// cleared sizes. It works in batches, so that the payload's prefix changes
// rarely and prompt caches keep hitting: results are cleared only in whole
// batches of [DefaultClearBatch], oldest first, not one more per turn;
// only a payload over WithMaxPayloadTokens, once the conversations before
// its current turn are dropped, gets the rest of the eligible results
// cleared too, before the summary is dropped or [ErrBudget] returned.
// The Summarizer still gets the full outputs of what it folds (truncated
// as WithMaxSummarizeInput says); [Result.Cleared] and [Plan.Cleared] say
// what was cleared and the tokens saved. A client that keeps the payload
// as its history keeps the placeholders, not the outputs.
//
// keep and minTokens must not be negative. The default is no clearing.
func WithToolResultClearing(keep, minTokens int, exempt ...string) Option {
	return optionFunc(func(c *config) error {
		switch {
		case keep < 0:
			return invalid("WithToolResultClearing", "keep %d is negative", keep)
		case minTokens < 0:
			return invalid("WithToolResultClearing", "minTokens %d is negative", minTokens)
		}
		c.clear = &clearing{keep: keep, minTokens: minTokens, exempt: exemptSet(exempt)}
		return nil
	})
}

// WithMediaTokens sets the tokens an attachment (a file part: an image,
// audio, a PDF; or media inside a tool's input or output, such as a
// screenshot in a tool result: see [Message.Text]) of the given media type
// counts, since its bytes are not text recap can count. mediaType is an exact type ("image/png"), a type's
// wildcard ("image/*") or "*" for any; the most specific rule that matches
// applies, and a later rule for the same pattern replaces an earlier one.
// n must not be negative.
//
// The default, [DefaultMediaTokens] (2,000) for any attachment, errs high
// so that a ceiling holds for multimodal chats: an image costs GPT-4o 85
// tokens at detail "low" and up to 1,445 for a tall image at "high", and
// Claude about 1,600 for a 1.15-megapixel image. A PDF is billed per page
// and may cost much more: give it a rule of its own. The Summarizer never
// sees the bytes; [Message.Text] notes the attachment's type and name.
func WithMediaTokens(mediaType string, n int) Option {
	return optionFunc(func(c *config) error {
		pattern := strings.ToLower(strings.TrimSpace(mediaType))
		switch {
		case n < 0:
			return invalid("WithMediaTokens", "%d tokens for %q is negative", n, mediaType)
		case pattern == "" || (pattern != "*" && !strings.Contains(pattern, "/")) || strings.Count(pattern, "*") > 1 ||
			(strings.Contains(pattern, "*") && pattern != "*" && !strings.HasSuffix(pattern, "/*")):
			return invalid("WithMediaTokens", "%q is not a media type, a type's wildcard such as \"image/*\", or \"*\"", mediaType)
		}
		m := make(map[string]int, len(c.media)+1) // a fresh map: options may be reused
		for k, v := range c.media {
			m[k] = v
		}
		m[pattern] = n
		c.media = m
		return nil
	})
}

// WithMaxSummaryTokens bounds a summary to n tokens: the Summarizer is told
// so in [SummarizeRequest.MaxTokens], and a longer summary is asked for
// again, once, then rejected ([ErrSummaryTooLong], absorbed like any
// summarizer failure). n must not be negative; 0, the default, means no
// bound. Keep n well under the trigger, or every new message would set off
// another summarization.
func WithMaxSummaryTokens(n int) Option {
	return optionFunc(func(c *config) error {
		if n < 0 {
			return invalid("WithMaxSummaryTokens", "%d is negative", n)
		}
		c.maxSummary = n
		return nil
	})
}

// WithSummaryCheck makes Compress check each new summary against its input
// before saving it: the key items of the previous summary and of the folded
// messages (see [KeyItem]) must be in it, less those a later message
// corrects (the newer value wins). When some are missing, the Summarizer is
// asked once more, with the statements that state them in
// [SummarizeRequest.Missing]; those still missing are quoted, with their
// speakers, in place of a line of the summary that says the same in other
// words or else under [RepairHeading] (a statement of a constraint, a
// decision or a correction whole; an identifier, a number or a name with the
// three words either side of it, cuts marked "…"), as many as fit in
// WithMaxSummaryTokens (without it, in half the trigger) and in the size of
// the input: the bound of the repairs. So that a summary leaves them room,
// the Summarizer is asked for seven tenths of that bound
// ([SummarizeRequest.MaxTokens], with [SummarizeRequest.Checked] set); a
// longer one, up to the bound, is not rejected for it. Statements are
// repaired in this order: the user's before the assistant's; of one speaker,
// what the previous summary held before what the folded messages state; of
// those, identifiers and numbers before names and statements; and of those,
// the newest first (the budget forces the oldest out). Of the two summaries,
// the one whose repair leaves fewer items out is saved (of two that leave as
// many out, the one that missed fewer; then the second). [Result.Check], the
// SummaryChecked hook and the logger say what was missing, repaired and left
// out. The check is deterministic and takes about 1.5 ms per 1,000 tokens of
// input (about 2 ms per 1,000 for an input of 16,000 tokens), the second
// Summarizer call aside (BenchmarkSummaryCheck). It reads numbers,
// identifiers and links alike in every language; names and statements of
// constraints, decisions and corrections are read by cue words in English,
// French, German, Spanish, Italian, Portuguese and Japanese. The default is
// no check.
func WithSummaryCheck() Option {
	return optionFunc(func(c *config) error {
		c.check = true
		return nil
	})
}

// WithMaxPayloadTokens sets a hard ceiling of n tokens on the whole
// payload. When summarizing is not enough (it failed, or the window itself
// is huge), Compress leaves out the oldest conversations between the
// summary and the current turn, then the summary message, and lists them in
// [Result.Dropped]; the Store is not changed by this, so nothing is lost
// from the chat's history. The pinned prompt and the current turn are never
// left out (with WithMaxTurnTokens, only the turn's older steps may be,
// never its request or its last step): if they alone exceed n, Compress
// returns [ErrBudget]. n must
// not be negative; 0, the default, means no ceiling.
func WithMaxPayloadTokens(n int) Option {
	return optionFunc(func(c *config) error {
		if n < 0 {
			return invalid("WithMaxPayloadTokens", "%d is negative", n)
		}
		c.maxPayload = n
		return nil
	})
}

// WithMaxTurnTokens compacts a long current turn, such as an agent loop (a
// user request followed by many tool calls and results), once the turn
// alone exceeds n tokens. First the tool results of the turn are cleared,
// if WithToolResultClearing is set; if the turn is still over n, the
// older steps of the turn are folded into the summary, together with
// everything before the turn (the window too) and the user's request
// that opened it. A step is an assistant message with the tool results
// that answer it, and a fold never splits one. The payload is then
// [pinned][summary][the user's request][the latest steps, raw]: the
// request is summarized once and also kept raw, first after the summary,
// so the model never loses sight of what it was asked; the latest steps
// are the most that fit in n/2 with it, and at least the last one, so
// that a fold makes room for several steps and the Summarizer is not
// called on every step.
//
// The boundary then lies inside the turn (the summary's LastMessageID is
// the last step folded and its Covered lists the request), and the next
// call, with the same turn and more steps, continues from it; when a new
// turn starts, the rest of the old turn is summarized like any other
// history. A client that keeps the payloads it got as its history sends
// the request again after the summary; it stays covered (in a format
// without IDs, see [ChainIDs] for the limit of such clients). When even a summary cannot bring the payload under
// WithMaxPayloadTokens, the oldest steps of the turn are left out like
// old conversations ([Result.Dropped]), never the request or the last
// step.
//
// A turn that is one message after the request (an AI SDK UIMessage that
// holds every step of the loop as parts) has no step to fold: there,
// clearing its old tool results is the compaction. n must not be
// negative; 0, the default, leaves the current turn whole.
func WithMaxTurnTokens(n int) Option {
	return optionFunc(func(c *config) error {
		if n < 0 {
			return invalid("WithMaxTurnTokens", "%d is negative", n)
		}
		c.maxTurn = n
		return nil
	})
}

// WithReservedTokens reserves n tokens of the WithMaxPayloadTokens ceiling
// for what a request holds besides the payload: tool definitions, the
// reply priming, a tool choice (see [tokens.OpenAIRequestOverhead] for a
// Chat Completions request, [tokens.Estimator.ToolTokens] for any
// provider's tools). Payloads are then fitted under the ceiling less n;
// the trigger, which measures the older part of the chat, is not changed.
// A caller with 40 tools and a 128k-token model sets the ceiling to the
// context window less the output it reserves, and n to its tools' tokens.
// n must not be negative, and New rejects an n with no ceiling or not
// below it.
func WithReservedTokens(n int) Option {
	return optionFunc(func(c *config) error {
		if n < 0 {
			return invalid("WithReservedTokens", "%d is negative", n)
		}
		c.reserved = n
		return nil
	})
}

// WithMaxSummarizeInput bounds what one Summarizer call is given to n
// tokens (the previous summary and the messages). A larger part to
// summarize, such as the backlog of a long outage, is folded in chunks,
// oldest first, each merged into the running summary and saved before the
// next, so progress survives a later failure.
//
// A chunk takes whole messages while they fit, and never ends between a
// tool call and its results (parallel calls included), so the boundary it
// saves never leaves a tool result without its call. A message (or a call
// with its results) too large for the room left is truncated for the
// Summarizer, with a marker saying so, when it could never fit whole or
// the chunk would otherwise be empty: every message the boundary passes
// reaches the Summarizer with at least the start of its text. Whatever the
// size of the running summary, a chunk keeps at least a quarter of n for
// messages: a running summary larger than three quarters of n (saved under
// other options) makes that call exceed n, rather than fold messages
// unseen.
//
// n must not be negative; 0, the default, means one call. New rejects an n
// too small to hold two truncated messages (the marker, the message
// overhead and 8 tokens of text each: about 60 tokens with o200k and
// tokens.OpenAIMessageOverhead), and a WithMaxSummaryTokens over three quarters
// of n.
func WithMaxSummarizeInput(n int) Option {
	return optionFunc(func(c *config) error {
		if n < 0 {
			return invalid("WithMaxSummarizeInput", "%d is negative", n)
		}
		c.maxInput = n
		return nil
	})
}

// WithFallbackSummarizer sets a Summarizer to use when the main one fails
// (an error, a timeout, a panic, an empty or over-long summary), such as an
// offline extractive one. Its summary is checked and saved like any other;
// [Result.Fallback] reports its use and [Result.Err] the main one's
// failure. The default is none.
func WithFallbackSummarizer(s Summarizer) Option {
	return optionFunc(func(c *config) error {
		if s == nil {
			return invalid("WithFallbackSummarizer", "nil Summarizer")
		}
		c.fallback = s
		return nil
	})
}

// Hooks are functions that Compress calls around each Summarizer call, for
// metrics, tracing and progress indicators (the seed client's spinner).
// Either may be nil. They are called synchronously, on the goroutine of
// Compress (or, with WithBackground, of the task that summarizes), with no
// lock held; a hook that panics or blocks is the caller's bug and is not
// recovered.
//
// SummarizeStart receives the context of the call (with WithSummarizeTimeout
// applied) and returns the context that the Summarizer and SummarizeEnd
// are given (nil means ctx): a tracer starts a span in SummarizeStart and
// ends the span it finds in the context in SummarizeEnd, so each end is
// paired with its start, and the Summarizer's own spans (an SDK's HTTP
// call) are the span's children.
type Hooks struct {
	// SummarizeStart is called before a Summarizer call.
	SummarizeStart func(ctx context.Context, e SummarizeEvent) context.Context
	// SummarizeEnd is called after it, with the context SummarizeStart
	// returned and Duration, OutputTokens and Err set.
	SummarizeEnd func(ctx context.Context, e SummarizeEvent)
	// SummaryChecked is called, with WithSummaryCheck, after each new
	// summary is checked (and repaired), before it is saved.
	SummaryChecked func(ctx context.Context, chatID string, c SummaryCheck)
}

// SummarizeEvent describes one Summarizer call.
type SummarizeEvent struct {
	ChatID       string
	Messages     int           // messages folded in
	InputTokens  int           // tokens of the previous summary and the messages
	OutputTokens int           // tokens of the summary returned (end only)
	Duration     time.Duration // how long the call took (end only)
	Fallback     bool          // the fallback Summarizer was called
	Background   bool          // the call runs in a background task (see WithBackground)
	Err          error         // why the summary was rejected, or nil (end only)
}

// WithHooks sets the hooks called around each Summarizer call. The default
// is none. Of two WithHooks options the last wins.
func WithHooks(h Hooks) Option {
	return optionFunc(func(c *config) error {
		c.hooks = h
		return nil
	})
}

// WithLogger has Compress log to l: each summarization at level Info and
// each absorbed failure at level Warn. The default is no logging at all.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) error {
		c.logger = l
		return nil
	})
}

// WithClock sets the clock used to measure the durations reported to
// hooks. The default is time.Now.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c *config) error {
		if now == nil {
			return invalid("WithClock", "nil clock")
		}
		c.now = now
		return nil
	})
}

// Names of the environment variables that [OptionsFromEnv] reads, after
// the prefix.
const (
	EnvTriggerTokens       = "SUMMARY_TRIGGER_TOKENS"
	EnvWindowConversations = "SUMMARY_WINDOW_CONVERSATIONS"
)

// OptionsFromEnv returns the options set by the variables
// prefix+[EnvTriggerTokens] and prefix+[EnvWindowConversations], looked up
// with lookup (such as [os.LookupEnv]; recap reads no environment itself).
// With prefix "VITE_" it reads the seed client's .env names. An unset
// variable contributes no option; a value that is not a valid integer for
// its option is an error matching [ErrInvalidOption] that names the
// variable.
func OptionsFromEnv(prefix string, lookup func(string) (string, bool)) ([]Option, error) {
	if lookup == nil {
		return nil, fmt.Errorf("%w: OptionsFromEnv: nil lookup", ErrInvalidOption)
	}
	vars := []struct {
		name string
		opt  func(int) Option
	}{
		{prefix + EnvTriggerTokens, WithTriggerTokens},
		{prefix + EnvWindowConversations, WithWindowConversations},
	}
	var opts []Option
	for _, v := range vars {
		s, ok := lookup(v.name)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%w: %s=%q: not an integer", ErrInvalidOption, v.name, s)
		}
		opt := v.opt(n)
		if err := opt.apply(&config{}); err != nil {
			var oe *optionError
			if errors.As(err, &oe) {
				return nil, fmt.Errorf("%w: %s=%q: %s", ErrInvalidOption, v.name, s, oe.reason)
			}
			return nil, err
		}
		opts = append(opts, opt)
	}
	return opts, nil
}

// exemptSet returns the tool names as a set.
func exemptSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[strings.TrimSpace(n)] = true
	}
	return set
}
