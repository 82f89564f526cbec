package recap

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// ForgottenText is the text of the summary that [Compressor.Forget] puts
// in place of one it withdraws.
const ForgottenText = "Earlier messages of this conversation were deleted at the user's request; what they said is no longer available."

// Forget withdraws the summary of chatID if it covers any of the messages
// ids: deleting a message is how a user takes it back, and no summary may
// keep saying what it said. It reports whether it withdrew the summary.
//
// A client that sends its full history needs no Forget: it sends the
// history without the message, and recap folds the history again without
// it (see [Summary.Digests]). Forget is for a client that keeps the payloads
// it got as its history (echoed payloads), which lack every covered
// message by design, so recap cannot fold them again: the stored summary is
// replaced by one that says only [ForgottenText] (what every covered
// message said is gone with the deleted one; the messages after the
// boundary stay raw), and its text is listed in [Summary.Forgotten], so
// that an echo of it, in the summary's place, is left out of later
// payloads. A full history sent after a Forget makes that summary stale and
// is folded again from its messages. The summaries this Compressor
// remembers for the chat's branches are forgotten too.
//
// A message that no summary covers yet needs nothing from recap: the client
// stops sending it. Forget returns an error for a Store that fails, and one
// matching [ErrConflict] when the stored summary kept changing under it.
func (c *Compressor) Forget(ctx context.Context, chatID string, ids ...string) (bool, error) {
	if c.store == nil {
		return false, fmt.Errorf("%w: Forget needs a Store", ErrInvalidOption)
	}
	c.branches.drop(chatID)
	for attempt := 0; attempt < maxAttempts; attempt++ {
		s, err := c.load(ctx, chatID)
		if err != nil {
			return false, err
		}
		if !slices.ContainsFunc(ids, func(id string) bool { return slices.Contains(s.Covered, id) }) {
			return false, nil
		}
		err = c.store.Save(ctx, chatID, s, withdrawn(s))
		switch {
		case err == nil:
			return true, nil
		case ctx.Err() != nil:
			return false, ctx.Err()
		case !errors.Is(err, ErrConflict):
			return false, fmt.Errorf("recap: forget in chat %q: %w", chatID, err)
		}
	}
	return false, fmt.Errorf("recap: forget in chat %q: gave up after %d attempts: %w", chatID, maxAttempts, ErrConflict)
}

// withdrawn returns the summary that replaces s when Forget withdraws it:
// ForgottenText through the same boundary, covering nothing before it (a
// history that has the messages before the boundary makes it stale), with
// s.Text's digest added to Forgotten.
func withdrawn(s Summary) Summary {
	forgotten := append(slices.Clone(s.Forgotten), textDigest(s.Text))
	if n := len(forgotten); n > maxForgotten {
		forgotten = forgotten[n-maxForgotten:]
	}
	return Summary{Text: ForgottenText, LastMessageID: s.LastMessageID, Covered: []string{s.LastMessageID}, Digests: []string{""}, Forgotten: forgotten}
}
