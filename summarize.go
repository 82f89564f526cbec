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
	// WithMaxSummaryTokens), or 0 for no limit. With WithSummaryCheck it
	// is seven tenths of the bound the check repairs the summary within,
	// the rest left to its repairs.
	MaxTokens int
	// Checked reports that recap checks the summary against this input
	// (WithSummaryCheck) and quotes the key items it leaves out in the
	// room it keeps beyond MaxTokens. A Summarizer that would spend part
	// of its summary quoting values it left out may leave that to recap.
	Checked bool
	// Missing is set when recap asks again for a summary whose first
	// version left out key items of the input (see WithSummaryCheck): the
	// statements that state them, each with its speaker ("User: My order
	// is BW-58231."), which the new summary must keep. It is nil
	// otherwise. RenderPrompt lists them.
	Missing []string
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

// minSummaryAllowance is how long, in tokens, a summary may always be, even
// when its input is shorter: a tiny input (a short message and no previous
// summary) must not block progress.
const minSummaryAllowance = 64

// maxAttempts bounds how often Compress plans again after losing a race
// to another writer or waiting for another call's summarization.
const maxAttempts = 3

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
	check    *SummaryCheck
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
		text, fellBack, chk, err := c.summarizeChunk(ctx, chatID, out.summary.Text, chunk, input, derived)
		if chk != nil {
			out.check = out.check.merge(chk)
		}
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
		ids, digests := covered.add(rest[:n])
		next := Summary{Text: text, LastMessageID: rest[n-1].ID, Covered: ids, Digests: digests, Forgotten: stored.Forgotten}
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
		if !out.saved {
			c.branches.remember(chatID, prev) // it may stand again (see branches)
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
// it succeeded), with what WithSummaryCheck found (nil without it). The
// Summarizer gets msgs without the IDs derived for them (see
// derivedSet.own).
func (c *Compressor) summarizeChunk(ctx context.Context, chatID, previous string, msgs []Message, input int, derived derivedSet) (string, bool, *SummaryCheck, error) {
	copies := func() []Message { return derived.own(cloneMessages(msgs)) }
	req := SummarizeRequest{ChatID: chatID, Previous: previous, Messages: copies(), MaxTokens: c.cfg.maxSummary}
	if c.cfg.check {
		req.Checked = true
		req.MaxTokens = checkedAsk(c.repairLimit(c.inputText(input, req)))
	}
	var text string
	err := c.backoffs.skip(chatID)
	if err == nil {
		text, err = c.call(ctx, c.summarizer, req, input, false)
		if errors.Is(err, ErrSummaryTooLong) && c.cfg.maxSummary > 0 && ctx.Err() == nil {
			req.Messages = copies()
			text, err = c.call(ctx, c.summarizer, req, input, false) // ask again, once
		}
		if ctx.Err() == nil {
			c.backoffs.record(chatID, err)
		}
	}
	if err == nil {
		text, chk := c.check(ctx, c.summarizer, req, copies, text, input, false)
		return text, false, chk, nil
	}
	if c.cfg.fallback == nil || ctx.Err() != nil {
		return text, false, nil, err
	}
	req.Messages = copies()
	if text, ferr := c.call(ctx, c.cfg.fallback, req, input, true); ferr == nil {
		text, chk := c.check(ctx, c.cfg.fallback, req, copies, text, input, true)
		return text, true, chk, err
	}
	return "", false, nil, err
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
	if cerr := ctx.Err(); cerr != nil {
		// A Summarizer that ignored ctx and answered late: its summary
		// is a timeout's, and is not used.
		return "", fmt.Errorf("recap: summarize chat %q: the summary came when the call had ended: %w", req.ChatID, cerr)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fmt.Errorf("%w (chat %q)", ErrEmptySummary, req.ChatID)
	}
	ev.OutputTokens = c.tokens(&Message{Content: text}, nil)
	// The text's tokens, against those of the texts it replaces: the
	// messages' overhead is no content.
	out, in := ev.OutputTokens-c.cfg.overhead, c.inputText(input, req)
	switch {
	case c.cfg.maxSummary > 0 && ev.OutputTokens > c.cfg.maxSummary:
		return "", fmt.Errorf("%w: %d tokens, over the maximum of %d (chat %q)", ErrSummaryTooLong, ev.OutputTokens, c.cfg.maxSummary, req.ChatID)
	case out > c.summaryBound(in):
		return "", fmt.Errorf("%w: %d tokens of text, not shorter than the %d it replaces (chat %q)", ErrSummaryTooLong, out, in, req.ChatID)
	}
	return text, nil
}

// inputText returns the tokens of the texts of a Summarizer's input of
// input tokens for req: the previous summary and the messages, less their
// message overhead.
func (c *Compressor) inputText(input int, req SummarizeRequest) int {
	n := len(req.Messages)
	if req.Previous != "" {
		n++
	}
	return input - n*c.cfg.overhead
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
