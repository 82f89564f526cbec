package recap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
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
// [Compressor.Compress] and [Compressor.Plan] derive these IDs themselves
// for messages sent without one, so a chat needs no call to ChainIDs
// before them. A caller still wants ChainIDs to know the IDs recap works
// with: to match the messages of a chat with what a [Summary] names
// (LastMessageID, Covered), with [Plan.Boundary] or with
// [ClearedResult.MessageID]; or to give a chat IDs of its own to store,
// keep and send again, as the adapters of the examples module do.
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
// content, parts, format and every Extra member. FormatAnthropic hashes as
// FormatOpenAI: a message whose JSON is the same in both formats (a
// string content, text blocks) has the same ID in both. A message that cannot be
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
	f := m.Format
	if f == FormatAnthropic {
		// The same JSON as an OpenAI message (a string or text blocks),
		// the same ID: a chat read in either format has the same IDs.
		f = FormatOpenAI
	}
	own.Write([]byte{byte(f)})
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

// chat is a validated chat in which every message has an ID: the
// caller's messages, or, when some came without an ID, shallow copies of
// them in which those have the IDs that ChainIDs gives them.
type chat struct {
	msgs    []Message
	ix      map[string]int // each ID to its message's position in msgs
	derived []bool         // derived[i] reports that msgs[i] was sent without an ID; nil if none was
}

// uiWithoutID is the reason a UIMessage without an ID is invalid; short
// enough for a server to pass on whole.
const uiWithoutID = `no ID: an AI SDK UIMessage carries its own "id", made by generateId (useChat) or ` +
	`generateMessageId (toUIMessageStreamResponse); keep it when you store and send messages. ` +
	`recap derives IDs only for formats without them, such as OpenAI's`

// index validates msgs and maps each ID to its position, deriving the IDs
// of messages without one as ChainIDs does, and checks that every tool
// result follows its call (see checkPairs). A chat whose messages all
// have IDs is not copied.
func index(msgs []Message) (chat, error) {
	if len(msgs) == 0 {
		return chat{}, ErrNoMessages
	}
	ch := chat{msgs: msgs, ix: make(map[string]int, len(msgs))}
	prev := ""
	for i := range msgs {
		m := &msgs[i]
		id := m.ID
		if id == "" {
			if m.Format == FormatUI {
				return chat{}, &MessageError{Index: i, Reason: uiWithoutID}
			}
			if ch.derived == nil {
				ch.msgs = append([]Message(nil), msgs...)
				ch.derived = make([]bool, len(msgs))
			}
			id = chainID(prev, *m)
			ch.msgs[i].ID = id
			ch.derived[i] = true
		}
		switch j, dup := ch.ix[id]; {
		case dup && m.ID == "":
			return chat{}, &MessageError{Index: i, Reason: fmt.Sprintf("the ID derived for it, %s (see ChainIDs), is the ID of message %d", id, j)}
		case dup:
			return chat{}, &MessageError{Index: i, ID: id, Reason: fmt.Sprintf("same ID as message %d", j)}
		case !m.Role.valid():
			return chat{}, &MessageError{Index: i, ID: m.ID, Reason: fmt.Sprintf("unknown role %q", m.Role)}
		}
		ch.ix[id] = i
		prev = id
	}
	if err := checkPairs(msgs); err != nil {
		return chat{}, err
	}
	return ch, nil
}

// derivedIDs returns the IDs derived for the messages of ch sent without
// one, in their order, or nil if none was.
func (ch chat) derivedIDs() []string {
	if ch.derived == nil {
		return nil
	}
	var ids []string
	for i, d := range ch.derived {
		if d {
			ids = append(ids, ch.msgs[i].ID)
		}
	}
	return ids
}

// A derivedSet holds the IDs recap derived for messages sent without one
// (see Plan.Derived).
type derivedSet map[string]bool

// newDerivedSet returns the set of ids, or nil for none.
func newDerivedSet(ids []string) derivedSet {
	if len(ids) == 0 {
		return nil
	}
	d := make(derivedSet, len(ids))
	for _, id := range ids {
		d[id] = true
	}
	return d
}

// own returns msgs, fresh copies of messages of a chat (recap's own
// summary messages among them), with the IDs of d cleared in place: the
// messages as their sender has them. It does nothing for an empty d.
func (d derivedSet) own(msgs []Message) []Message {
	if len(d) == 0 {
		return msgs
	}
	for i := range msgs {
		if d[msgs[i].ID] {
			msgs[i].ID = ""
		}
	}
	return msgs
}

// ContextMark starts the digest that [Summary.Digests] holds for a
// per-request context message: a system or developer message right before
// a user message (retrieved documents, an instruction for one turn), which
// an application may send with one request only. Such a message may be
// missing from later requests without making the summary stale; when it is
// there, an edit of it does.
const ContextMark = "~"

// Digest returns the digest of m's counted content, as [Summary.Digests]
// holds it: 8 hex digits of a SHA-256 of its role, Content, Refusal and
// parts (type, texts, tool name, call ID, input and output as compact JSON,
// error, and a file's media type, name and URL or data; for a part of a
// type recap does not model, its other members too). Its ID, Format and
// the members recap does not model (metadata, timestamps, cache control)
// are left out: a message sent again in another format, or with other
// metadata, has the same digest, and one whose text was edited has
// another.
func Digest(m Message) string {
	var d digester
	return d.digest(m)
}

// A digester computes digests, reusing its buffers from one message to
// the next.
type digester struct {
	buf     []byte       // what the SHA-256 is of
	compact bytes.Buffer // a JSON value made compact
	keys    []string
}

// digest returns Digest(m).
func (d *digester) digest(m Message) string {
	sum := d.sum(m)
	return hex.EncodeToString(sum[:4])
}

// is reports whether Digest(m) is digest, without making a string of it.
func (d *digester) is(m Message, digest string) bool {
	sum := d.sum(m)
	var h [8]byte
	hex.Encode(h[:], sum[:4])
	return string(h[:]) == digest
}

// sum returns the SHA-256 that Digest(m) is the start of.
func (d *digester) sum(m Message) [sha256.Size]byte {
	b := d.buf[:0]
	field := func(s string) {
		b = append(append(b, s...), 0)
	}
	raw := func(v json.RawMessage) {
		d.compact.Reset()
		if len(v) > 0 && json.Compact(&d.compact, v) == nil {
			v = d.compact.Bytes()
		}
		b = append(append(b, v...), 0)
	}
	field(string(m.Role))
	field(m.Content)
	field(m.Refusal)
	for i := range m.Parts {
		p := &m.Parts[i]
		b = append(b, 1)
		for _, s := range [...]string{p.Type, p.Text, p.ToolName, p.ToolCallID, p.ErrorText, p.MediaType, p.Filename, p.URL} {
			field(s)
		}
		raw(p.Input)
		raw(p.Output)
		if !p.IsTool() && !p.IsFile() && p.Type != PartText && p.Type != PartReasoning && len(p.Extra) > 0 {
			d.keys = d.keys[:0]
			for k := range p.Extra {
				d.keys = append(d.keys, k)
			}
			sort.Strings(d.keys)
			for _, k := range d.keys {
				field(k)
				raw(p.Extra[k])
			}
		}
	}
	d.buf = b
	return sha256.Sum256(b)
}
