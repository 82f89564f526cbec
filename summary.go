package recap

import (
	"context"
	"slices"
)

// Summary is a chat's rolling summary: the summary text, the ID of the
// last message folded into it (the boundary) and the IDs of every message
// it covers. The zero Summary means the chat has no summary yet.
//
// Covered is what lets recap tell an older snapshot of a chat (a delayed
// retry that carries a prefix of what the summary already covers) from an
// edit (new IDs from the edited message on): a history whose messages up to
// its current turn all appear, in order, among Covered is older than the
// summary, and the summary is kept; any other history that lacks the
// boundary is an edit, and the summary is stale. Covered costs the sum of
// the covered IDs' lengths (about 20 KB for 1,000 messages with 20-byte
// IDs), stored and compared with every Save. A Summary saved by a recap
// version without Covered (nil) still works, but cannot prove an older
// snapshot until its next save.
//
// Covered lists the covered messages oldest first, ending with
// LastMessageID; the pinned system messages are never covered. When
// WithMaxTurnTokens compacted a long turn, LastMessageID is a step of that
// turn and Covered lists the turn's request before it: a boundary after
// the current turn's request, with the request covered, continues the
// turn. An echoed
// summary message that stood for covered messages is listed too (its ID,
// where the client assigned one), so that an older payload echoed back is
// recognized as well.
//
// Digests says what each covered message said, so that a message edited
// in place (the same ID, another text) or deleted makes the summary stale:
// Digests[i] is the digest of the message Covered[i] names when it was
// folded (see [Digest]), "" for an entry that is not compared (an echoed
// summary, a tool result recap had cleared, or a message recap did not
// see), and [ContextMark] before the digest for a
// per-request context message (a system message right before a user
// message, which an application may send with one request only): such a
// message may be missing later without making the summary stale. Digests
// costs 8 to 9 bytes per covered message, about 11 in JSON with the quotes
// and the comma (about 11 KB for 1,000 messages, half of what Covered's
// IDs cost with 20-byte IDs). A Summary
// whose Digests is not as long as Covered (one saved before recap had
// Digests) is not checked for edits and deletions, and gains Digests at
// its next save.
type Summary struct {
	Text          string   `json:"text"`
	LastMessageID string   `json:"lastMessageId"`
	Covered       []string `json:"covered,omitempty"`
	Digests       []string `json:"digests,omitempty"`
}

// IsZero reports whether s is the zero Summary (a nil or empty Covered
// or Digests alike).
func (s Summary) IsZero() bool {
	return s.Text == "" && s.LastMessageID == "" && len(s.Covered) == 0 && len(s.Digests) == 0
}

// Equal reports whether s and t are the same summary: the same Text,
// LastMessageID, Covered and Digests. A nil and an empty slice
// are equal. This is the comparison of [Store.Save]'s compare-and-swap.
func (s Summary) Equal(t Summary) bool {
	return s.Text == t.Text && s.LastMessageID == t.LastMessageID &&
		slices.Equal(s.Covered, t.Covered) && slices.Equal(s.Digests, t.Digests)
}

// clone returns s with slices of its own.
func (s Summary) clone() Summary {
	if s.Covered != nil {
		s.Covered = append([]string(nil), s.Covered...)
	}
	if s.Digests != nil {
		s.Digests = append([]string(nil), s.Digests...)
	}
	return s
}

// checked reports whether s has a digest for each covered message, so
// that edits and deletions among them can be told.
func (s Summary) checked() bool { return len(s.Digests) == len(s.Covered) && len(s.Covered) > 0 }

// Store persists one Summary per chat.
//
// Implementations must be safe for concurrent use by multiple goroutines
// and must honour these rules, which [github.com/recapgo/recap/storetest]
// checks:
//
//   - Load returns the zero Summary and a nil error for a chat it has never
//     saved.
//   - Save is an atomic compare-and-swap: it stores next only if the stored
//     summary (the zero Summary for an unknown chat) still equals prev (see
//     [Summary.Equal]: Text, LastMessageID, every Covered ID and digest),
//     and
//     otherwise returns an error matching [ErrConflict] and changes nothing.
//     No reader may ever see a mix of prev and next.
//   - A Save or Load that fails for any other reason, including ctx being
//     done, changes nothing and returns an error that does not match
//     [ErrConflict].
//   - Load returns what Save stored, Covered and Digests included, in
//     order (a nil and an empty slice may come back as either).
//   - Summaries are values: a Store keeps no reference to caller memory,
//     and the caller may modify what Load returned.
type Store interface {
	Load(ctx context.Context, chatID string) (Summary, error)
	Save(ctx context.Context, chatID string, prev, next Summary) error
}
