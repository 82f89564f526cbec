package recap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Role is the author of a message.
type Role string

// The roles recap knows. A message with any other role is rejected by
// [Compressor.Plan] with [ErrInvalidMessage].
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

func (r Role) valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Part types with a meaning to recap. Any other type, such as the AI SDK's
// "source-url", "step-start" or "data-<name>", is carried along unchanged.
const (
	PartText        = "text"
	PartReasoning   = "reasoning"
	PartToolCall    = "tool-call"
	PartToolResult  = "tool-result"
	PartDynamicTool = "dynamic-tool"
	PartFile        = "file"
)

// Part is one block of a structured message, shaped like a part of a Vercel
// AI SDK UIMessage so that such messages decode with plain encoding/json.
//
// Decoding keeps every JSON member: the ones recap models land in the named
// fields, all others (providerMetadata, data, sourceId, ...) in Extra, so
// that encoding the Part again reproduces the input, member for member.
// A modelled string member whose value is "" or null is kept in Extra as
// well, so that its presence survives the round trip.
type Part struct {
	// Type is "text", "reasoning", "tool-call", "tool-result", "file",
	// "dynamic-tool", an AI SDK tool part "tool-<name>", or any other type.
	Type string
	// Text is the text of a text or reasoning part.
	Text string
	// State is the AI SDK's streaming or tool state, such as "done" or
	// "output-available".
	State string
	// ToolCallID links a tool call to its result.
	ToolCallID string
	// ToolName names the tool of a "tool-call", "tool-result" or
	// "dynamic-tool" part; an AI SDK "tool-<name>" part names it in Type.
	ToolName string
	// Input is a tool call's input and Output a tool's result, as JSON.
	Input  json.RawMessage
	Output json.RawMessage
	// ErrorText is a failed tool call's error.
	ErrorText string
	// MediaType, Filename and URL describe a file part.
	MediaType string
	Filename  string
	URL       string
	// Extra holds the JSON members recap does not model, by name.
	Extra map[string]json.RawMessage
}

// IsTool reports whether p is a tool call or result: a "tool-call",
// "tool-result" or "dynamic-tool" part, or an AI SDK "tool-<name>" part.
func (p Part) IsTool() bool {
	return strings.HasPrefix(p.Type, "tool-") || p.Type == PartDynamicTool
}

// Message is one chat message. Its JSON form has the members id, role,
// content and parts, which is both an AI SDK UIMessage and (with content) a
// plain chat message; other members are kept in Extra, as for [Part].
//
// A message's content is either Content or Parts: when Parts is not empty it
// is the content and Content is ignored by [Message.Text].
type Message struct {
	ID      string
	Role    Role
	Content string
	Parts   []Part
	// Extra holds the JSON members recap does not model (metadata,
	// createdAt, ...), by name.
	Extra map[string]json.RawMessage
}

// Text returns the plain text of m that recap counts and that a Summarizer
// may render: when m has Parts, the non-empty texts of its parts joined with
// "\n", where a part's texts are its Text and, for a tool part, its Input,
// Output (each as its JSON text, unless null) and ErrorText; otherwise
// m.Content. File, source and step parts contribute nothing.
func (m Message) Text() string {
	if len(m.Parts) == 0 {
		return m.Content
	}
	var buf [8]string
	texts := buf[:0]
	for _, p := range m.Parts {
		for _, s := range p.texts() {
			if s != "" {
				texts = append(texts, s)
			}
		}
	}
	if len(texts) == 1 {
		// Most messages have one text among their parts (such as an AI
		// SDK step-start and a text part): no copy.
		return texts[0]
	}
	return strings.Join(texts, "\n")
}

// texts returns the texts a part contributes to Message.Text, some
// possibly empty.
func (p Part) texts() [4]string {
	if !p.IsTool() {
		return [4]string{p.Text}
	}
	return [4]string{p.Text, rawText(p.Input), rawText(p.Output), p.ErrorText}
}

// rawText returns the text of a JSON value, or "" for an absent or null one.
func rawText(r json.RawMessage) string {
	s := strings.TrimSpace(string(r))
	if s == "null" {
		return ""
	}
	return s
}

// clone returns a deep copy of m, so that a Message handed to a caller or a
// Summarizer shares no slice or map with the caller's input.
func (m Message) clone() Message {
	if m.Parts != nil {
		parts := make([]Part, len(m.Parts))
		for i, p := range m.Parts {
			p.Input = cloneRaw(p.Input)
			p.Output = cloneRaw(p.Output)
			p.Extra = cloneExtra(p.Extra)
			parts[i] = p
		}
		m.Parts = parts
	}
	m.Extra = cloneExtra(m.Extra)
	return m
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage{}, r...)
}

func cloneExtra(x map[string]json.RawMessage) map[string]json.RawMessage {
	if x == nil {
		return nil
	}
	y := make(map[string]json.RawMessage, len(x))
	for k, v := range x {
		y[k] = cloneRaw(v)
	}
	return y
}

