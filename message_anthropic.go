package recap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// This file reads and writes Anthropic Messages API messages and the
// "system" of a request; see DecodeAnthropic for the mapping.

// Anthropic block types that map onto recap's part types of another name.
const (
	anthropicText       = "text"
	anthropicThinking   = "thinking"
	anthropicToolUse    = "tool_use"
	anthropicToolResult = "tool_result"
)

// DecodeAnthropic decodes an Anthropic Messages API chat into recap
// messages of [FormatAnthropic]: data is either the request's "messages"
// array, or a request body, an object whose "system" (optional) and
// "messages" it reads, ignoring its other members (model, tools, ...).
// The system prompt comes first, as [DecodeAnthropicSystem] decodes it,
// then one message per element of "messages", as
// [DecodeAnthropicMessage] decodes it. The messages have no IDs: recap
// derives them as [ChainIDs] does. Errors start "recap: decode anthropic"
// and name the message and block at fault.
func DecodeAnthropic(data []byte) ([]Message, error) {
	var system, messages json.RawMessage
	switch jsonKind(data) {
	case '[':
		messages = data
	case '{':
		raw, err := decodeObject(data)
		if err != nil {
			return nil, fmt.Errorf("recap: decode anthropic: %w", err)
		}
		var ok bool
		if messages, ok = raw["messages"]; !ok || jsonKind(messages) != '[' {
			return nil, fmt.Errorf("recap: decode anthropic: want a \"messages\" array in the request, got %s", abbrev(messages))
		}
		system = raw["system"]
	default:
		return nil, fmt.Errorf("recap: decode anthropic: want a messages array or a request object, got %s", abbrev(data))
	}
	msgs, err := DecodeAnthropicSystem(system)
	if err != nil {
		return nil, err
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(messages, &elems); err != nil {
		return nil, fmt.Errorf("recap: decode anthropic: messages: %w", err)
	}
	for i, e := range elems {
		m, err := DecodeAnthropicMessage(e)
		if err != nil {
			return nil, fmt.Errorf("recap: decode anthropic: message %d: %w", i, unprefixed(err))
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// unprefixed returns err without the "recap: decode message: " its text
// starts with, for an error that names the message itself.
func unprefixed(err error) error {
	s, ok := strings.CutPrefix(err.Error(), "recap: decode message: ")
	if !ok {
		return err
	}
	return errors.New(s)
}

// DecodeAnthropicSystem decodes the "system" of an Anthropic Messages API
// request into pinned system messages of [FormatAnthropic]: a string into
// one message whose Content it is, an array of blocks into one message per
// block, whose only part is the block (its cache_control kept in the
// part's Extra). An absent or null system (len(data) == 0, or "null") is
// no message. [EncodeAnthropic] writes them back as they came.
func DecodeAnthropicSystem(data []byte) ([]Message, error) {
	switch jsonKind(data) {
	case 0, 'n':
		return nil, nil
	case '"':
		m := Message{Role: RoleSystem, Format: FormatAnthropic}
		if err := json.Unmarshal(data, &m.Content); err != nil {
			return nil, fmt.Errorf("recap: decode anthropic: system: %w", err)
		}
		return []Message{m}, nil
	}
	elems, err := objectArray(data)
	if err != nil {
		return nil, fmt.Errorf("recap: decode anthropic: system: want a string or an array of blocks: %w", err)
	}
	msgs := make([]Message, len(elems))
	for i, e := range elems {
		m := Message{Role: RoleSystem, Format: FormatAnthropic, Parts: make([]Part, 1)}
		if err := m.Parts[0].decodeAnthropic(e); err != nil {
			return nil, fmt.Errorf("recap: decode anthropic: system block %d: %w", i, err)
		}
		msgs[i] = m
	}
	return msgs, nil
}

// DecodeAnthropicMessage decodes one element of an Anthropic Messages API
// request's "messages" into a message of [FormatAnthropic]; the message's
// UnmarshalJSON does the same for an object that holds a block only
// Anthropic has (tool_use, tool_result, thinking...).
//
// A content string is Content, a content array Parts, one per block:
//
//   - "text" is a PartText part, its "text" the Text;
//   - "thinking" is a PartReasoning part, its "thinking" the Text (its
//     signature in Extra);
//   - "tool_use" is a PartToolCall part: "id" the ToolCallID, "name" the
//     ToolName, "input" the Input ([WireValue]); a server tool's call
//     ("server_tool_use", "mcp_tool_use", any "*_tool_use") is one too,
//     with its "type" kept in Extra;
//   - "tool_result" is a PartToolResult part: "tool_use_id" the
//     ToolCallID, "content" the Output (a string as [WireString], blocks as
//     [WireValue]); a server tool's result ("web_search_tool_result",
//     "mcp_tool_result", any "*_tool_result") is one too, with its "type"
//     kept in Extra;
//   - "image" is a PartImage part and "document" a PartDocument part, file
//     parts ([Part.IsFile]) counted by WithMediaTokens, with the source's
//     data, URL or file ID as URL, the document's "title" as Filename and
//     a MediaType derived from the source (not written); a document of
//     plain text has its text as Text instead, and counts it;
//   - a block of any other type ("redacted_thinking", "search_result", a
//     type newer than recap) is a part of that type with its "text", if
//     any, as Text; recap counts it as its JSON (see [Message.Text]),
//     except redacted_thinking, which counts nothing (Claude does not read
//     the thinking of earlier turns).
//
// Every other member of a block or message (cache_control, citations,
// is_error, signature, ...) stays in Extra, so that the message encodes to
// the same JSON value: byte for byte if it came compact with its members
// in the order of the API's documentation (role, content; a block's type,
// source and modelled members, then the others by name), and in any case
// from its second encoding on. A user
// message that holds a "tool_result" block is a RoleTool message, its
// other blocks (text beside the results) parts of it in their order: a
// tool message is never the start of a turn or of the window, so a cut
// never separates a result from the tool_use before it; it is written
// back with the role "user". An "id" member sets ID and stays in Extra,
// as for [FormatOpenAI].
func DecodeAnthropicMessage(data []byte) (Message, error) {
	var m Message
	raw, err := decodeObject(data)
	if err == nil {
		err = m.decodeAnthropic(raw)
	}
	if err != nil {
		return Message{}, fmt.Errorf("recap: decode message: %w", err)
	}
	return m, nil
}

// decodeAnthropic decodes an Anthropic message object.
func (m *Message) decodeAnthropic(raw map[string]json.RawMessage) error {
	*m = Message{Format: FormatAnthropic}
	if v, ok := raw["id"]; ok && jsonKind(v) != 'n' {
		if jsonKind(v) != '"' || json.Unmarshal(v, &m.ID) != nil {
			return fmt.Errorf("member \"id\": want a string, got %s", abbrev(v))
		}
	}
	ms := []member{{name: "role", str: (*string)(&m.Role)}}
	content := raw["content"]
	switch jsonKind(content) {
	case 0, '"', 'n':
		ms = append(ms, member{name: "content", str: &m.Content})
	case '[':
		elems, err := objectArray(content)
		if err != nil {
			return fmt.Errorf("member \"content\": %w", err)
		}
		for i, e := range elems {
			var p Part
			if err := p.decodeAnthropic(e); err != nil {
				return fmt.Errorf("content block %d: %w", i, err)
			}
			m.Parts = append(m.Parts, p)
		}
		if len(elems) > 0 {
			delete(raw, "content")
		} // else [] is kept in Extra
	default:
		return fmt.Errorf("member \"content\": want a string, null or an array of blocks, got %s", abbrev(content))
	}
	extra, err := decodeMembers(raw, ms)
	m.Extra = extra
	if err != nil {
		return err
	}
	if m.Role == RoleTool {
		return fmt.Errorf("role %q is not an Anthropic role (a tool result is a user message's tool_result block)", m.Role)
	}
	if m.Role == RoleUser {
		for i := range m.Parts {
			if m.Parts[i].anthropicType() == anthropicToolResult {
				m.Role = RoleTool
				break
			}
		}
	}
	return nil
}

// marshalAnthropic encodes m as an Anthropic message: the role (RoleTool
// as "user"), then the content: Content as a string, or, beside parts or
// a Refusal, blocks led by a text block of Content.
func (m Message) marshalAnthropic() ([]byte, error) {
	role := string(m.Role)
	if m.Role == RoleTool {
		role = "user"
	}
	var content json.RawMessage
	if len(m.Parts) > 0 || m.Refusal != "" {
		blocks, err := m.anthropicBlocks()
		if err != nil {
			return nil, err
		}
		content = joinArray(blocks)
	} else if m.Content != "" {
		content, _ = json.Marshal(m.Content) // a string always marshals
	}
	return marshalObject([]member{
		{name: "role", str: &role},
		{name: "content", raw: &content},
	}, m.Extra, nil)
}

// anthropicBlocks returns m's content as Anthropic blocks: a text block
// of Content and one of Refusal if set, then a block per part.
func (m Message) anthropicBlocks() ([][]byte, error) {
	blocks := make([][]byte, 0, len(m.Parts)+2)
	for _, s := range [...]string{m.Content, m.Refusal} {
		if s != "" {
			b, err := (&Part{Type: PartText, Text: s}).marshalAnthropic()
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, b)
		}
	}
	for i := range m.Parts {
		b, err := m.Parts[i].marshalAnthropic()
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// anthropicKind returns the part type of an Anthropic block of type typ.
func anthropicKind(typ string) string {
	switch {
	case typ == anthropicText:
		return PartText
	case typ == anthropicThinking:
		return PartReasoning
	case strings.HasSuffix(typ, anthropicToolUse):
		return PartToolCall
	case strings.HasSuffix(typ, anthropicToolResult):
		return PartToolResult
	}
	return typ
}

// anthropicType returns the Anthropic block type of p: the "type" in its
// Extra for a server tool's call or result, else the type its Type maps
// to.
func (p *Part) anthropicType() string {
	switch p.Type {
	case PartText:
		return anthropicText
	case PartReasoning:
		return anthropicThinking
	case PartToolCall, PartToolResult:
		var typ string
		if v, ok := p.Extra["type"]; ok && json.Unmarshal(v, &typ) == nil && anthropicKind(typ) == p.Type {
			return typ
		}
		if p.Type == PartToolCall {
			return anthropicToolUse
		}
		return anthropicToolResult
	}
	return p.Type
}

// serverTool reports whether p is an Anthropic server tool's call or
// result (server_tool_use, web_search_tool_result, ...): a tool part whose
// block type is kept in Extra.
func (p *Part) serverTool() bool {
	_, ok := p.Extra["type"]
	return ok && (p.Type == PartToolResult || p.Type == PartToolCall) && anthropicKind(p.anthropicType()) == p.Type &&
		p.anthropicType() != anthropicToolUse && p.anthropicType() != anthropicToolResult
}

// anthropicMembers returns the modelled members of an Anthropic block of
// part type kind, beside "type".
func (p *Part) anthropicMembers(kind string) []member {
	switch kind {
	case PartReasoning:
		return []member{{name: "thinking", str: &p.Text}}
	case PartToolCall:
		return []member{{name: "id", str: &p.ToolCallID}, {name: "name", str: &p.ToolName}, {name: "input", raw: &p.Input}}
	case PartToolResult:
		return []member{{name: "tool_use_id", str: &p.ToolCallID}}
	case PartImage:
		return nil
	case PartDocument:
		return []member{{name: "title", str: &p.Filename}}
	}
	return []member{{name: "text", str: &p.Text}}
}

// sourceMembers returns the modelled members of the "source" of an image
// or document block, by the source's type.
func (p *Part) sourceMembers(srcType string) []member {
	switch srcType {
	case "base64":
		return []member{{name: "data", str: &p.URL}}
	case "url":
		return []member{{name: "url", str: &p.URL}}
	case "file":
		return []member{{name: "file_id", str: &p.URL}}
	case "text":
		if p.Type == PartDocument {
			return []member{{name: "data", str: &p.Text}}
		}
	}
	return nil
}

// source returns the type and media type of the "source" object in extra.
func source(extra map[string]json.RawMessage) (typ, mediaType string) {
	var src struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
	}
	_ = json.Unmarshal(extra["source"], &src) // absent or odd: no types
	return src.Type, strings.ToLower(src.MediaType)
}

// decodeAnthropic decodes an Anthropic content block into p.
func (p *Part) decodeAnthropic(data json.RawMessage) error {
	*p = Part{}
	raw, err := decodeObject(data)
	if err != nil {
		return err
	}
	var typ string
	if v, ok := raw["type"]; !ok || jsonKind(v) != '"' || json.Unmarshal(v, &typ) != nil || typ == "" {
		return fmt.Errorf("want a \"type\" string, got %s", abbrev(v))
	}
	kind := anthropicKind(typ)
	if kind == typ && (typ == PartToolCall || typ == PartToolResult || typ == PartReasoning) {
		return fmt.Errorf("type %q is not an Anthropic block", typ)
	}
	p.Type = kind
	if server := (kind == PartToolCall || kind == PartToolResult) && typ != anthropicToolUse && typ != anthropicToolResult; !server {
		delete(raw, "type") // a server tool's block keeps it in Extra
	}
	if kind == PartToolResult {
		if v, ok := raw["content"]; ok && jsonKind(v) != 'n' {
			p.Output, p.Wire = v, WireValue
			if jsonKind(v) == '"' {
				p.Wire = WireString // counted as its string
			}
			delete(raw, "content")
		}
	}
	if p.Extra, err = decodeMembers(raw, p.anthropicMembers(kind)); err != nil {
		return err
	}
	if kind == PartToolCall && p.Input != nil {
		p.Wire = WireValue
	}
	if kind == PartImage || kind == PartDocument {
		return p.decodeSource()
	}
	return nil
}

// decodeSource decodes the source of an image or document part p and
// derives its MediaType.
func (p *Part) decodeSource() error {
	srcType, mt := source(p.Extra)
	var err error
	if sub := p.sourceMembers(srcType); sub != nil {
		if p.Extra, err = decodeNested(p.Extra, "source", sub); err != nil {
			return err
		}
	}
	switch {
	case mt != "":
		p.MediaType = mt
	case p.Type == PartImage:
		p.MediaType = "image/*"
	case srcType == "text":
		p.MediaType = "text/plain"
	case srcType != "content":
		p.MediaType = "application/pdf"
	}
	return nil
}

// marshalAnthropic encodes p as an Anthropic content block.
func (p *Part) marshalAnthropic() ([]byte, error) {
	q := *p // the members point into q
	typ := q.anthropicType()
	ms := []member{{name: "type", str: &typ}}
	if q.Type == PartImage || q.Type == PartDocument {
		src, err := q.anthropicSource()
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{name: "source", raw: &src})
	}
	ms = append(ms, q.anthropicMembers(q.Type)...)
	if q.Type == PartToolResult && q.Output != nil {
		if !json.Valid(q.Output) {
			return nil, fmt.Errorf("recap: encode member %q: invalid JSON %q", "content", q.Output)
		}
		form := q.Wire
		if form == WireJSONText && jsonKind(q.Output) == '[' {
			form = WireValue // blocks, from a tool message of another format
		}
		content := encodeWire(q.Output, form)
		ms = append(ms, member{name: "content", raw: &content})
	}
	return marshalObject(ms, q.Extra, nil)
}

// anthropicSource returns the "source" of an image or document part p:
// the one in Extra with the modelled members set in it, in the order the
// API's documentation writes them ("type", "media_type", then the data,
// URL or file ID, then the others), so that a source written so comes
// back byte for byte; nil if there is none.
func (p *Part) anthropicSource() (json.RawMessage, error) {
	base := p.Extra["source"]
	srcType, _ := source(p.Extra)
	sub := p.sourceMembers(srcType)
	set := false
	for _, m := range sub {
		set = set || *m.str != ""
	}
	if !set {
		return base, nil
	}
	var extra map[string]json.RawMessage
	if jsonKind(base) == '{' {
		if err := json.Unmarshal(base, &extra); err != nil {
			return nil, fmt.Errorf("recap: encode member \"source\": invalid JSON %q", base)
		}
	}
	var ms []member
	for _, k := range [...]string{"type", "media_type"} {
		if v, ok := extra[k]; ok {
			ms = append(ms, member{name: k, raw: &v})
		}
	}
	return marshalObject(append(ms, sub...), extra, nil)
}

// EncodeAnthropic writes msgs, such as a Compress payload, as an Anthropic
// Messages API request's "system" and "messages", whatever their Format.
// The leading system and developer messages (the pinned prompt, and a
// summary of the default summary role) make system: a string if there is
// one and it has Content only, as DecodeAnthropicSystem decodes a string,
// else an array of text blocks (each message's Content, then its parts);
// system is nil if there are none. Every other message is an element of
// messages, written as its MarshalJSON writes a [FormatAnthropic] message
// (a message of another format from its modelled fields only, its Extra
// left out); a system message after the conversation started keeps the
// role "system". Both are compact JSON. Messages decoded by
// [DecodeAnthropic] come back as the same JSON values, and byte for byte
// from the second round trip on. msgs is not modified.
//
// Keep the default summary role (WithSummaryRole) for Anthropic chats: the
// summary is then the last system block, which a client may mark with a
// cache_control breakpoint and which is known again when it comes back as
// a system block; a user-role summary is a user message before the
// window's first, which the API joins to it.
func EncodeAnthropic(msgs []Message) (system, messages json.RawMessage, err error) {
	n := 0
	for n < len(msgs) && msgs[n].Role.pinned() {
		n++
	}
	switch {
	case n == 1 && len(msgs[0].Parts) == 0 && msgs[0].Refusal == "" && msgs[0].Extra == nil:
		system, _ = json.Marshal(msgs[0].Content) // a string always marshals
	case n > 0:
		var blocks [][]byte
		for _, m := range msgs[:n] {
			b, err := m.anthropicBlocks()
			if err != nil {
				return nil, nil, fmt.Errorf("recap: encode anthropic: system message %d: %w", len(blocks), err)
			}
			blocks = append(blocks, b...)
		}
		system = joinArray(blocks)
	}
	elems := make([][]byte, 0, len(msgs)-n)
	for i, m := range msgs[n:] {
		if m.Format != FormatAnthropic {
			m = m.modelledOnly()
		}
		b, err := m.marshalAnthropic()
		if err != nil {
			return nil, nil, fmt.Errorf("recap: encode anthropic: message %d: %w", n+i, err)
		}
		elems = append(elems, b)
	}
	return compact(system), compact(joinArray(elems)), nil
}

// compact returns the JSON text b without insignificant white space, as
// json.Marshal writes it.
func compact(b []byte) json.RawMessage {
	if b == nil || !hasInsignificantSpace(b) {
		return b
	}
	var buf bytes.Buffer
	buf.Grow(len(b))
	_ = json.Compact(&buf, b) // valid: checked by marshalObject
	return buf.Bytes()
}

// modelledOnly returns m, a message of another format, as an Anthropic
// message of its modelled fields: without the members of its format that
// Extra keeps (an OpenAI tool call's "function", a UIMessage's metadata),
// which have no meaning in Anthropic's.
func (m Message) modelledOnly() Message {
	m.Format, m.Extra = FormatAnthropic, nil
	parts := make([]Part, len(m.Parts))
	for i, p := range m.Parts {
		p.Extra = nil
		parts[i] = p
	}
	if m.Parts != nil {
		m.Parts = parts
	}
	return m
}

// anthropicSign reports whether a content block holds what only an
// Anthropic message has: a tool_use, tool_result, thinking,
// redacted_thinking or server tool block, or an image or document with a
// "source".
func anthropicSign(block json.RawMessage) bool {
	var b struct {
		Type   string          `json:"type"`
		Source json.RawMessage `json:"source"`
	}
	if json.Unmarshal(block, &b) != nil {
		return false
	}
	switch {
	case b.Type == anthropicThinking, b.Type == "redacted_thinking",
		strings.HasSuffix(b.Type, anthropicToolUse), strings.HasSuffix(b.Type, anthropicToolResult):
		return true
	case b.Type == PartImage, b.Type == PartDocument:
		return b.Source != nil
	}
	return false
}
