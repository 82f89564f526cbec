package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/internal/jsonobj"
)

// Conversions between the Responses API's input items and recap messages.
// Each item is one message:
//
//   - a "message" item (with or without "type": the easy form
//     {"role","content"} too) is a message of its role, its content string
//     Content, its content array Parts: "input_text", "output_text" and
//     "refusal" parts with their text as Text; "input_image",
//     "input_file" and "input_audio" parts as file parts
//     ([recap.Part.IsFile], so recap counts them by WithMediaTokens, never
//     their bytes); other parts by their type;
//   - a "function_call" or "custom_tool_call" item is an assistant message
//     with one "tool-call" part (ToolCallID the call_id, ToolName the name,
//     Input the arguments or input); its output item
//     ("function_call_output", "custom_tool_call_output") is a tool message
//     with one "tool-result" part of the same ToolCallID, Output its output;
//   - any other item with a "call_id" is a tool call (an assistant
//     message) or, if its type ends in "_output", its result (a tool
//     message), named by its type, so that recap never separates the two;
//   - every other item (reasoning, web searches, MCP listings, item
//     references, ...) is an assistant message carried unchanged, whose
//     reasoning summary text, if any, is counted.
//
// Members recap does not model (id, status, type, encrypted_content,
// annotations, ...) stay in the message's Extra (a part's in the part's),
// so that converting back gives the item's JSON again. Items have no
// message IDs that recap could use (an item's "id" is optional and an
// item reference repeats another's), so the IDs come from
// [recap.ChainIDs], over the whole item.

// FromResponsesInput returns items as recap messages (see above), with IDs
// from [recap.ChainIDs]. An item without a type or role, or one whose
// known members have the wrong JSON type, is an error naming its index.
func FromResponsesInput(items responses.ResponseInputParam) ([]recap.Message, error) {
	out := make([]recap.Message, len(items))
	for i, it := range items {
		data, err := json.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("openai: item %d: %w", i, err)
		}
		if out[i], err = itemMessage(data); err != nil {
			return nil, fmt.Errorf("openai: item %d: %w", i, err)
		}
	}
	return recap.ChainIDs(out), nil
}

// ToResponsesInput returns msgs, such as a Compress payload of messages
// that FromResponsesInput made, as input items. A message of another
// origin (the summary the Compressor adds, a Chat Completions message)
// becomes what it is in the Responses API: a "message" item of its role
// and content, followed by a "function_call" item for each of its tool
// calls; a tool message a "function_call_output" item. A message that
// fits no item (a tool message without a tool result) is an error naming
// its index.
func ToResponsesInput(msgs []recap.Message) (responses.ResponseInputParam, error) {
	var out responses.ResponseInputParam
	for i, m := range msgs {
		items, err := messageItems(m)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d (%s): %w", i, m.ID, err)
		}
		for _, data := range items {
			var it responses.ResponseInputItemUnionParam
			if err := decodeItem(data, &it); err != nil {
				// A message without a type, which the SDK writes but
				// cannot read, or an item type it does not know: sent as
				// it is.
				var easy responses.EasyInputMessageParam
				if json.Unmarshal(data, &easy) == nil && easy.Role != "" {
					it = responses.ResponseInputItemUnionParam{OfMessage: &easy}
				} else {
					it = param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(data))
				}
			}
			exact(&it, data)
			out = append(out, it)
		}
	}
	return out, nil
}

// Item types with a meaning to the conversion.
const (
	itemTypeMessage    = "message"
	itemFunctionCall   = "function_call"
	itemFunctionOutput = "function_call_output"
	itemCustomCall     = "custom_tool_call"
	itemCustomOutput   = "custom_tool_call_output"
	itemReasoning      = "reasoning"
)

