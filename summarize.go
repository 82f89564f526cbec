package recap

import (
	"context"
	"errors"
	"fmt"
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
	// the Summarizer may keep or modify them.
	Messages []Message
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
	return &Compressor{summarizer: s, store: st, cfg: cfg, counts: newCountCache()}, nil
}

// defaultCounter returns the o200k_base counter, loaded on first count.
func defaultCounter() TokenCounter {
	c, _ := NewTiktokenCounter(O200kBase) // a known encoding: cannot fail
	return c
}

// Result is the outcome of [Compressor.Compress].
type Result struct {
	// Payload is what to send to the LLM:
	// [pinned][summary][window][current turn] after a summarization, or
	// [pinned][old summary][history after its boundary][current turn]
	// otherwise. It is a fresh slice.
	Payload []Message
	// Summary is the summary in force after the call: the one the Store
	// holds for the chat, or the zero Summary when there is none or the
	// stored one is stale.
	Summary Summary
	// Summarized reports whether this call made and saved a new summary.
	Summarized bool
	// Tokens is the measured size of the part to summarize (see
	// [Plan.Tokens]).
	Tokens int
	// Stale reports that the stored summary's boundary was not found in
	// the history, so the summary was not used.
	Stale bool
	// Err is a failure that Compress absorbed: the Summarizer failed, timed
	// out or returned an empty summary, or the Store failed to save. The
	// Store then still holds its previous summary and Payload does not
	// depend on the failed step.
	Err error
}

// Compress plans msgs (see [Compressor.Plan]) against the summary the Store
// holds for chatID and, when the trigger fires, summarizes, saves the new
// summary with a compare-and-swap and returns the compressed payload.
// Compress never modifies msgs.
//
// Failures of the summarization are absorbed as in the seed client: the
// payload is then the unsummarized one and [Result.Err] says what failed,
// with a nil error. A Save that loses a race ([ErrConflict]) makes Compress
// load the winner's summary and plan again, once.
//
// Compress returns an error, and a zero Result, for invalid messages (the
// errors of Plan), for a Store Load that fails, and when ctx is done
// (ctx.Err()); in these cases it has stored nothing.
func (c *Compressor) Compress(ctx context.Context, chatID string, msgs []Message) (Result, error) {
	if c.summarizer == nil || c.store == nil {
		return Result{}, fmt.Errorf("%w: Compress needs a Summarizer and a Store", ErrInvalidOption)
	}
	ix, err := index(msgs)
	if err != nil {
		return Result{}, err
	}
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		prev, err := c.store.Load(ctx, chatID)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return Result{}, fmt.Errorf("recap: load summary of chat %q: %w", chatID, err)
		}
		p, err := c.plan(msgs, ix, prev)
		if err != nil {
			return Result{}, err
		}
		res := Result{Payload: p.Payload(), Summary: p.Summary, Tokens: p.Tokens, Stale: p.Stale}
		if !p.Trigger {
			return res, nil
		}

		text, err := c.summarize(ctx, chatID, p)
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if err != nil {
			res.Err = err
			return res, nil
		}
		next := Summary{Text: text, LastMessageID: p.Boundary()}
		err = c.store.Save(ctx, chatID, prev, next)
		switch {
		case err == nil:
			res.Payload = p.summarized(next, c.cfg.role)
			res.Summary = next
			res.Summarized = true
			return res, nil
		case ctx.Err() != nil:
			return Result{}, ctx.Err()
		case errors.Is(err, ErrConflict) && attempt == 1:
			continue // another writer saved first: plan against its summary
		default:
			res.Err = fmt.Errorf("recap: save summary of chat %q: %w", chatID, err)
			return res, nil
		}
	}
}

// summarize asks the Summarizer to fold p.Summarize into p.Summary and
// returns the trimmed summary.
func (c *Compressor) summarize(ctx context.Context, chatID string, p Plan) (string, error) {
	if c.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.timeout)
		defer cancel()
	}
	req := SummarizeRequest{ChatID: chatID, Previous: p.Summary.Text, Messages: cloneMessages(p.Summarize)}
	text, err := c.summarizer.Summarize(ctx, req)
	if err != nil {
		return "", fmt.Errorf("recap: summarize chat %q: %w", chatID, err)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fmt.Errorf("%w (chat %q)", ErrEmptySummary, chatID)
	}
	return text, nil
}
