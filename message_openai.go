package recap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file reads and writes OpenAI Chat Completions messages; see
// Message for the mapping.

// decodeOpenAI decodes an OpenAI message object.
func (m *Message) decodeOpenAI(raw map[string]json.RawMessage) error {
	// The id, if any, is kept in Extra: see Message.
	if v, ok := raw["id"]; ok && jsonKind(v) != 'n' {
		if jsonKind(v) != '"' || json.Unmarshal(v, &m.ID) != nil {
			return fmt.Errorf("member \"id\": want a string, got %s", abbrev(v))
		}
	}
	var role string
	if v, ok := raw["role"]; ok {
		_ = json.Unmarshal(v, &role) // a wrong type is reported by decodeMembers
	}
	content, hasContent := raw["content"]
	switch jsonKind(content) {
	case 0, '"', 'n':
	case '[':
		if _, err := objectArray(content); err != nil {
			return fmt.Errorf("member \"content\": want a string, null or an array of objects, got %s", abbrev(content))
		}
	default:
		return fmt.Errorf("member \"content\": want a string, null or an array of objects, got %s", abbrev(content))
	}

	ms := []member{{name: "role", str: (*string)(&m.Role)}, {name: "refusal", str: &m.Refusal}}
	switch {
	case Role(role) == RoleTool:
		res := Part{Type: PartToolResult}
		if hasContent && jsonKind(content) != 'n' {
			res.Output, res.Wire = decodeWire(content)
			delete(raw, "content")
		}
		if _, err := decodeMembers(raw, []member{{name: "tool_call_id", str: &res.ToolCallID}}); err != nil {
			return err
		}
		if res.Output != nil || res.ToolCallID != "" {
			m.Parts = append(m.Parts, res)
		}
	case jsonKind(content) == '[':
		elems, _ := objectArray(content) // checked above
		for i, e := range elems {
			var p Part
			if err := p.decodeBlock(e); err != nil {
				return fmt.Errorf("content block %d: %w", i, err)
			}
			m.Parts = append(m.Parts, p)
		}
		if len(elems) > 0 {
			delete(raw, "content")
		} // else [] is kept in Extra
	default:
		ms = append(ms, member{name: "content", str: &m.Content})
	}

	if v, ok := raw["tool_calls"]; ok && jsonKind(v) != 'n' {
		elems, err := objectArray(v)
		if err != nil {
			return fmt.Errorf("member \"tool_calls\": %w", err)
		}
		for i, e := range elems {
			var p Part
			if err := p.decodeToolCall(e); err != nil {
				return fmt.Errorf("tool call %d: %w", i, err)
			}
			m.Parts = append(m.Parts, p)
		}
		if len(elems) > 0 {
			delete(raw, "tool_calls")
		} // else [] is kept in Extra
	}

	extra, err := decodeMembers(raw, ms)
	m.Extra = extra
	return err
}

