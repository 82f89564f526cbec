package recap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
)

// SummarizeRequest is what a Summarizer is asked to fold into a summary.
type SummarizeRequest struct {
	// ChatID is the chat being summarized.
	ChatID string
	// Previous is the chat's existing summary, or "" if it has none. The
	// new summary must keep what it says: it replaces it.
	Previous string
	// Messages are the messages to fold in, oldest first. They are copies:
	// the Summarizer may keep or modify them. A message too large for
	// WithMaxSummarizeInput is cut, with a marker saying so. A message
	// sent to Compress without an ID has none here either.
	Messages []Message
	// MaxTokens is the most tokens the summary may have (see
	// WithMaxSummaryTokens), or 0 for no limit.
	MaxTokens int
}

// Summarizer writes a chat summary, usually by asking an LLM.
//
// Summarize returns a summary that merges req.Previous with req.Messages.
// It must honour ctx. An error, or a summary of only white space, makes
// Compress keep the existing summary and report the failure in
// [Result.Err]. Summarize may be called concurrently for different chats.
type Summarizer interface {
	Summarize(ctx context.Context, req SummarizeRequest) (string, error)
}

// The SummarizerFunc type is an adapter to allow the use of ordinary
// functions as a Summarizer.
type SummarizerFunc func(ctx context.Context, req SummarizeRequest) (string, error)

// Summarize returns f(ctx, req).
func (f SummarizerFunc) Summarize(ctx context.Context, req SummarizeRequest) (string, error) {
	return f(ctx, req)
}

// Compressor keeps a chat's LLM payload bounded by rolling the older part of
// the chat into a summary. Its payload is
//
//	[pinned system prompt][summary][last N conversations, raw][current turn]
//
// A Compressor is configured once by [New] and is safe for concurrent use
// by multiple goroutines.
type Compressor struct {
	summarizer Summarizer
	store      Store
	cfg        config
	counts     *countCache // token counts of the messages seen, bounded
	flights    flights     // summarizations in progress, by chat
	tasks      tasks       // background summarizations pending or running, by chat
	piece      int         // the least tokens a message is given in a chunk (see piece)
}

// New returns a Compressor that summarizes with s and persists summaries in
// st, configured by opts. It returns an error matching [ErrInvalidOption]
// if an option is invalid.
//
// s and st may be nil for a Compressor that only plans (see
// [Compressor.Plan]); Compress then fails.
func New(s Summarizer, st Store, opts ...Option) (*Compressor, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: nil Option", ErrInvalidOption)
		}
		if err := o.apply(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.counter == nil {
		cfg.counter = defaultCounter()
	}
	switch {
	case cfg.reserved > 0 && cfg.maxPayload == 0:
		return nil, invalid("WithReservedTokens", "%d tokens reserved of no ceiling: set WithMaxPayloadTokens", cfg.reserved)
	case cfg.reserved > 0 && cfg.reserved >= cfg.maxPayload:
		return nil, invalid("WithReservedTokens", "%d tokens reserved leave nothing of WithMaxPayloadTokens' %d", cfg.reserved, cfg.maxPayload)
	}
	c := &Compressor{summarizer: s, store: st, cfg: cfg, counts: newCountCache()}
	if cfg.maxInput > 0 {
		c.piece = piece(cfg.counter, cfg.overhead)
		if cfg.maxInput < 2*c.piece {
			return nil, invalid("WithMaxSummarizeInput", "%d tokens is too small: a chunk must hold at least two truncated messages of %d tokens (marker, framing and %d tokens of text)", cfg.maxInput, c.piece, minKeep)
		}
		if room := c.minRoom(); cfg.maxSummary > cfg.maxInput-room {
			return nil, invalid("WithMaxSummaryTokens", "%d leaves less than %d of WithMaxSummarizeInput's %d tokens for messages", cfg.maxSummary, room, cfg.maxInput)
		}
	}
	return c, nil
}