// itemMessage converts one item's JSON.
func itemMessage(data []byte) (recap.Message, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return recap.Message{}, err
	}
	typ, err := jsonobj.String(raw, "type")
	if err != nil {
		return recap.Message{}, err
	}
	m := recap.Message{Format: recap.FormatOpenAI}
	take := func(name string) json.RawMessage { // a modelled member, out of Extra
		v := raw[name]
		delete(raw, name)
		return v
	}
	_, hasCall := raw["call_id"]
	switch {
	case typ == "" || typ == itemTypeMessage:
		role, err := jsonobj.String(raw, "role")
		if err != nil || role == "" {
			return recap.Message{}, fmt.Errorf("a message item needs a role (%v)", err)
		}
		m.Role = recap.Role(role)
		take("role")
		if err := decodeContent(take("content"), &m); err != nil {
			return recap.Message{}, err
		}
	case typ == itemFunctionCall || typ == itemCustomCall || hasCall && !strings.HasSuffix(typ, "_output"):
		p := recap.Part{Type: recap.PartToolCall}
		if p.ToolCallID, err = jsonobj.String(raw, "call_id"); err != nil {
			return recap.Message{}, err
		}
		take("call_id")
		switch typ {
		case itemFunctionCall, itemCustomCall:
			if p.ToolName, err = jsonobj.String(raw, "name"); err != nil {
				return recap.Message{}, err
			}
			take("name")
			arg := "arguments"
			if typ == itemCustomCall {
				arg = "input"
			}
			s, err := jsonobj.String(raw, arg)
			if err != nil {
				return recap.Message{}, err
			}
			take(arg)
			p.Input, p.Wire = wireValue(s, typ == itemCustomCall)
		default:
			p.ToolName = typ // the call's own members stay in Extra
		}
		m.Role, m.Parts = recap.RoleAssistant, []recap.Part{p}
	case hasCall || typ == itemFunctionOutput || typ == itemCustomOutput:
		p := recap.Part{Type: recap.PartToolResult}
		if p.ToolCallID, err = jsonobj.String(raw, "call_id"); err != nil {
			return recap.Message{}, err
		}
		take("call_id")
		if out, ok := raw["output"]; ok {
			take("output")
			var s string
			if json.Unmarshal(out, &s) == nil {
				p.Output, p.Wire = jsonobj.Quote(s), recap.WireString
			} else {
				p.Output, p.Wire = out, recap.WireValue
			}
		}
		m.Role, m.Parts = recap.RoleTool, []recap.Part{p}
	default:
		m.Role = recap.RoleAssistant
		if typ == itemReasoning {
			if text := reasoningText(raw["summary"]); text != "" {
				m.Parts = []recap.Part{{Type: recap.PartReasoning, Text: text, Extra: map[string]json.RawMessage{opaqueMark: nil}}}
			}
		}
	}
	if len(raw) > 0 {
		m.Extra = raw
	}
	return m, nil
}

// opaqueMark, in the Extra of a part, marks a part that only shows recap
// what to count of an item carried unchanged; converting back leaves it
// out.
const opaqueMark = "\x00recap-count-only"

// decodeContent sets m's Content from a content string or its Parts from a
// content array.
func decodeContent(content json.RawMessage, m *recap.Message) error {
	if len(content) == 0 || string(content) == "null" {
		return nil
	}
	if content[0] == '"' {
		return json.Unmarshal(content, &m.Content)
	}
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(content, &blocks); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	m.Parts = []recap.Part{} // an empty array stays one
	for i, b := range blocks {
		typ, err := jsonobj.String(b, "type")
		if err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
		p := recap.Part{Type: typ}
		switch typ {
		case "input_text", "output_text":
			if p.Text, err = jsonobj.String(b, "text"); err != nil {
				return fmt.Errorf("content[%d]: %w", i, err)
			}
			delete(b, "text")
			delete(b, "type")
		case recap.PartRefusal:
			if p.Text, err = jsonobj.String(b, "refusal"); err != nil {
				return fmt.Errorf("content[%d]: %w", i, err)
			}
			delete(b, "refusal")
			delete(b, "type")
		case "input_image", "input_file", "input_audio":
			// A file part for recap; its members, type included, stay.
			p.Type, p.MediaType = recap.PartFile, mediaType(typ, b)
			if name, err := jsonobj.String(b, "filename"); err == nil {
				p.Filename = name // counted in the note; kept in Extra too
			}
		default:
			delete(b, "type")
		}
		if len(b) > 0 {
			p.Extra = b
		}
		m.Parts = append(m.Parts, p)
	}
	return nil
}

