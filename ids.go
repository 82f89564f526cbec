package recap

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// ChainIDPrefix starts the IDs that [ChainIDs] derives; 20 hex digits
// follow it.
const ChainIDPrefix = "h-"

// ChainIDs returns deep copies of msgs in a fresh slice, in which every
// message without an ID has one derived from the ID of the message before
// it (or "" for the first) and from its own JSON encoding: ChainIDPrefix
// and 20 hex digits of a SHA-256. Messages that have an ID keep it, and it
// feeds the chain like a derived one. msgs is not modified.
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

// chainID returns the ID of m, which has none, after a message of ID prev.
func chainID(prev string, m Message) string {
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write([]byte{0, byte(m.Format)})
	if b, err := json.Marshal(m); err == nil {
		h.Write(b)
	} else {
		h.Write([]byte{0})
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Text()))
	}
	return ChainIDPrefix + hex.EncodeToString(h.Sum(nil))[:20]
}