// Result is the outcome of [Compressor.Compress].
type Result struct {
	// Payload is what to send to the LLM:
	// [pinned][summary][window][current turn] after a summarization, or
	// [pinned][old summary][history after its boundary][current turn]
	// otherwise, less what Dropped lists; in a turn compacted by
	// WithMaxTurnTokens, [pinned][summary][the turn's request][its latest
	// steps]. It is a fresh slice. A message sent without an ID has none
	// here either: the IDs Compress derives for such messages (see
	// [ChainIDs]) name them in Summary and Cleared, never in Payload.
	Payload []Message
	// PayloadTokens is the measured size of Payload: each message's Text
	// plus the message overhead.
	PayloadTokens int
	// Summary is the summary in force after the call: the one the Store
	// holds for the chat (also after an absorbed failure, and after a
	// failed summarization of another call that saved part of its
	// backlog), or the zero Summary when there is none, the stored one is
	// stale, or the chat is Older than it.
	Summary Summary
	// Summarized reports whether this call made and saved a new summary.
	// After a backlog folded in chunks it may cover only part of the
	// history, the rest staying raw in Payload.
	Summarized bool
	// Fallback reports that the summary was made by the fallback
	// Summarizer (see WithFallbackSummarizer).
	Fallback bool
	// Tokens is the measured size of the part to summarize (see
	// [Plan.Tokens]).
	Tokens int
	// Stale reports that the stored summary's boundary was not found in
	// the history, so the summary was not used (see [Plan.Stale]).
	Stale bool
	// Scheduled reports, with WithBackground, that a background
	// summarization of the chat is pending or running after the call
	// (scheduled by this call or an earlier one). Summary is then the
	// stored summary, Summarized false, and Payload the unsummarized one.
	// A task that the scheduler ran to its end (or dropped) before the
	// call returned is not reported: its summary, if saved, is the next
	// call's.
	Scheduled bool
	// Older reports that msgs is an older snapshot of the chat than the
	// stored summary (see [Plan.Older]): the payload is built from msgs
	// alone, nothing was summarized, the stored summary is unchanged and
	// Summary is zero.
	Older bool
	// Cleared are the tool results that WithToolResultClearing replaced by
	// placeholders in Payload, with the tokens each saves (see
	// [Plan.Cleared]).
	Cleared []ClearedResult
	// Dropped are the messages left out of Payload to keep it within
	// WithMaxPayloadTokens, oldest first. They are still in the chat's
	// history: the Store is not changed by dropping. As in Payload, a
	// message sent without an ID has none here.
	Dropped []Message
	// Err is a failure that Compress absorbed: the Summarizer failed, timed
	// out, panicked or returned an empty or over-long summary (see
	// [ErrEmptySummary], [ErrSummaryTooLong], [ErrSummarizerPanic]), or the
	// Store failed to save or to grant a lease; or, with a Store that is a
	// [Leaser], another holder had the chat's lease (Err matches
	// [ErrLeaseHeld]; see WithLeaseWait). The Store then holds the last
	// summary that was saved and Payload is built on it.
	Err error
}

// minSummaryAllowance is how long, in tokens, a summary may always be, even
// when its input is shorter: a tiny input (a short message and no previous
// summary) must not block progress.
const minSummaryAllowance = 64

// maxAttempts bounds how often Compress plans again after losing a race
// to another writer or waiting for another call's summarization.
const maxAttempts = 3

// Compress plans msgs (see [Compressor.Plan]) against the summary the Store
// holds for chatID and, when the trigger fires, summarizes, saves the new
// summary with a compare-and-swap and returns the compressed payload.
// Compress never modifies msgs.
//
// Messages need no IDs, except AI SDK UIMessages, which always carry
// theirs: as Plan does, Compress gives a message without an ID the one
// that [ChainIDs] derives, so a chat in a format without message IDs,
// such as OpenAI's, is compressed as it comes, and the next turn (the
// chat grown, or the payload echoed back) derives the same IDs again. The
// stored Summary names messages by these IDs; the messages Compress hands
// back (Payload, Dropped, and those of a [SummarizeRequest]) never carry
// them, so that a payload encodes with no "id" its input did not have.
//
// Concurrent calls for the same chat on one Compressor share one
// summarization: one call summarizes and saves while the others wait for it
// and then plan against its summary. Across processes the Store's
// compare-and-swap is the guard: a Save that loses a race ([ErrConflict])
// makes Compress load the winner's summary and plan again.
//
// Failures of the summarization are absorbed as in the seed client: the
// Store keeps its last saved summary, [Result.Err] says what failed, the
// payload is built on what the Store holds, and the error is nil.
//
// Compress returns an error, and a zero Result, for invalid messages (the
// errors of Plan), for a Store Load that fails, and when ctx is done
// (ctx.Err()); in these cases it has stored nothing further. It returns
// [ErrBudget] with the smallest possible payload (the pinned prompt and the
// current turn; with WithMaxTurnTokens, the turn's request and last step)
// when even that exceeds WithMaxPayloadTokens.
func (c *Compressor) Compress(ctx context.Context, chatID string, msgs []Message) (Result, error) {
	if c.summarizer == nil || c.store == nil {
		return Result{}, fmt.Errorf("%w: Compress needs a Summarizer and a Store", ErrInvalidOption)
	}
	ch, err := index(msgs)
	if err != nil {
		return Result{}, err
	}
	res, p, err := c.settle(ctx, chatID, ch, c.cfg.background != nil)
	if err != nil {
		return Result{}, err
	}
	res, err = c.fit(res, p)
	// Built from messages with the derived IDs; handed back without them.
	d := newDerivedSet(p.Derived)
	res.Payload, res.Dropped = d.own(res.Payload), d.own(res.Dropped)
	return res, err
}