// mediaType derives the media type of a file block, for WithMediaTokens.
func mediaType(typ string, b map[string]json.RawMessage) string {
	switch typ {
	case "input_image":
		if u, _ := jsonobj.String(b, "image_url"); strings.HasPrefix(u, "data:") {
			if t, _, ok := strings.Cut(u[len("data:"):], ";"); ok {
				return t
			}
		}
		return "image/*"
	case "input_audio":
		if f, _ := jsonobj.String(b, "format"); f != "" {
			return "audio/" + f
		}
		return "audio/*"
	}
	if u, _ := jsonobj.String(b, "file_data"); strings.HasPrefix(u, "data:") {
		if t, _, ok := strings.Cut(u[len("data:"):], ";"); ok {
			return t
		}
	}
	return "application/octet-stream"
}

// messageItems returns the items of m.
func messageItems(m recap.Message) ([]json.RawMessage, error) {
	item := make(map[string]json.RawMessage, len(m.Extra)+4)
	for k, v := range m.Extra {
		item[k] = v
	}
	if m.Format != recap.FormatOpenAI {
		delete(item, "id") // a UIMessage's or plain message's own ID
	}
	typ, _ := jsonobj.String(item, "type")
	_, hasCall := item["call_id"]
	var calls []recap.Part
	var result *recap.Part
	for i := range m.Parts {
		switch m.Parts[i].Type {
		case recap.PartToolCall:
			calls = append(calls, m.Parts[i])
		case recap.PartToolResult:
			if result != nil {
				return nil, fmt.Errorf("more than one tool result")
			}
			result = &m.Parts[i]
		}
	}
	switch {
	case typ != "" && typ != itemTypeMessage && len(calls) == 1 && m.Role == recap.RoleAssistant:
		c := calls[0]
		item["call_id"] = jsonobj.Quote(c.ToolCallID)
		switch typ {
		case itemFunctionCall:
			item["name"], item["arguments"] = jsonobj.Quote(c.ToolName), jsonobj.Quote(wireString(c))
		case itemCustomCall:
			item["name"], item["input"] = jsonobj.Quote(c.ToolName), jsonobj.Quote(wireString(c))
		}
		return []json.RawMessage{jsonobj.Encode(item)}, nil
	case m.Role == recap.RoleTool:
		if result == nil {
			return nil, fmt.Errorf("a tool message without a tool result")
		}
		if typ == "" {
			item["type"] = jsonobj.Quote(itemFunctionOutput)
		}
		item["call_id"] = jsonobj.Quote(result.ToolCallID)
		if result.Output != nil {
			if result.Wire == recap.WireValue {
				item["output"] = result.Output
			} else {
				item["output"] = jsonobj.Quote(wireString(*result))
			}
		}
		return []json.RawMessage{jsonobj.Encode(item)}, nil
	case typ != "" && typ != itemTypeMessage || hasCall:
		return []json.RawMessage{jsonobj.Encode(item)}, nil // carried unchanged
	}
	// A message, and the calls of a Chat Completions assistant message.
	item["role"] = jsonobj.Quote(string(m.Role))
	content, err := encodeContent(m)
	if err != nil {
		return nil, err
	}
	if content != nil {
		item["content"] = content
	}
	var items []json.RawMessage
	if content != nil || len(calls) == 0 {
		items = append(items, jsonobj.Encode(item))
	}
	for _, c := range calls {
		items = append(items, jsonobj.Encode(map[string]json.RawMessage{
			"type": jsonobj.Quote(itemFunctionCall), "call_id": jsonobj.Quote(c.ToolCallID),
			"name": jsonobj.Quote(c.ToolName), "arguments": jsonobj.Quote(wireString(c)),
		}))
	}
	return items, nil
}

