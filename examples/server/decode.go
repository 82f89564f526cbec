package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recapgo/recap"
)

// Bounds on a request, which with DefaultMaxConcurrent bound the memory
// the service takes (see TestMemoryBound and the README):
//
//   - MaxBodyBytes: 8 MiB, a long chat with tool output;
//   - DefaultMaxMessages messages (-max-messages);
//   - valuesPerMessage shallow JSON values per message on average (see
//     shallowValues): what recap decodes into structures of its own, parts
//     and members, about 200 bytes each, where 8 MiB of "{}," parts would
//     otherwise cost 550 MiB.
const (
	MaxBodyBytes       = 8 << 20
	DefaultMaxMessages = 1000
	// DefaultMaxSummarizeInput is -max-summarize-input: what one
	// summarizer call is given at most, in tokens (recap.WithMaxSummarizeInput).
	DefaultMaxSummarizeInput = 32000
	valuesPerMessage         = 32
)

// decode reads a {"id": ..., "messages": [...]} body, ignoring any other
// field, and answers 4xx errors that name the offending field. An
// Anthropic Messages API request body is one too: its "system" (a string
// or text blocks) is decoded by recap.DecodeAnthropicSystem into system
// messages before the messages, and a body with a "system" or an
// Anthropic block (tool_use, tool_result, thinking...) is a chat of
// Anthropic messages (see anthropicChat). Messages
// need no "id" (recap derives IDs for the payload routes, as
// recap.ChainIDs does, and the payload carries none), except AI SDK
// UIMessages, whose missing IDs the payload routes answer with a 400. It decodes
// the messages one by one as they stream in, so that it never holds more
// than the body's bytes plus the messages decoded, and refuses a body of
// more than maxMessages messages, or of more than valuesPerMessage ×
// maxMessages shallow values, before decoding the message that breaks
// the bound.
//
// fields names the other fields to read into the variables given, nil for
// none: into an *int, a non-negative integer; into an *optString, a
// string or null.
func decode(log *slog.Logger, w http.ResponseWriter, r *http.Request, maxMessages int, fields map[string]any) (chatBody, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		fail(log, w, r, http.StatusUnsupportedMediaType, "content type must be application/json")
		return chatBody{}, false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	b := bodyDecoder{dec: dec, maxMessages: maxMessages, budget: valuesPerMessage * maxMessages, fields: fields}
	if f := b.decode(); f != nil {
		fail(log, w, r, f.status, f.msg)
		return chatBody{}, false
	}
	return chatBody{id: b.id, msgs: b.msgs, system: len(b.system), anthropic: b.anthropic}, true
}

// A chatBody is a request body's chat, as decode read it.
type chatBody struct {
	id   string          // the body's "id", "" if none
	msgs []recap.Message // the system prompt's messages, then the messages
	// system is how many of msgs an Anthropic request's "system" made.
	system int
	// anthropic: the chat is an Anthropic Messages API chat (the body
	// has a "system", or a message a block only Anthropic has), answered
	// as a request's "system" and "messages".
	anthropic bool
}

// invalid says what is wrong with the body's message that recap refused:
// its place and recap's reason, where the other message a reason names
// ("same ID as message 2") is named by its place in the body too.
func (c chatBody) invalid(me *recap.MessageError) string {
	reason := otherMessage.ReplaceAllStringFunc(me.Reason, func(s string) string {
		j, err := strconv.Atoi(strings.TrimPrefix(s, "message "))
		if err != nil {
			return s
		}
		return c.where(j)
	})
	return c.where(me.Index) + ": " + reason
}

// otherMessage is how recap's MessageError reasons name another message.
var otherMessage = regexp.MustCompile(`\bmessage [0-9]+\b`)

// where names msgs[i] of the body as the client wrote it: an element of
// "system" or of "messages".
func (c chatBody) where(i int) string {
	if i < c.system {
		return fmt.Sprintf("system[%d]", i)
	}
	return fmt.Sprintf("messages[%d]", i-c.system)
}

// A decodeFailure is why a body was refused: its status and message.
type decodeFailure struct {
	status int
	msg    string
}

