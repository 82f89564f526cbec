package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"strconv"
	"strings"

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
func decode(log *slog.Logger, w http.ResponseWriter, r *http.Request, maxMessages int, fields map[string]any) (string, []recap.Message, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		fail(log, w, r, http.StatusUnsupportedMediaType, "content type must be application/json")
		return "", nil, false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	id, msgs, status, msg := decodeBody(dec, maxMessages, fields)
	if status != 0 {
		fail(log, w, r, status, msg)
		return "", nil, false
	}
	return id, msgs, true
}

// decodeBody does decode's work on dec; a non-zero status is a failure.
func decodeBody(dec *json.Decoder, maxMessages int, fields map[string]any) (id string, msgs []recap.Message, status int, msg string) {
	bad := func(format string, args ...any) (string, []recap.Message, int, string) {
		return "", nil, http.StatusBadRequest, fmt.Sprintf(format, args...)
	}
	tok, err := dec.Token()
	if err == io.EOF {
		return "", nil, http.StatusBadRequest, "body: empty"
	}
	if err != nil {
		return readError(err)
	}
	if tok != json.Delim('{') {
		return bad("body: expected a JSON object, got %s", kind(tok))
	}
	budget := valuesPerMessage * maxMessages
	found := false
	var system []recap.Message // an Anthropic request's system prompt
	anthropic := false         // the body has a "system"
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return readError(err)
		}
		switch tok {
		case "id":
			if err := dec.Decode(&id); err != nil {
				var typeErr *json.UnmarshalTypeError
				if errors.As(err, &typeErr) {
					return bad("id: expected string, got JSON %s", typeErr.Value)
				}
				return readError(err)
			}
		case "system":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return readError(err)
			}
			if budget -= shallowValues(raw); budget < 0 {
				return bad("system: more than %d parts and members in all (%d a message on average)", valuesPerMessage*maxMessages, valuesPerMessage)
			}
			if system, err = recap.DecodeAnthropicSystem(raw); err != nil {
				return bad("%s", strings.TrimPrefix(err.Error(), "recap: decode anthropic: "))
			}
			anthropic = string(raw) != "null"
		case "messages":
			found, msgs = true, nil
			tok, err := dec.Token()
			if err != nil {
				return readError(err)
			}
			if tok == nil {
				found = false
				continue
			}
			if tok != json.Delim('[') {
				return bad("messages: expected []recap.Message, got JSON %s", kind(tok))
			}
			for i := 0; dec.More(); i++ {
				if i == maxMessages {
					return bad("messages: more than %d", maxMessages)
				}
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return readError(err)
				}
				if budget -= shallowValues(raw); budget < 0 {
					return bad("messages[%d]: more than %d parts and members in all (%d a message on average)", i, valuesPerMessage*maxMessages, valuesPerMessage)
				}
				var m recap.Message
				if err := json.Unmarshal(raw, &m); err != nil {
					return bad("messages[%d]: %s", i, strings.TrimPrefix(err.Error(), "recap: "))
				}
				msgs = append(msgs, m)
			}
			if _, err := dec.Token(); err != nil { // ]
				return readError(err)
			}
			if msgs == nil {
				msgs = []recap.Message{}
			}
		default:
			switch v := fields[tok.(string)].(type) {
			case *int:
				var n json.Number
				if err := dec.Decode(&n); err != nil {
					return bad("%s: expected a number", tok)
				}
				i, err := strconv.Atoi(string(n))
				if err != nil || i < 0 {
					return bad("%s: expected a non-negative integer, got %s", tok, n)
				}
				*v = i
				continue
			case *optString:
				var p *string
				if err := dec.Decode(&p); err != nil {
					var typeErr *json.UnmarshalTypeError
					if errors.As(err, &typeErr) {
						return bad("%s: expected a string or null, got JSON %s", tok, typeErr.Value)
					}
					return readError(err)
				}
				*v = optString{}
				if p != nil {
					*v = optString{s: *p, set: true}
				}
				continue
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return readError(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return readError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("body: trailing data after the JSON object")
	}
	if !found {
		return bad("messages: required")
	}
	if msgs, msg = anthropicChat(anthropic, system, msgs); msg != "" {
		return bad("%s", msg)
	}
	if len(system) > 0 {
		// recap's errors would count the system blocks among the
		// messages: the one it finds in them is named here.
		if msg := orphan(msgs[len(system):]); msg != "" {
			return bad("%s", msg)
		}
	}
	if len(msgs) > maxMessages {
		return bad("system and messages: more than %d", maxMessages)
	}
	return id, msgs, 0, ""
}

// anthropicChat returns msgs as an Anthropic Messages API chat, after the
// system prompt, when the body is an Anthropic request: when it has a
// "system" (anthropic) or a message has a block only Anthropic has. A
// message that decoded as an OpenAI one or as recap's own (a string or
// text blocks: the same JSON in both formats) is made Anthropic, so that
// the chat has one format; one with what Anthropic messages lack
// (tool_calls, a tool role, UIMessage parts) is an error naming it. Other chats come back as they are.
func anthropicChat(anthropic bool, system, msgs []recap.Message) ([]recap.Message, string) {
	for i := 0; !anthropic && i < len(msgs); i++ {
		anthropic = msgs[i].Format == recap.FormatAnthropic
	}
	if !anthropic {
		return msgs, ""
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Format == recap.FormatAnthropic {
			continue
		}
		if m.Format == recap.FormatUI || m.Role == recap.RoleTool || m.Role == recap.RoleDeveloper || m.Refusal != "" || !textOnly(m.Parts) {
			return nil, fmt.Sprintf("messages[%d]: not an Anthropic message (%s format) in an Anthropic request: a chat must be in one format", i, m.Format)
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
	return append(system, msgs...), ""
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
