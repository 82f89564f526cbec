package recap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// textDigest returns 8 hex digits of the SHA-256 of text.
func textDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:4])
}

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
//
// Forgotten lists the digests of summary texts that [Compressor.Forget]
// withdrew (at most maxForgotten, newest last): a client that echoes
// payloads may send one back, in the summary's place, and it is then
// taken for an echo and left out of the payload (its text never reaches
// the model again). Later summaries of the chat carry the list on.
type Summary struct {
	Text          string   `json:"text"`
	LastMessageID string   `json:"lastMessageId"`
	Covered       []string `json:"covered,omitempty"`
	Digests       []string `json:"digests,omitempty"`
	Forgotten     []string `json:"forgotten,omitempty"`
}

// IsZero reports whether s is the zero Summary (a nil or empty Covered,
// Digests or Forgotten alike).
func (s Summary) IsZero() bool {
	return s.Text == "" && s.LastMessageID == "" && len(s.Covered) == 0 && len(s.Digests) == 0 && len(s.Forgotten) == 0
}

// Equal reports whether s and t are the same summary: the same Text,
// LastMessageID, Covered, Digests and Forgotten. A nil and an empty slice
// are equal. This is the comparison of [Store.Save]'s compare-and-swap.
func (s Summary) Equal(t Summary) bool {
	return s.Text == t.Text && s.LastMessageID == t.LastMessageID &&
		slices.Equal(s.Covered, t.Covered) && slices.Equal(s.Digests, t.Digests) &&
		slices.Equal(s.Forgotten, t.Forgotten)
}

// clone returns s with slices of its own.
func (s Summary) clone() Summary {
	s.Covered = slices.Clone(s.Covered)
	s.Digests = slices.Clone(s.Digests)
	s.Forgotten = slices.Clone(s.Forgotten)
	return s
}

// maxForgotten bounds Summary.Forgotten.
const maxForgotten = 8

// forgets reports whether text is that of a summary message of a summary
// that Forget withdrew from s, with or without hint.
func (s Summary) forgets(text, hint string) bool {
	if len(s.Forgotten) == 0 {
		return false
	}
	d := textDigest(text)
	if hint != "" && strings.HasSuffix(text, "\n\n"+hint) {
		if t := textDigest(strings.TrimSuffix(text, "\n\n"+hint)); slices.Contains(s.Forgotten, t) {
			return true
		}
	}
	return slices.Contains(s.Forgotten, d)
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
//   - Load returns what Save stored, Covered, Digests and Forgotten included, in
//     order (a nil and an empty slice may come back as either).
//   - Summaries are values: a Store keeps no reference to caller memory,
//     and the caller may modify what Load returned.
type Store interface {
	Load(ctx context.Context, chatID string) (Summary, error)
	Save(ctx context.Context, chatID string, prev, next Summary) error
}