// marshalOpenAI encodes m as an OpenAI message.
func (m Message) marshalOpenAI() ([]byte, error) {
	var result *Part
	var nBlocks, nCalls int
	for i := range m.Parts {
		switch m.Parts[i].Type {
		case PartToolCall:
			nCalls++
		case PartToolResult:
			if result != nil {
				return nil, fmt.Errorf("recap: encode message %q: an OpenAI message has at most one tool-result part", m.ID)
			}
			result = &m.Parts[i]
		default:
			nBlocks++
		}
	}

	var content, calls json.RawMessage
	var callID string
	if result != nil {
		callID = result.ToolCallID
		if result.Output != nil {
			if nBlocks > 0 || m.Content != "" {
				return nil, fmt.Errorf("recap: encode message %q: an OpenAI tool result's Output cannot sit beside Content or content blocks", m.ID)
			}
			if !json.Valid(result.Output) {
				return nil, fmt.Errorf("recap: encode member %q: invalid JSON %q", "content", result.Output)
			}
			content = encodeWire(result.Output, result.Wire)
		}
	}
	if nBlocks > 0 {
		elems := make([][]byte, 0, nBlocks+1)
		if m.Content != "" {
			b, err := (&Part{Type: PartText, Text: m.Content}).marshalBlock()
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		for i := range m.Parts {
			if t := m.Parts[i].Type; t == PartToolCall || t == PartToolResult {
				continue
			}
			b, err := m.Parts[i].marshalBlock()
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		content = joinArray(elems)
	} else if content == nil && m.Content != "" {
		content, _ = json.Marshal(m.Content) // a string always marshals
	}
	if nCalls > 0 {
		elems := make([][]byte, 0, nCalls)
		for i := range m.Parts {
			if m.Parts[i].Type != PartToolCall {
				continue
			}
			b, err := m.Parts[i].marshalToolCall()
			if err != nil {
				return nil, err
			}
			elems = append(elems, b)
		}
		calls = joinArray(elems)
	}
	return marshalObject([]member{
		{name: "role", str: (*string)(&m.Role)},
		{name: "content", raw: &content},
		{name: "refusal", str: &m.Refusal},
		{name: "tool_calls", raw: &calls},
		{name: "tool_call_id", str: &callID},
	}, m.Extra, nil)
}

func joinArray(elems [][]byte) json.RawMessage {
	return json.RawMessage(append(append([]byte{'['}, bytes.Join(elems, []byte{','})...), ']'))
}

// blockMembers returns the modelled members of an OpenAI content block of
// type typ, and the name and modelled members of its nested object, if it
// has one.
func (p *Part) blockMembers(typ string) (top []member, nested string, sub []member) {
	top = []member{{name: "type", str: &p.Type}}
	switch typ {
	case PartImageURL:
		return top, "image_url", []member{{name: "url", str: &p.URL}}
	case PartFile:
		return top, "file", []member{{name: "file_data", str: &p.URL}, {name: "filename", str: &p.Filename}}
	case PartInputAudio:
		return top, "", nil
	case PartRefusal:
		return append(top, member{name: "refusal", str: &p.Text}), "", nil
	}
	// text, and a text member of any other block
	return append(top, member{name: "text", str: &p.Text}), "", nil
}

// decodeBlock decodes an OpenAI content block into p.
func (p *Part) decodeBlock(data json.RawMessage) error {
	*p = Part{}
	raw, err := decodeObject(data)
	if err != nil {
		return err
	}
	var typ string
	if v, ok := raw["type"]; ok {
		_ = json.Unmarshal(v, &typ) // a wrong type is reported by decodeMembers
	}
	if typ == PartToolCall || typ == PartToolResult {
		return fmt.Errorf("type %q is not a content block", typ)
	}
	top, nested, sub := p.blockMembers(typ)
	if p.Extra, err = decodeMembers(raw, top); err != nil {
		return err
	}
	if nested != "" {
		if p.Extra, err = decodeNested(p.Extra, nested, sub); err != nil {
			return err
		}
	}
	switch typ {
	case PartImageURL:
		if p.MediaType = dataURLType(p.URL); p.MediaType == "" {
			p.MediaType = "image/*"
		}
	case PartFile:
		p.MediaType = dataURLType(p.URL)
	case PartInputAudio:
		var audio struct{ Format string }
		if json.Unmarshal(p.Extra["input_audio"], &audio) == nil && audio.Format != "" {
			p.MediaType = "audio/" + audio.Format
		} else {
			p.MediaType = "audio/*"
		}
	}
	return nil
}

// marshalBlock encodes p as an OpenAI content block.
func (p *Part) marshalBlock() ([]byte, error) {
	q := *p // blockMembers points into q
	top, nested, sub := q.blockMembers(q.Type)
	if nested != "" {
		v, err := nestObject(q.Extra[nested], sub)
		if err != nil {
			return nil, err
		}
		top = append(top, member{name: nested, raw: &v})
	}
	return marshalObject(top, q.Extra, nil)
}

// toolCallMembers returns the modelled members of the nested object of an
// OpenAI tool call of the given kind (its "type"), or nil for an unknown
// kind.
func (p *Part) toolCallMembers(kind string) []member {
	switch kind {
	case "function":
		return []member{{name: "name", str: &p.ToolName}, {name: "arguments", raw: &p.Input, form: &p.Wire}}
	case "custom":
		return []member{{name: "name", str: &p.ToolName}, {name: "input", raw: &p.Input, form: &p.Wire}}
	}
	return nil
}

// decodeToolCall decodes an element of an OpenAI message's "tool_calls"
// into a "tool-call" part. Its "type" is implied when it is "function"
// and kept in Extra otherwise; it must be present, since a tool call
// without one could not be written back as it came.
func (p *Part) decodeToolCall(data json.RawMessage) error {
	*p = Part{}
	raw, err := decodeObject(data)
	if err != nil {
		return err
	}
	tv, ok := raw["type"]
	if !ok {
		return fmt.Errorf("want a \"type\" member")
	}
	var kind string
	if json.Unmarshal(tv, &kind) == nil && kind == "function" {
		delete(raw, "type")
	}
	if p.Extra, err = decodeMembers(raw, []member{{name: "id", str: &p.ToolCallID}}); err != nil {
		return err
	}
	if sub := p.toolCallMembers(kind); sub != nil {
		if p.Extra, err = decodeNested(p.Extra, kind, sub); err != nil {
			return err
		}
	}
	p.Type = PartToolCall
	return nil
}

// marshalToolCall encodes p as an element of "tool_calls": of type
// "function" unless Extra holds another "type".
func (p *Part) marshalToolCall() ([]byte, error) {
	q := *p // toolCallMembers points into q
	kind := "function"
	ms := []member{{name: "id", str: &q.ToolCallID}}
	if tv, ok := q.Extra["type"]; ok {
		kind = ""
		_ = json.Unmarshal(tv, &kind)
	} else {
		fn := json.RawMessage(`"function"`)
		ms = append(ms, member{name: "type", raw: &fn})
	}
	if sub := q.toolCallMembers(kind); sub != nil {
		v, err := nestObject(q.Extra[kind], sub)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{name: kind, raw: &v})
	}
	return marshalObject(ms, q.Extra, nil)
}

// decodeNested decodes the modelled members sub of the object extra[name],
// if it is an object, and leaves the rest of it in extra[name].
func decodeNested(extra map[string]json.RawMessage, name string, sub []member) (map[string]json.RawMessage, error) {
	v, ok := extra[name]
	if !ok || jsonKind(v) != '{' {
		return extra, nil
	}
	raw, err := decodeObject(v)
	if err != nil {
		return nil, err
	}
	rest, err := decodeMembers(raw, sub)
	if err != nil {
		return nil, fmt.Errorf("member %q: %w", name, err)
	}
	extra[name], err = marshalObject(nil, rest, nil)
	return extra, err
}

// nestObject returns the object base (if it is one) with the members sub
// set in it, or nil if none of sub is set, so that base is written as it
// is.
func nestObject(base json.RawMessage, sub []member) (json.RawMessage, error) {
	set := false
	for _, m := range sub {
		set = set || (m.str != nil && *m.str != "") || (m.raw != nil && *m.raw != nil)
	}
	if !set {
		return nil, nil
	}
	var extra map[string]json.RawMessage
	if jsonKind(base) == '{' {
		if err := json.Unmarshal(base, &extra); err != nil {
			return nil, fmt.Errorf("recap: encode member: invalid JSON %q", base)
		}
	}
	return marshalObject(sub, extra, nil)
}

// decodeWire returns the JSON value an OpenAI wire value v stands for,
// and how v carries it (see WireForm).
func decodeWire(v json.RawMessage) (json.RawMessage, WireForm) {
	var s string
	if jsonKind(v) != '"' || json.Unmarshal(v, &s) != nil {
		return v, WireValue
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s), WireJSONText
	}
	return v, WireString
}

// encodeWire returns the wire value that carries the valid JSON value v
// in the given form: the inverse of decodeWire.
func encodeWire(v json.RawMessage, form WireForm) json.RawMessage {
	switch {
	case form == WireValue, form == WireString && jsonKind(v) == '"':
		return v
	}
	b, _ := json.Marshal(string(v)) // a string always marshals
	return b
}

// dataURLType returns the media type of a data URL
// ("data:image/png;base64,..." has "image/png"), or "".
func dataURLType(url string) string {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, ";,"); i >= 0 {
		return rest[:i]
	}
	return ""
}
