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
// [Compressor.Plan] with [ErrInvalidMessage]. RoleDeveloper is OpenAI's
// name for the app's instructions to reasoning models, a system role.
const (
	RoleSystem    Role = "system"
	RoleDeveloper Role = "developer"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

func (r Role) valid() bool {
	switch r {
	case RoleSystem, RoleDeveloper, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Format is the wire format of a Message: how MarshalJSON writes it.
// [Message.UnmarshalJSON] sets it from the input's shape, so that a
// message is written back in the format it came in.
type Format uint8

const (
	// FormatPlain is {"id","role","content","parts",...}: what recap wrote
	// before it knew formats; the zero value, for messages built in Go.
	FormatPlain Format = iota
	// FormatUI is a Vercel AI SDK UIMessage: {"id","role","parts",...}.
	// Its "parts" member is always written ([] for nil Parts).
	FormatUI
	// FormatOpenAI is an OpenAI Chat Completions message:
	// {"role","content","name","tool_calls","tool_call_id","refusal",...},
	// with no "id" unless the input had one (see [Message]).
	FormatOpenAI
	// FormatAnthropic is an Anthropic Messages API message
	// {"role","content"}, or a block of a request's "system" as a system
	// message (see [DecodeAnthropic]), with no "id" unless the input had
	// one.
	FormatAnthropic
)

// String returns "plain", "ui", "openai", "anthropic", or "Format(n)" for another
// value.
func (f Format) String() string {
	switch f {
	case FormatPlain:
		return "plain"
	case FormatUI:
		return "ui"
	case FormatOpenAI:
		return "openai"
	case FormatAnthropic:
		return "anthropic"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Part types with a meaning to recap. Any other type, such as the AI SDK's
// "source-url", "step-start" or "data-<name>", is carried along unchanged.
//
// PartText, PartFile, PartImageURL, PartInputAudio and PartRefusal are
// also the types of OpenAI content blocks, which decode into parts of the
// same type (see [Message]).
const (
	PartText        = "text"
	PartReasoning   = "reasoning"
	PartToolCall    = "tool-call"
	PartToolResult  = "tool-result"
	PartDynamicTool = "dynamic-tool"
	PartFile        = "file"
	PartImageURL    = "image_url"   // an OpenAI image block: a file part
	PartInputAudio  = "input_audio" // an OpenAI audio block: a file part
	PartRefusal     = "refusal"     // an OpenAI refusal block: its Text is the refusal
	PartImage       = "image"       // an Anthropic image block: a file part
	PartDocument    = "document"    // an Anthropic document block: a file part, or its Text if of plain text
)

// WireForm is how an OpenAI message carries a tool call's Input or a tool
// result's Output, which recap models as JSON while the wire has a string
// (a tool call's "arguments", a tool message's "content"). It lets a
// decoded message encode exactly as it came; it has no effect in the other
// formats.
type WireForm uint8

const (
	// WireJSONText: the wire string is the JSON text of the value, as in
	// "arguments":"{\"city\":\"Paris\"}" for the Input {"city":"Paris"}. The
	// zero value, and what a wire string that is valid JSON decodes to; the
	// text is kept byte for byte.
	WireJSONText WireForm = iota
	// WireString: the value is a JSON string and the wire string is that
	// string, as in "content":"sunny" for the Output "sunny". A wire string
	// that is not valid JSON decodes to this. If the value is not a JSON
	// string (a caller replaced it), it is written as WireJSONText.
	WireString
	// WireValue: the wire carries the value itself, not a string: a tool
	// message whose content is an array of blocks, or "arguments" sent as
	// an object by a non-conforming client.
	WireValue
)

// Part is one block of a structured message, shaped like a part of a Vercel
// AI SDK UIMessage so that such messages decode with plain encoding/json.
// Parts also model what an OpenAI message holds beside its content string:
// content blocks, tool calls and a tool message's result (see [Message]).
//
// Decoding keeps every JSON member: the ones recap models land in the named
// fields, all others (providerMetadata, data, sourceId, ...) in Extra, so
// that encoding the Part again reproduces the input, member for member.
// A modelled string member whose value is "" or null is kept in Extra as
// well, so that its presence survives the round trip.
//
// A Part's own MarshalJSON and UnmarshalJSON use the UIMessage shape; the
// OpenAI shapes are written and read by [Message].
type Part struct {
	// Type is "text", "reasoning", "tool-call", "tool-result", "file",
	// "dynamic-tool", an AI SDK tool part "tool-<name>", an OpenAI block
	// type such as "image_url", an Anthropic "image" or "document", or any
	// other type.
	Type string
	// Text is the text of a text, reasoning or refusal part.
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
	// Wire is how an OpenAI message carries Input or Output; see WireForm.
	Wire WireForm
	// ErrorText is a failed tool call's error.
	ErrorText string
	// MediaType, Filename and URL describe a file part. For an OpenAI
	// block, MediaType is derived when decoding ("image/*" or a data URL's
	// type for image_url, "audio/<format>" for input_audio, a data URL's
	// type for file) and is not written.
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

// IsFile reports whether p is an attachment: a "file" part (of a UIMessage
// or an OpenAI file block), an OpenAI "image_url" or "input_audio" block,
// an Anthropic "image" block, or an Anthropic "document" block of a PDF or
// another file (not of plain text, which counts as its Text, nor of
// content blocks, which count as their JSON).
// [Message.Text] notes an attachment in a few words; what one costs in
// tokens is up to the counter.
func (p Part) IsFile() bool {
	switch p.Type {
	case PartFile, PartImageURL, PartInputAudio, PartImage:
		return true
	case PartDocument:
		return p.Text == "" && p.MediaType != ""
	}
	return false
}

// toolName returns the name of p's tool: ToolName, or the <name> of an AI
// SDK "tool-<name>" type.
func (p *Part) toolName() string {
	if p.ToolName != "" || !strings.HasPrefix(p.Type, "tool-") || p.Type == PartToolCall || p.Type == PartToolResult {
		return p.ToolName
	}
	return p.Type[len("tool-"):]
}

// Message is one chat message, in one of four JSON formats (see [Format]):
//
//   - FormatPlain, {"id","role","content"} (and "parts" if set): recap's
//     own form, the zero value.
//   - FormatUI, a Vercel AI SDK UIMessage {"id","role","parts"}.
//   - FormatOpenAI, an OpenAI Chat Completions message.
//   - FormatAnthropic, an Anthropic Messages API message (see
//     [DecodeAnthropicMessage] for its mapping).
//
// UnmarshalJSON picks the format from the input: a "parts" member makes it
// FormatUI; otherwise any OpenAI-only feature ("tool_calls",
// "tool_call_id", "function_call", "name", "refusal", "audio") makes it
// FormatOpenAI; a content array with a block only Anthropic has (a
// tool_use, tool_result, thinking, redacted_thinking or server tool block,
// an image or document with a "source") makes it FormatAnthropic; another
// content array, the role "developer" or the lack of an "id" member makes
// it FormatOpenAI; anything else is FormatPlain. A message whose JSON is
// the same in the OpenAI and Anthropic formats ({"role","content"}) reads
// as OpenAI's; [DecodeAnthropic] reads a whole chat as Anthropic's. MarshalJSON writes the
// message back in its Format from the modelled fields, so changes to
// Content or Parts show, and a decoded message that was not changed encodes
// to the same JSON value it came from (members may be reordered). Members
// recap does not model are kept in Extra, as for [Part].
//
// An OpenAI message maps onto the fields as follows. Its content string is
// Content, and a content array becomes Parts, one per block: "text" and
// "refusal" blocks are parts with Text; "image_url", "input_audio" and
// "file" blocks are file parts ([Part.IsFile]) with URL ("image_url.url",
// "file.file_data"), Filename ("file.filename") and a derived MediaType;
// the other members of a block, such as "detail", stay in the part's Extra
// (a nested object's other members in Extra under the object's name);
// a block of another type is a part of that type with its "text" member,
// if any, as Text and its other members in Extra. Each of "tool_calls" is
// a "tool-call" part with ToolCallID ("id"), ToolName ("function.name")
// and Input ("function.arguments", see [WireForm]); its "type" is implied
// when it is "function" and kept in Extra otherwise (a "custom" call's
// "custom.name" and "custom.input" are modelled alike), and a tool call
// without a "type" is an error. A tool message's content is the Output of one
// "tool-result" part, with its "tool_call_id" as ToolCallID. "refusal" is
// Refusal. "name", "audio" and "function_call" stay in Extra, uncounted.
// An "id" member sets ID and also stays in Extra: in FormatOpenAI, ID is
// recap's handle on the message and is never written itself, so that no
// "id" is added to a message that had none (see [ChainIDs]).
//
// Writing FormatOpenAI, "tool-call" parts make "tool_calls", a
// "tool-result" part makes "tool_call_id" and "content", and the other
// parts make a content array, led by a text block of Content if Content is
// set. A message with more than one "tool-result" part, or with one whose
// Output is set beside content blocks or Content, cannot be written.
//
// A message's content is Content, Refusal and Parts together: see
// [Message.Text].
type Message struct {
	// ID identifies the message in its chat. A message of a format
	// without IDs, all but FormatUI, may have none: [Compressor.Plan] and
	// [Compressor.Compress] then work with the ID that [ChainIDs] derives
	// for it, and give the message back without it. In FormatOpenAI, ID is
	// not written (see above).
	ID string
	// Role is the message's author.
	Role Role
	// Content is the message's text: the "content" string.
	Content string
	// Refusal is an OpenAI assistant's refusal: the "refusal" string.
	Refusal string
	Parts   []Part
	// Format is the message's wire format. UnmarshalJSON sets it.
	Format Format
	// Extra holds the JSON members recap does not model (metadata,
	// createdAt, name, ...), by name.
	Extra map[string]json.RawMessage
}

// NewTextMessage returns a message of one text in the given format, as a
// client of that format would send it: for FormatUI, a single text part
// (a UIMessage has no content; the AI SDK rejects one); otherwise Content.
// For FormatOpenAI, id is the message's ID but is not written, so it
// encodes as {"role","content"}.
func NewTextMessage(format Format, id string, role Role, text string) Message {
	m := Message{ID: id, Role: role, Format: format}
	if format == FormatUI {
		m.Parts = []Part{{Type: PartText, Text: text}}
	} else {
		m.Content = text
	}
	return m
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
	raw  *json.RawMessage // a raw JSON member,
	form *WireForm        // with raw: carried as an OpenAI wire string
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

// MarshalJSON encodes p as a UIMessage part: its modelled members first, in
// a fixed order, then the members of Extra sorted by name. A modelled
// member wins over an Extra member of the same name.
func (p Part) MarshalJSON() ([]byte, error) {
	return marshalObject(p.members(), p.Extra, nil)
}

// UnmarshalJSON decodes a JSON object into p as a UIMessage part, keeping
// unmodelled members in Extra.
func (p *Part) UnmarshalJSON(data []byte) error {
	if err := p.decodeUI(data); err != nil {
		return fmt.Errorf("recap: decode part: %w", err)
	}
	return nil
}

func (p *Part) decodeUI(data []byte) error {
	*p = Part{}
	raw, err := decodeObject(data)
	if err != nil {
		return err
	}
	p.Extra, err = decodeMembers(raw, p.members())
	return err
}

// members returns the modelled members of a plain or UI message.
func (m *Message) members() []member {
	return []member{
		{name: "id", str: &m.ID},
		{name: "role", str: (*string)(&m.Role)},
		{name: "content", str: &m.Content},
		{name: "refusal", str: &m.Refusal},
	}
}

// MarshalJSON encodes m in its Format (see [Message]), leaving out empty
// members. It fails for an unknown Format, for Input, Output or Extra
// values that are not valid JSON, and for an OpenAI message whose parts
// cannot be written (see [Message]).
func (m Message) MarshalJSON() ([]byte, error) {
	switch m.Format {
	case FormatOpenAI:
		return m.marshalOpenAI()
	case FormatAnthropic:
		return m.marshalAnthropic()
	case FormatPlain, FormatUI:
	default:
		return nil, fmt.Errorf("recap: encode message %q: unknown format %v", m.ID, m.Format)
	}
	var parts json.RawMessage
	if m.Parts != nil {
		b, err := json.Marshal(m.Parts)
		if err != nil {
			return nil, err
		}
		parts = b
	} else if _, ok := m.Extra["parts"]; !ok && m.Format == FormatUI {
		parts = json.RawMessage("[]")
	}
	return marshalObject(m.members(), m.Extra, parts)
}

// UnmarshalJSON decodes a JSON object into m, picking its Format (see
// [Message]) and keeping unmodelled members in Extra. It fails, with an
// error starting "recap: decode message", for JSON that is not an object,
// content that is not a string, null or an array of objects (a string or
// null in a UIMessage), and modelled members of the wrong type.
func (m *Message) UnmarshalJSON(data []byte) error {
	*m = Message{}
	raw, err := decodeObject(data)
	if err != nil {
		return fmt.Errorf("recap: decode message: %w", err)
	}
	m.Format = detectFormat(raw)
	switch m.Format {
	case FormatOpenAI:
		err = m.decodeOpenAI(raw)
	case FormatAnthropic:
		err = m.decodeAnthropic(raw)
	default:
		err = m.decodeUI(raw)
	}
	if err != nil {
		return fmt.Errorf("recap: decode message: %w", err)
	}
	return nil
}

// openAIOnly are the members that only an OpenAI message has.
var openAIOnly = [...]string{"tool_calls", "tool_call_id", "function_call", "name", "refusal", "audio"}

// detectFormat returns the Format of a message object (see [Message]).
func detectFormat(raw map[string]json.RawMessage) Format {
	if _, ok := raw["parts"]; ok {
		return FormatUI
	}
	for _, name := range openAIOnly {
		// (Checked before the content: an OpenAI message may hold any
		// block, and an Anthropic one has none of these.)
		if _, ok := raw[name]; ok {
			return FormatOpenAI
		}
	}
	if content := raw["content"]; jsonKind(content) == '[' {
		var blocks []json.RawMessage
		_ = json.Unmarshal(content, &blocks) // not an array of blocks: an error of decodeOpenAI
		for _, b := range blocks {
			if anthropicSign(b) {
				return FormatAnthropic
			}
		}
		return FormatOpenAI
	}
	if role, ok := raw["role"]; ok {
		var r string
		if json.Unmarshal(role, &r) == nil && Role(r) == RoleDeveloper {
			return FormatOpenAI
		}
	}
	if _, ok := raw["id"]; !ok {
		return FormatOpenAI
	}
	return FormatPlain
}

// decodeUI decodes a plain or UI message object.
func (m *Message) decodeUI(raw map[string]json.RawMessage) error {
	if v, ok := raw["parts"]; ok && jsonKind(v) != 'n' {
		elems, err := objectArray(v)
		if err != nil {
			return fmt.Errorf("member \"parts\": %w", err)
		}
		m.Parts = make([]Part, len(elems))
		for i, e := range elems {
			if err := m.Parts[i].decodeUI(e); err != nil {
				return fmt.Errorf("part %d: %w", i, err)
			}
		}
		delete(raw, "parts")
	}
	if k := jsonKind(raw["content"]); k != 0 && k != '"' && k != 'n' {
		if m.Format == FormatUI {
			return fmt.Errorf("member \"content\": want a string or null in a UIMessage, got %s", abbrev(raw["content"]))
		}
		// An array would have made the message OpenAI's.
		return fmt.Errorf("member \"content\": want a string, null or an array of objects, got %s", abbrev(raw["content"]))
	}
	extra, err := decodeMembers(raw, m.members())
	m.Extra = extra
	return err
}

// decodeObject decodes a JSON object into a map of its members.
func decodeObject(data []byte) (map[string]json.RawMessage, error) {
	if jsonKind(data) != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", abbrev(data))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// objectArray splits a JSON array of objects into its elements.
func objectArray(v json.RawMessage) ([]json.RawMessage, error) {
	var elems []json.RawMessage
	if jsonKind(v) != '[' || json.Unmarshal(v, &elems) != nil {
		return nil, fmt.Errorf("want an array of objects, got %s", abbrev(v))
	}
	for i, e := range elems {
		if jsonKind(e) != '{' {
			return nil, fmt.Errorf("want an array of objects, got %s at %d", abbrev(e), i)
		}
	}
	return elems, nil
}

// jsonKind returns the first byte of a JSON value after white space: '{',
// '[', '"', 'n' (null), 't', 'f', a digit or '-', or 0 if v is empty.
func jsonKind(v []byte) byte {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// abbrev returns v for an error message, cut to 40 characters.
func abbrev(v []byte) string {
	s := strings.TrimSpace(string(v))
	if s == "" {
		return "nothing"
	}
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "..."
	}
	return s
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
			if m.form != nil {
				*m.raw, *m.form = decodeWire(v)
			}
			delete(raw, m.name)
			continue
		}
		if jsonKind(v) == 'n' {
			continue // kept in Extra: an explicit null
		}
		if jsonKind(v) != '"' || json.Unmarshal(v, m.str) != nil {
			return nil, fmt.Errorf("member %q: want a string, got %s", m.name, abbrev(v))
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
			v := []byte(*m.raw)
			if !json.Valid(v) {
				return nil, fmt.Errorf("recap: encode member %q: invalid JSON %q", m.name, v)
			}
			if m.form != nil {
				v = encodeWire(v, *m.form)
			}
			put(m.name, v)
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

// pinned reports whether r is a role of the app's prompt.
func (r Role) pinned() bool { return r == RoleSystem || r == RoleDeveloper }

// idless reports whether m comes from a wire format without message IDs
// (an OpenAI or Anthropic message that had no "id"), so that its ID was
// made up.
func (m Message) idless() bool {
	_, wire := m.Extra["id"]
	return (m.Format == FormatOpenAI || m.Format == FormatAnthropic) && !wire
}