// badBody is a 400 with a message made as by fmt.Sprintf.
func badBody(format string, args ...any) *decodeFailure {
	return &decodeFailure{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// readFailure is the failure of reading the body, as readError says.
func readFailure(err error) *decodeFailure {
	_, _, status, msg := readError(err)
	return &decodeFailure{status, msg}
}

// bodyDecoder reads a request body's members.
type bodyDecoder struct {
	dec         *json.Decoder
	maxMessages int
	budget      int            // parts and members still allowed
	fields      map[string]any // the route's own members (see decode)

	id        string
	msgs      []recap.Message
	found     bool            // "messages" was there (and not null)
	system    []recap.Message // an Anthropic request's system prompt
	anthropic bool            // the body has a "system"; after finish, the chat is Anthropic
}

// decode reads the whole body: one JSON object, nothing after it.
func (b *bodyDecoder) decode() *decodeFailure {
	tok, err := b.dec.Token()
	switch {
	case err == io.EOF:
		return badBody("body: empty")
	case err != nil:
		return readFailure(err)
	case tok != json.Delim('{'):
		return badBody("body: expected a JSON object, got %s", kind(tok))
	}
	for b.dec.More() {
		tok, err := b.dec.Token()
		if err != nil {
			return readFailure(err)
		}
		if f := b.member(tok.(string)); f != nil {
			return f
		}
	}
	if _, err := b.dec.Token(); err != nil { // }
		return readFailure(err)
	}
	if _, err := b.dec.Token(); err != io.EOF {
		return badBody("body: trailing data after the JSON object")
	}
	return b.finish()
}

// member reads the value of the member name.
func (b *bodyDecoder) member(name string) *decodeFailure {
	switch name {
	case "id":
		if err := b.dec.Decode(&b.id); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				return badBody("id: expected string, got JSON %s", typeErr.Value)
			}
			return readFailure(err)
		}
		return nil
	case "system":
		return b.systemPrompt()
	case "messages":
		return b.messages()
	}
	return b.field(name)
}

// systemPrompt reads an Anthropic request's "system".
func (b *bodyDecoder) systemPrompt() *decodeFailure {
	var raw json.RawMessage
	if err := b.dec.Decode(&raw); err != nil {
		return readFailure(err)
	}
	if b.budget -= shallowValues(raw); b.budget < 0 {
		return badBody("system: more than %d parts and members in all (%d a message on average)", valuesPerMessage*b.maxMessages, valuesPerMessage)
	}
	var err error
	if b.system, err = recap.DecodeAnthropicSystem(raw); err != nil {
		return badBody("%s", strings.TrimPrefix(err.Error(), "recap: decode anthropic: "))
	}
	b.anthropic = string(raw) != "null"
	return nil
}

// messages reads "messages": an array of at most maxMessages, or null.
func (b *bodyDecoder) messages() *decodeFailure {
	b.found, b.msgs = true, nil
	tok, err := b.dec.Token()
	switch {
	case err != nil:
		return readFailure(err)
	case tok == nil:
		b.found = false
		return nil
	case tok != json.Delim('['):
		return badBody("messages: expected []recap.Message, got JSON %s", kind(tok))
	}
	for i := 0; b.dec.More(); i++ {
		if i == b.maxMessages {
			return badBody("messages: more than %d", b.maxMessages)
		}
		var raw json.RawMessage
		if err := b.dec.Decode(&raw); err != nil {
			return readFailure(err)
		}
		if b.budget -= shallowValues(raw); b.budget < 0 {
			return badBody("messages[%d]: more than %d parts and members in all (%d a message on average)", i, valuesPerMessage*b.maxMessages, valuesPerMessage)
		}
		if !utf8.Valid(raw) {
			// encoding/json would replace each bad byte by U+FFFD: two
			// different IDs would become one.
			return badBody("messages[%d]: not valid UTF-8, which JSON text must be", i)
		}
		var m recap.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			return badBody("messages[%d]: %s", i, strings.TrimPrefix(err.Error(), "recap: "))
		}
		b.msgs = append(b.msgs, m)
	}
	if _, err := b.dec.Token(); err != nil { // ]
		return readFailure(err)
	}
	if b.msgs == nil {
		b.msgs = []recap.Message{}
	}
	return nil
}

// field reads a member of the route's own fields into it, and skips any
// other member.
func (b *bodyDecoder) field(name string) *decodeFailure {
	switch v := b.fields[name].(type) {
	case *int:
		var n json.Number
		if err := b.dec.Decode(&n); err != nil {
			return badBody("%s: expected a number", name)
		}
		i, err := strconv.Atoi(string(n))
		if err != nil || i < 0 {
			return badBody("%s: expected a non-negative integer, got %s", name, n)
		}
		*v = i
		return nil
	case *optString:
		var p *string
		if err := b.dec.Decode(&p); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				return badBody("%s: expected a string or null, got JSON %s", name, typeErr.Value)
			}
			return readFailure(err)
		}
		*v = optString{}
		if p != nil {
			*v = optString{s: *p, set: true}
		}
		return nil
	}
	var skip json.RawMessage
	if err := b.dec.Decode(&skip); err != nil {
		return readFailure(err)
	}
	return nil
}

