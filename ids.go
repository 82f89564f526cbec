package recap

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// ChainIDPrefix starts the IDs that [ChainIDs] derives.
const ChainIDPrefix = "h-"

// ChainIDs returns deep copies of msgs in a fresh slice, in which every
// message without an ID has one derived from the ID of the message before
// it (or "" for the first) and from its own JSON encoding: ChainIDPrefix,
// 12 hex digits of a SHA-256 of both, "." and 8 hex digits of a SHA-256 of
// the message alone. Messages that have an ID keep it, and it
// feeds the chain like a derived one. msgs is not modified.
//
// A payload echoed back with recap's summary in place of what it covers,
// or a chat whose system prompt changed, gives the messages after it other
// chains than before, but the same content keys (the part after the dot):
// [Compressor.Plan] then finds the summary's boundary by content, in
// order, when it cannot by ID. Two mixes are beyond it: a client that
// echoes payloads back and also sends full histories, in a chat with system
// messages after its first (a system message right after the summary
// reads, once echoed, like part of the pinned prompt), or with
// WithMaxTurnTokens (an echoed compacted turn sends its request again
// after the summary that covers it, under another ID, and the next
// summary folds it a second time). The summary can then be taken for stale
// and rebuilt from the full history sent: nothing is lost, but an LLM call
// is spent. Send either full histories or echoed payloads in such chats.
//
// It gives IDs to chats whose format has none, such as OpenAI's, so that
// [Compressor.Plan] can find a summary's boundary in them. The IDs are
// stable as a chat grows (the IDs of an older snapshot of the chat are a
// prefix of the new ones) and change from an edited message on, so that
// an edit before the boundary makes the summary stale.
//
// The encoding hashed is the message's MarshalJSON without its ID: role,
// content, parts, format and every Extra member. A message that cannot be
// encoded (its Input, Output or Extra hold invalid JSON) is hashed from its
// role and [Message.Text] instead.
func ChainIDs(msgs []Message) []Message {
	out := cloneMessages(msgs)
	prev := ""
	for i := range out {
		if out[i].ID == "" {
			out[i].ID = chainID(prev, out[i])
		}
		prev = out[i].ID
	}
	return out
}

// chainID returns the ID of m, which has none, after a message of ID prev:
// ChainIDPrefix, 12 hex digits of the chain's hash, "." and 8 of the
// message's own (see contentKey).
func chainID(prev string, m Message) string {
	own := sha256.New()
	own.Write([]byte{byte(m.Format)})
	if b, err := json.Marshal(m); err == nil {
		own.Write(b)
	} else {
		own.Write([]byte{0})
		own.Write([]byte(m.Role))
		own.Write([]byte{0})
		own.Write([]byte(m.Text()))
	}
	content := own.Sum(nil)
	chain := sha256.Sum256(append([]byte(prev+"\x00"), content...))
	return ChainIDPrefix + hex.EncodeToString(chain[:6]) + "." + hex.EncodeToString(content[:4])
}

// contentKey returns the part of a ChainIDs ID that depends on the
// message alone, not on the messages before it, or "" for another ID. A
// payload echoed back with recap's summary in place of what it covers
// gives the messages after the summary other chains than the full history
// gives them, but the same content keys: [Compressor.Plan] matches them by
// it, in order, to tell an older snapshot.
func contentKey(id string) string {
	if len(id) != len(ChainIDPrefix)+12+1+8 || id[:len(ChainIDPrefix)] != ChainIDPrefix || id[len(ChainIDPrefix)+12] != '.' {
		return ""
	}
	return id[len(ChainIDPrefix)+13:]
}
