package recap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

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
	backoffs   backoffs    // chats whose summarizations failed in a row
	branches   branches    // summaries replaced lately, by chat
	tasks      tasks       // background summarizations pending or running, by chat
	piece      int         // the least tokens a message is given in a chunk (see piece)
	recalls    *indexCache // the indexes of the chats Recall searched, bounded
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
	c := &Compressor{summarizer: s, store: st, cfg: cfg, counts: newCountCache(), recalls: newIndexCache()}
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
	// stale, or the chat is Older than it. For a history that makes the
	// stored summary stale but that a summary the Compressor replaced
	// lately still stands for (another branch of the chat, sent
	// alternately with the stored one's), it is that summary, and a
	// summarization builds on it.
	Summary Summary
	// Summarized reports whether this call made and saved a new summary.
	// After a backlog folded in chunks it may cover only part of the
	// history, the rest staying raw in Payload.
	Summarized bool
	// Fallback reports that the summary was made by the fallback
	// Summarizer (see WithFallbackSummarizer).
	Fallback bool
	// Check is what WithSummaryCheck found in the summaries this call made
	// (of all chunks, when a backlog was folded in several), or nil
	// without the option or when nothing was summarized.
	Check *SummaryCheck
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
	// placeholders in Payload, with the tokens each saves: [Plan.Cleared],
	// and, in a payload over WithMaxPayloadTokens, the eligible results its
	// whole batches left.
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
// current turn; with WithMaxTurnTokens, the turn's request and last step;
// with WithToolResultClearing, every eligible result cleared) when even
// that exceeds WithMaxPayloadTokens.
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
		var restoreErr error
		if p.Stale {
			if q := c.planBranch(chatID, ch, p); !q.Stale {
				// A summary a save replaced stands for this history, the
				// stored one no longer does: it is stored again, so that
				// the summary in force is the Store's (the next request,
				// an echo of this payload, is planned against it).
				restoreErr = c.store.Save(ctx, chatID, prev, q.Summary)
				switch {
				case restoreErr == nil:
					c.branches.remember(chatID, prev)
				case ctx.Err() != nil:
					return Result{}, Plan{}, ctx.Err()
				case errors.Is(restoreErr, ErrConflict) && attempt <= maxAttempts:
					continue // plan against what another call saved
				default:
					restoreErr = fmt.Errorf("recap: save summary of chat %q: %w", chatID, restoreErr)
				}
				p = q
			}
		}
		res = Result{Payload: p.assemble(p.SummaryMessage, p.Summarize), Summary: p.Summary, Tokens: p.Tokens, Stale: p.Stale, Older: p.Older, Cleared: p.Cleared, Err: restoreErr}
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
		if c.cfg.background != nil && ctx.Value(taskKey{}) == nil {
			// A client that gives up must not waste the LLM call: the
			// summarization is bounded by WithSummarizeTimeout only. A
			// background task's context is the scheduler's, which ends it
			// (a shutdown's grace over): it is not detached.
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
		res.Summary, res.Summarized, res.Fallback, res.Err, res.Check = out.summary, out.saved, out.fallback, out.err, out.check
		if out.saved {
			res.Payload = p.after(out.summary, c.cfg.role, c.cfg.recallHint)
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

// planBranch returns the plan of ch against a summary of chatID that a
// save replaced lately and that stands for ch's history as it is (see
// branches), or p, ch's stale plan, when none does.
func (c *Compressor) planBranch(chatID string, ch chat, p Plan) Plan {
	for _, s := range c.branches.recent(chatID) {
		if q, err := c.plan(ch, s.clone()); err == nil && !q.Stale && !q.Older && !q.Summary.IsZero() {
			return q
		}
	}
	return p
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