// cloneMessages returns deep copies of msgs in a fresh slice, or nil.
func cloneMessages(msgs []Message) []Message {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.clone()
	}
	return out
}

// member is one modelled JSON member of a Part or Message: its name and where
// its value lives.
type member struct {
	name string
	str  *string          // a string member, or
	raw  *json.RawMessage // a raw JSON member
}

func (p *Part) members() []member {
	return []member{
		{name: "type", str: &p.Type},
		{name: "text", str: &p.Text},
		{name: "state", str: &p.State},
		{name: "toolCallId", str: &p.ToolCallID},
		{name: "toolName", str: &p.ToolName},
		{name: "input", raw: &p.Input},
		{name: "output", raw: &p.Output},
		{name: "errorText", str: &p.ErrorText},
		{name: "mediaType", str: &p.MediaType},
		{name: "filename", str: &p.Filename},
		{name: "url", str: &p.URL},
	}
}

// MarshalJSON encodes p with its modelled members first, in a fixed order,
// then the members of Extra sorted by name. A modelled member wins over an
// Extra member of the same name.
func (p Part) MarshalJSON() ([]byte, error) {
	return marshalObject(p.members(), p.Extra, nil)
}

// UnmarshalJSON decodes a JSON object into p, keeping unmodelled members in
// Extra.
func (p *Part) UnmarshalJSON(data []byte) error {
	*p = Part{}
	extra, err := unmarshalObject(data, p.members())
	if err != nil {
		return fmt.Errorf("recap: decode part: %w", err)
	}
	p.Extra = extra
	return nil
}

func (m *Message) members() []member {
	return []member{
		{name: "id", str: &m.ID},
		{name: "role", str: (*string)(&m.Role)},
		{name: "content", str: &m.Content},
	}
}

// MarshalJSON encodes m as {"id", "role", "content", "parts", Extra...},
// leaving out empty members.
func (m Message) MarshalJSON() ([]byte, error) {
	var parts json.RawMessage
	if m.Parts != nil {
		b, err := json.Marshal(m.Parts)
		if err != nil {
			return nil, err
		}
		parts = b
	}
	return marshalObject(m.members(), m.Extra, parts)
}

// UnmarshalJSON decodes a JSON object into m, keeping unmodelled members in
// Extra. content must be a string or null: a list of content blocks (as in
// OpenAI's chat format) is an error, since recap could not count it.
func (m *Message) UnmarshalJSON(data []byte) error {
	*m = Message{}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("recap: decode message: %w", err)
	}
	if v, ok := raw["parts"]; ok {
		if err := json.Unmarshal(v, &m.Parts); err != nil {
			return fmt.Errorf("recap: decode message parts: %w", err)
		}
		delete(raw, "parts")
	}
	extra, err := decodeMembers(raw, m.members())
	if err != nil {
		return fmt.Errorf("recap: decode message: %w", err)
	}
	m.Extra = extra
	return nil
}

func unmarshalObject(data []byte, ms []member) (map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	return decodeMembers(raw, ms)
}

// decodeMembers moves the modelled members of raw into ms and returns what
// is left, or nil if nothing is.
func decodeMembers(raw map[string]json.RawMessage, ms []member) (map[string]json.RawMessage, error) {
	for _, m := range ms {
		v, ok := raw[m.name]
		if !ok {
			continue
		}
		if m.raw != nil {
			*m.raw = v
			delete(raw, m.name)
			continue
		}
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			continue // kept in Extra: an explicit null
		}
		if err := json.Unmarshal(v, m.str); err != nil {
			return nil, fmt.Errorf("member %q: want a string, got %s", m.name, v)
		}
		if *m.str != "" {
			delete(raw, m.name)
		}
	}
	if len(raw) == 0 {
		return nil, nil
	}
	return raw, nil
}

// marshalObject writes the non-empty members of ms, then parts (if not nil)
// under "parts", then the members of extra that ms did not write, sorted.
func marshalObject(ms []member, extra map[string]json.RawMessage, parts json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	written := make(map[string]bool, len(ms)+1)
	put := func(name string, v []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(name) // a string always marshals
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
		written[name] = true
	}
	for _, m := range ms {
		switch {
		case m.str != nil && *m.str != "":
			v, _ := json.Marshal(*m.str)
			put(m.name, v)
		case m.raw != nil && *m.raw != nil:
			if !json.Valid(*m.raw) {
				return nil, fmt.Errorf("recap: encode member %q: invalid JSON %q", m.name, *m.raw)
			}
			put(m.name, *m.raw)
		}
	}
	if parts != nil {
		put("parts", parts)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !written[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := extra[k]
		if !json.Valid(v) {
			return nil, fmt.Errorf("recap: encode member %q: invalid JSON %q", k, v)
		}
		put(k, v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// IsFile reports whether p is an attachment: a file part.
func (p Part) IsFile() bool { return p.Type == PartFile }