// finish checks the chat read: messages there, in one format, the system
// prompt before them, no orphan tool result, not too many.
func (b *bodyDecoder) finish() *decodeFailure {
	if !b.found {
		return badBody("messages: required")
	}
	msgs, anthropic, msg := anthropicChat(b.anthropic, b.system, b.msgs)
	if msg != "" {
		return badBody("%s", msg)
	}
	b.anthropic = anthropic
	if len(b.system) > 0 {
		// recap's errors would count the system blocks among the
		// messages: the one it finds in them is named here.
		if msg := orphan(msgs[len(b.system):]); msg != "" {
			return badBody("%s", msg)
		}
	}
	if len(msgs) > b.maxMessages {
		return badBody("system and messages: more than %d", b.maxMessages)
	}
	b.msgs = msgs
	return nil
}

// anthropicChat returns msgs as an Anthropic Messages API chat, after the
// system prompt, when the body is an Anthropic request: when it has a
// "system" (anthropic) or a message has a block only Anthropic has. A
// message that decoded as an OpenAI one or as recap's own (a string or
// text blocks: the same JSON in both formats) is made Anthropic, so that
// the chat has one format; one with what Anthropic messages lack
// (tool_calls, a tool role, UIMessage parts) is an error naming it. Other
// chats come back as they are. It reports whether the chat is Anthropic.
func anthropicChat(anthropic bool, system, msgs []recap.Message) ([]recap.Message, bool, string) {
	for i := 0; !anthropic && i < len(msgs); i++ {
		anthropic = msgs[i].Format == recap.FormatAnthropic
	}
	if !anthropic {
		return msgs, false, ""
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Format == recap.FormatAnthropic {
			continue
		}
		if m.Format == recap.FormatUI || m.Role == recap.RoleTool || m.Role == recap.RoleDeveloper || m.Refusal != "" || !textOnly(m.Parts) {
			return nil, true, fmt.Sprintf("messages[%d]: not an Anthropic message (%s format) in an Anthropic request: a chat must be in one format", i, m.Format)
		}
		if m.Format == recap.FormatPlain && m.ID != "" {
			// recap's own {"id","role","content"}: the id stays a member.
			b, _ := json.Marshal(m.ID) // a string always marshals
			m.Extra = maps.Clone(m.Extra)
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra["id"] = b
		}
		m.Format = recap.FormatAnthropic
	}
	return append(system, msgs...), true, ""
}

// orphan names the first message of msgs that holds a tool result whose
// call is not before it, as recap.Compressor refuses it (an
// ErrInvalidMessage), or returns "".
func orphan(msgs []recap.Message) string {
	calls := map[string]bool{}
	for i, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.ToolCallID == "":
			case p.Type == recap.PartToolCall:
				calls[p.ToolCallID] = true
			case p.Type == recap.PartToolResult && !calls[p.ToolCallID]:
				return fmt.Sprintf("messages[%d]: a tool result for call %q, whose tool call (tool_use) is not before it in the chat: "+
					"send the history from the message that made the call", i, p.ToolCallID)
			}
		}
	}
	return ""
}

// textOnly reports whether parts are all text parts.
func textOnly(parts []recap.Part) bool {
	for _, p := range parts {
		if p.Type != recap.PartText {
			return false
		}
	}
	return true
}

// optString is a string field that a request may leave out (see decode):
// set reports whether the body gave it, a JSON null counting as left out,
// so that "" given is told from no value.
type optString struct {
	s   string
	set bool
}

// readError maps an error reading the body to its answer.
func readError(err error) (string, []recap.Message, int, string) {
	var (
		maxErr *http.MaxBytesError
		syntax *json.SyntaxError
	)
	switch {
	case errors.As(err, &maxErr):
		return "", nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("body: larger than %d bytes", MaxBodyBytes)
	case errors.As(err, &syntax):
		return "", nil, http.StatusBadRequest, fmt.Sprintf("body: invalid JSON at byte %d: %v", syntax.Offset, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "", nil, http.StatusBadRequest, "body: invalid JSON: it ends too early"
	}
	return "", nil, http.StatusBadRequest, "body: " + strings.TrimPrefix(err.Error(), "json: ")
}

// kind names the JSON kind of a token.
func kind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// shallowValues counts, in the JSON of one message, the objects, arrays
// and members at most three levels deep: the message's members, its parts
// (or OpenAI tool calls and content blocks) and their members, which recap
// decodes into structures of their own. Deeper values (a tool's input or
// output) stay raw bytes and cost only their size. It reads the bytes
// once and allocates nothing.
func shallowValues(raw []byte) int {
	depth, n := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth <= 3 {
				n++
			}
		case '}', ']':
			depth--
		case ':':
			if depth <= 3 {
				n++
			}
		}
	}
	return n
}