// settle plans msgs against the summary the Store holds and, when the
// trigger fires, summarizes: in this call, or, if mayDefer and the
// unsummarized payload fits the ceiling, in a background task. It returns
// the result before the ceiling is enforced, and the plan it was built on.
func (c *Compressor) settle(ctx context.Context, chatID string, ch chat, mayDefer bool) (Result, Plan, error) {
	var (
		res    Result
		p      Plan
		shared error // the failure of another call's summarization this call waited for
	)
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return Result{}, Plan{}, err
		}
		prev, err := c.load(ctx, chatID)
		if err != nil {
			return Result{}, Plan{}, err
		}
		if p, err = c.plan(ch, prev); err != nil {
			return Result{}, Plan{}, err
		}
		res = Result{Payload: p.assemble(p.SummaryMessage, p.Summarize), Summary: p.Summary, Tokens: p.Tokens, Stale: p.Stale, Older: p.Older, Cleared: p.Cleared}
		if !p.Trigger {
			break
		}
		if shared != nil {
			// Built on what the Store holds now, which may be part of
			// what the failed summarization folded before it failed.
			res.Err = shared
			break
		}
		if mayDefer && (c.ceiling() == 0 || c.planTokens(p) <= c.ceiling()) {
			c.schedule(chatID, ch)
			break
		}
		if attempt > maxAttempts {
			res.Err = fmt.Errorf("recap: summarize chat %q: gave up after %d attempts: %w", chatID, maxAttempts, ErrConflict)
			break
		}
		if c.cfg.background != nil {
			c.tasks.takeOver(chatID) // this call does the work of a pending task
		}
		f, leader := c.flights.join(chatID)
		if !leader {
			select {
			case <-f.done:
			case <-ctx.Done():
				return Result{}, Plan{}, ctx.Err()
			}
			shared = f.err
			continue // plan against what it saved
		}
		lctx := ctx
		if c.cfg.background != nil {
			// A client that gives up must not waste the LLM call: the
			// summarization is bounded by WithSummarizeTimeout only.
			lctx = context.WithoutCancel(ctx)
		}
		out, err := c.lead(lctx, ctx, chatID, f, prev, p)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return Result{}, Plan{}, err
		}
		if out.retry {
			continue
		}
		res.Summary, res.Summarized, res.Fallback, res.Err = out.summary, out.saved, out.fallback, out.err
		if out.saved {
			res.Payload = p.after(out.summary, c.cfg.role)
		}
		break
	}
	if c.cfg.background != nil {
		res.Scheduled = c.tasks.has(chatID)
	}
	switch {
	case errors.Is(res.Err, ErrLeaseHeld):
		c.log(ctx, slog.LevelInfo, "summarization left to the lease holder", chatID)
	case res.Err != nil:
		c.log(ctx, slog.LevelWarn, "summarizer failure absorbed", chatID, "err", res.Err, "fallback", res.Fallback)
	}
	return res, p, nil
}

// schedule hands a background summarization of ch to the scheduler of
// WithBackground, unless one is pending or running for the chat.
func (c *Compressor) schedule(chatID string, ch chat) {
	ch.msgs = cloneMessages(ch.msgs)
	t := &task{chat: ch}
	if !c.tasks.add(chatID, t) {
		return
	}
	c.cfg.background(func(ctx context.Context) {
		if !c.tasks.start(chatID, t) {
			return // a request took it over
		}
		defer c.tasks.remove(chatID, t)
		ctx = context.WithValue(ctx, taskKey{}, true) // for SummarizeEvent.Background
		if _, _, err := c.settle(ctx, chatID, t.chat, false); err != nil {
			c.log(ctx, slog.LevelWarn, "background summarization failed", chatID, "err", err)
		}
	})
}