// encodeContent returns m's content: Content as a string if m has no
// other parts, else an array of Content as a text part and the parts.
func encodeContent(m recap.Message) (json.RawMessage, error) {
	var blocks []json.RawMessage
	textType := "input_text"
	if m.Role == recap.RoleAssistant {
		textType = "output_text"
	}
	n := 0
	for _, p := range m.Parts {
		if p.Type != recap.PartToolCall {
			n++
		}
	}
	if n == 0 && m.Parts == nil {
		if m.Content == "" && m.Refusal == "" {
			return nil, nil
		}
		if m.Refusal == "" {
			return jsonobj.Quote(m.Content), nil
		}
	}
	if m.Content != "" {
		blocks = append(blocks, jsonobj.Encode(map[string]json.RawMessage{"type": jsonobj.Quote(textType), "text": jsonobj.Quote(m.Content)}))
	}
	if m.Refusal != "" {
		blocks = append(blocks, jsonobj.Encode(map[string]json.RawMessage{"type": jsonobj.Quote(recap.PartRefusal), "refusal": jsonobj.Quote(m.Refusal)}))
	}
	for _, p := range m.Parts {
		b := make(map[string]json.RawMessage, len(p.Extra)+2)
		for k, v := range p.Extra {
			b[k] = v
		}
		switch p.Type {
		case recap.PartToolCall:
			continue
		case "input_text", "output_text":
			b["type"], b["text"] = jsonobj.Quote(p.Type), jsonobj.Quote(p.Text)
		case recap.PartText:
			b["type"], b["text"] = jsonobj.Quote(textType), jsonobj.Quote(p.Text)
		case recap.PartRefusal:
			b["type"], b["refusal"] = jsonobj.Quote(p.Type), jsonobj.Quote(p.Text)
		case recap.PartFile:
			if _, ok := b["type"]; !ok {
				return nil, fmt.Errorf("a file part of another format (%s %s) has no Responses form", p.MediaType, p.Filename)
			}
		case recap.PartToolResult:
			return nil, fmt.Errorf("a tool result in a %s message", m.Role)
		default:
			if _, ok := b[opaqueMark]; ok {
				continue
			}
			b["type"] = jsonobj.Quote(p.Type)
			if p.Text != "" {
				b["text"] = jsonobj.Quote(p.Text)
			}
		}
		blocks = append(blocks, jsonobj.Encode(b))
	}
	return jsonobj.Array(blocks), nil
}

// wireValue returns the Input of a call's string s: the JSON text s if it
// is valid JSON and not a custom call's free text, else s as a JSON
// string.
func wireValue(s string, custom bool) (json.RawMessage, recap.WireForm) {
	if !custom && json.Valid([]byte(s)) {
		return json.RawMessage(s), recap.WireJSONText
	}
	return jsonobj.Quote(s), recap.WireString
}

// wireString returns the wire string of a call's Input or a result's
// Output.
func wireString(p recap.Part) string {
	v := p.Input
	if p.Type == recap.PartToolResult {
		v = p.Output
	}
	if p.Wire == recap.WireString {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	if len(v) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil && p.Wire != recap.WireJSONText {
		return buf.String()
	}
	return string(v)
}

// reasoningText joins the texts of a reasoning item's summary.
func reasoningText(summary json.RawMessage) string {
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(summary, &parts) != nil {
		return ""
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// decodeItem decodes an item into the SDK's union, which panics on some
// inputs it cannot place.
func decodeItem(data []byte, it *responses.ResponseInputItemUnionParam) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the SDK cannot decode the item: %v", v)
		}
	}()
	return json.Unmarshal(data, it)
}