// taskKey marks the context of a background task.
type taskKey struct{}

// Drain waits until no background summarization (see WithBackground) is
// pending or running, or until ctx is done, and then returns ctx.Err().
// A server calls it on shutdown, after it stopped taking requests and
// while its scheduler still runs tasks, so that the summarizations it
// started are saved. A task pending with a scheduler that never runs it
// keeps Drain waiting until ctx is done.
func (c *Compressor) Drain(ctx context.Context) error {
	for {
		idle := c.tasks.idleChan()
		if idle == nil {
			return nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// load returns the stored summary of chatID.
func (c *Compressor) load(ctx context.Context, chatID string) (Summary, error) {
	prev, err := c.store.Load(ctx, chatID)
	if err != nil {
		if ctx.Err() != nil {
			return Summary{}, ctx.Err()
		}
		return Summary{}, fmt.Errorf("recap: load summary of chat %q: %w", chatID, err)
	}
	return prev, nil
}

// outcome is what a leading call's summarization came to.
type outcome struct {
	retry    bool    // the Store changed under it: plan again
	summary  Summary // the summary in force
	saved    bool    // summary is new and saved
	fallback bool    // made by the fallback Summarizer
	err      error   // absorbed failure
}

// lead summarizes p.Summarize into p.Summary, in chunks if it is larger
// than WithMaxSummarizeInput, saving after each chunk, and lands flight f
// with the failure the waiting calls share. It returns an error only when
// ctx is done or the Store's Load fails.
//
// wctx is the caller's context, which bounds a wait for another lease
// holder (see WithLeaseWait) where ctx may not be cancelled with it.
func (c *Compressor) lead(ctx, wctx context.Context, chatID string, f *flight, prev Summary, p Plan) (out outcome, err error) {
	landed := false
	land := func(shared error) {
		if !landed {
			landed = true
			c.flights.land(chatID, f, shared)
		}
	}
	defer land(nil) // also on a panic of the Store: never leave waiters behind
	out.summary = p.Summary
	derived := newDerivedSet(p.Derived)
	absorb := func(err error) (outcome, error) {
		if ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		out.err = err
		land(err)
		return out, nil
	}

	// With a Store that is a Leaser, only the holder of the chat's lease
	// summarizes it.
	ls := c.newLease(chatID)
	err = ls.acquire(ctx)
	if errors.Is(err, ErrLeaseHeld) {
		err = c.awaitLease(wctx, ls)
		if err != nil && wctx.Err() != nil {
			return outcome{}, err // the caller gave up waiting
		}
	}
	if err != nil {
		return absorb(err)
	}
	defer c.release(ctx, ls)

	// Another call may have saved since this one loaded (in another
	// process, or in this one before this flight began, or the lease's
	// last holder).
	cur, err := c.load(ctx, chatID)
	if err != nil {
		return outcome{}, err
	}
	if !cur.Equal(prev) {
		return outcome{retry: true}, nil
	}

	stored := prev // what the Store holds: the compare-and-swap's prev
	rest := p.Summarize
	counts := c.sizes(rest) // once, not per chunk
	cuts := cutPoints(rest)
	covered := newCoverage(p)
	for first := true; len(rest) > 0; first = false {
		if !first {
			// Extend the lease for the next chunk; if it expired and
			// another holder took it, leave the rest to that one.
			if err := ls.acquire(ctx); err != nil {
				return absorb(err)
			}
		}
		chunk, n, input := c.chunk(out.summary, rest, counts, cuts)
		text, fellBack, err := c.summarizeChunk(ctx, chatID, out.summary.Text, chunk, input, derived)
		if ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		out.fallback = out.fallback || fellBack
		if err != nil && !fellBack {
			return absorb(err)
		}
		if err != nil {
			out.err = err // the main Summarizer's failure; the fallback stood in
		}
		next := Summary{Text: text, LastMessageID: rest[n-1].ID, Covered: covered.add(rest[:n])}
		err = c.store.Save(ctx, chatID, stored, next)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return outcome{}, ctx.Err()
		case errors.Is(err, ErrConflict):
			return outcome{retry: true}, nil
		default:
			return absorb(fmt.Errorf("recap: save summary of chat %q: %w", chatID, err))
		}
		stored, out.summary, out.saved = next, next, true
		rest, counts, cuts = rest[n:], counts[n:], cuts[n:]
		c.log(ctx, slog.LevelInfo, "summarized", chatID, "messages", n, "boundary", next.LastMessageID, "fallback", fellBack)
	}
	return out, nil
}

// summarizeChunk asks the Summarizer, then if it fails the fallback, to
// fold msgs into previous, and checks the summary. It returns the summary,
// whether the fallback made it, and the main Summarizer's failure (nil if
// it succeeded). The Summarizer gets msgs without the IDs derived for them
// (see derivedSet.own).
func (c *Compressor) summarizeChunk(ctx context.Context, chatID, previous string, msgs []Message, input int, derived derivedSet) (string, bool, error) {
	copies := func() []Message { return derived.own(cloneMessages(msgs)) }
	req := SummarizeRequest{ChatID: chatID, Previous: previous, Messages: copies(), MaxTokens: c.cfg.maxSummary}
	text, err := c.call(ctx, c.summarizer, req, input, false)
	if errors.Is(err, ErrSummaryTooLong) && c.cfg.maxSummary > 0 && ctx.Err() == nil {
		req.Messages = copies()
		text, err = c.call(ctx, c.summarizer, req, input, false) // ask again, once
	}
	if err == nil || c.cfg.fallback == nil || ctx.Err() != nil {
		return text, false, err
	}
	req.Messages = copies()
	if text, ferr := c.call(ctx, c.cfg.fallback, req, input, true); ferr == nil {
		return text, true, err
	}
	return "", false, err
}

// call makes one Summarizer call with the summarize timeout, recovers a
// panic, reports it to the hooks and checks the summary: not empty, within
// WithMaxSummaryTokens and shorter than its input.
func (c *Compressor) call(ctx context.Context, s Summarizer, req SummarizeRequest, input int, fallback bool) (text string, err error) {
	if c.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.timeout)
		defer cancel()
	}
	ev := SummarizeEvent{ChatID: req.ChatID, Messages: len(req.Messages), InputTokens: input, Fallback: fallback,
		Background: ctx.Value(taskKey{}) != nil}
	if h := c.cfg.hooks.SummarizeStart; h != nil {
		if hctx := h(ctx, ev); hctx != nil {
			ctx = hctx
		}
	}
	start := c.cfg.now()
	defer func() {
		ev.Duration, ev.Err = c.cfg.now().Sub(start), err
		if h := c.cfg.hooks.SummarizeEnd; h != nil {
			h(ctx, ev)
		}
	}()
	text, err = safeSummarize(ctx, s, req)
	if err != nil {
		return "", fmt.Errorf("recap: summarize chat %q: %w", req.ChatID, err)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fmt.Errorf("%w (chat %q)", ErrEmptySummary, req.ChatID)
	}
	ev.OutputTokens = c.tokens(&Message{Content: text}, nil)
	switch {
	case c.cfg.maxSummary > 0 && ev.OutputTokens > c.cfg.maxSummary:
		return "", fmt.Errorf("%w: %d tokens, over the maximum of %d (chat %q)", ErrSummaryTooLong, ev.OutputTokens, c.cfg.maxSummary, req.ChatID)
	case ev.OutputTokens > max(input, minSummaryAllowance):
		return "", fmt.Errorf("%w: %d tokens for an input of %d (chat %q)", ErrSummaryTooLong, ev.OutputTokens, input, req.ChatID)
	}
	return text, nil
}

// safeSummarize calls s, turning a panic into a *PanicError.
func safeSummarize(ctx context.Context, s Summarizer, req SummarizeRequest) (text string, err error) {
	defer func() {
		if v := recover(); v != nil {
			text, err = "", &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return s.Summarize(ctx, req)
}

// log writes to the configured logger, if any.
func (c *Compressor) log(ctx context.Context, level slog.Level, msg, chatID string, args ...any) {
	if c.cfg.logger == nil {
		return
	}
	c.cfg.logger.Log(ctx, level, "recap: "+msg, append([]any{"chat", chatID}, args...)...)
}
