package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/jsonobj"
)

// Conversions between the Responses API's input items and recap messages.
// The mapping keeps the core's rules true of the items: a cut that recap
// makes between messages is always a cut the API accepts.
//
//   - A "message" item (typed, or the easy form {"role","content"}) of
//     role user, system, developer or assistant is a message of its role,
//     so a user message starts a turn. Its content string is Content, its
//     content array Parts: "input_text", "output_text" and "refusal" parts
//     with their text as Text; "input_image", "input_file" and
//     "input_audio" parts as file parts ([recap.Part.IsFile], so recap
//     counts them by WithMediaTokens, never their bytes); other parts by
//     their type.
//   - A "function_call" or "custom_tool_call" item is an assistant message
//     with one "tool-call" part (ToolCallID the call_id, ToolName the name,
//     Input the arguments or input); its output item
//     ("function_call_output", "custom_tool_call_output") is a tool message
//     with one "tool-result" part of the same ToolCallID, Output its
//     output, which WithToolResultClearing may replace by a placeholder
//     string, as the API allows.
//   - Any other item is carried unchanged, as one part of its message that
//     holds the whole item: a call of another tool (an item with a
//     "call_id", such as "computer_call", "shell_call" or
//     "apply_patch_call", and "mcp_approval_request" by its "id") is an
//     assistant message whose part is a "tool-call" of that ToolCallID,
//     named by the item's type; its output (an item with a "call_id" whose
//     type ends in "_output", and "mcp_approval_response" by its
//     "approval_request_id") a tool message whose part is the
//     "tool-result", so that recap never separates the two. Such an
//     output is not the part's Output (a placeholder string would not be
//     a valid screenshot or shell output), so WithToolResultClearing
//     leaves it whole. Every other item (web
//     and file searches, MCP calls and listings, image generations, item
//     references, compactions...) is an assistant message (or one of the
//     item's "role", such as an "additional_tools" item's developer).
//   - A "reasoning" item travels with the item after it, which the API
//     requires ("reasoning was provided without its required following
//     item", and the reverse): it is a "reasoning" part placed first in
//     that item's message, when that item is the model's (an assistant
//     message of any of the kinds above: a call, an answer, a search...);
//     otherwise it is an assistant message of its own.
//
// A carried item's part counts, as its Text, what the model reads of it:
// a reasoning item's summary and content texts, any other item's JSON
// without its type, id, call_id, status, encrypted content and image
// data (a data: URL counts as a note, as an attachment does).
//
// Members recap does not model (id, status, type, annotations, ...) stay
// in the message's Extra (a content part's in the part's), so that
// converting back gives the item's JSON again: a string member that is ""
// or null, and a content that is null or an empty array, stay there too,
// so that their presence survives.
//
// Message IDs come from [recap.ChainIDs], over the whole items, never from
// an item's own "id": most input items have none (every user message, and
// outputs sent back without one), an "item_reference" repeats another
// item's, and the summary recap adds must have none, so that recap knows
// it by its content when a client sends it back (an item with an "id" in
// Extra is never taken for recap's summary). The chain IDs are stable as
// the chat grows and change from an edited item on.

// FromResponsesInput returns items as recap messages (see above), with IDs
// from [recap.ChainIDs]; a reasoning item shares the message of the item
// after it. items is not modified.
//
// An item the SDK cannot encode, one that is not a JSON object, a message
// item without a role or of a role the API does not know ("tool": a tool's
// output is a "function_call_output"), or one whose known members have the
// wrong JSON type, is an error naming its index.
func FromResponsesInput(items responses.ResponseInputParam) ([]recap.Message, error) {
	out := make([]recap.Message, 0, len(items))
	var pending []recap.Part // reasoning items that wait for the item after them
	for i, it := range items {
		data, err := json.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("openai: item %d: %w", i, err)
		}
		m, err := itemMessage(data)
		if err != nil {
			return nil, fmt.Errorf("openai: item %d: %w", i, err)
		}
		if reasoningOnly(m) {
			pending = append(pending, m.Parts[0])
			continue
		}
		if len(pending) > 0 && m.Role == recap.RoleAssistant {
			m.Parts = append(pending, m.Parts...)
			pending = nil
		}
		for _, p := range pending {
			out = append(out, reasoningMessage(p))
		}
		pending = nil
		out = append(out, m)
	}
	for _, p := range pending {
		out = append(out, reasoningMessage(p))
	}
	return recap.ChainIDs(out), nil
}

// ToResponsesInput returns msgs, such as a Compress payload of messages
// that FromResponsesInput made, as input items that encode to the JSON
// the items came as. A message of another origin becomes what it is in
// the Responses API: a "message" item of its role and content (the
// summary the Compressor adds: {"role":"system","content":...}, or
// "developer" if the payload has developer messages and no other system
// message), followed by a "function_call" item for each of its tool calls
// (a Chat Completions assistant message); a tool message a
// "function_call_output" item. Of a message in another format than
// [recap.FormatOpenAI] (a plain or UI message), the Extra members are left
// out.
//
// A message that fits no item (a tool message without a tool result, a
// role the API does not know, a part with no Responses form, such as a
// Chat Completions image block) is an error matching ErrNotConvertible and
// naming its index. msgs is not modified.
func ToResponsesInput(msgs []recap.Message) (responses.ResponseInputParam, error) {
	developer := summaryAsDeveloper(msgs)
	var out responses.ResponseInputParam
	for i, m := range msgs {
		if developer && isSummary(m) {
			m.Role = recap.RoleDeveloper
		}
		items, err := messageItems(m)
		if err != nil {
			return nil, fmt.Errorf("%w: message %d (%s): %w", ErrNotConvertible, i, m.ID, err)
		}
		for _, data := range items {
			if !json.Valid(data) {
				return nil, fmt.Errorf("%w: message %d (%s): invalid JSON in its Extra or a part's: %.60s", ErrNotConvertible, i, m.ID, data)
			}
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
	itemTypeMessage      = "message"
	itemFunctionCall     = "function_call"
	itemFunctionOutput   = "function_call_output"
	itemCustomCall       = "custom_tool_call"
	itemCustomOutput     = "custom_tool_call_output"
	itemReasoning        = "reasoning"
	itemApprovalRequest  = "mcp_approval_request"
	itemApprovalResponse = "mcp_approval_response"
	itemReference        = "item_reference"
)

// itemKey, in the Extra of a part, holds an item carried unchanged (see
// carriedItem): converting back writes the item and nothing of the part.
// No member of a content part can be named so (decodeBlock refuses it).
const itemKey = "\x00recap-item"

// itemMessage converts one item's JSON.
func itemMessage(data []byte) (recap.Message, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return recap.Message{}, err
	}
	if raw == nil {
		return recap.Message{}, fmt.Errorf("an item is a JSON object, not null")
	}
	typ, err := jsonobj.String(raw, "type")
	if err != nil {
		return recap.Message{}, err
	}
	_, role := raw["role"]
	_, id := raw["id"]
	switch typ {
	case "":
		if !role && id {
			return carriedItem(raw, itemReference, data) // its type is optional
		}
		return messageItem(raw)
	case itemTypeMessage:
		return messageItem(raw)
	case itemFunctionCall, itemCustomCall:
		return callItem(raw, typ)
	case itemFunctionOutput, itemCustomOutput:
		return outputItem(raw)
	}
	return carriedItem(raw, typ, data)
}

// messageItem converts a message item.
func messageItem(raw map[string]json.RawMessage) (recap.Message, error) {
	m := recap.Message{Format: recap.FormatOpenAI}
	role, err := jsonobj.String(raw, "role")
	if err != nil {
		return m, err
	}
	if !itemRole(recap.Role(role)) {
		return m, fmt.Errorf("a message item's role is user, assistant, system or developer, not %q", role)
	}
	m.Role = recap.Role(role)
	delete(raw, "role")
	content := raw["content"]
	switch jsonKind(content) {
	case 0, 'n': // absent, or null: kept in Extra
	case '"':
		if err := json.Unmarshal(content, &m.Content); err != nil {
			return m, fmt.Errorf("content: %w", err)
		}
		if m.Content != "" {
			delete(raw, "content")
		}
	case '[':
		if err := decodeContent(content, &m); err != nil {
			return m, err
		}
		if m.Parts != nil {
			delete(raw, "content")
		}
	default:
		return m, fmt.Errorf("content: want a string or an array, got %.40s", content)
	}
	m.Extra = extra(raw)
	return m, nil
}

// itemRole reports whether r is a role of a message item.
func itemRole(r recap.Role) bool {
	switch r {
	case recap.RoleUser, recap.RoleAssistant, recap.RoleSystem, recap.RoleDeveloper:
		return true
	}
	return false
}

// callItem converts a function_call or custom_tool_call item: an
// assistant message with one tool-call part.
func callItem(raw map[string]json.RawMessage, typ string) (recap.Message, error) {
	p := recap.Part{Type: recap.PartToolCall}
	var err error
	if p.ToolCallID, err = takeString(raw, "call_id"); err != nil {
		return recap.Message{}, err
	}
	if p.ToolName, err = takeString(raw, "name"); err != nil {
		return recap.Message{}, err
	}
	arg := "arguments"
	if typ == itemCustomCall {
		arg = "input"
	}
	if v, ok := raw[arg]; ok && jsonKind(v) != 'n' {
		s, err := jsonobj.String(raw, arg)
		if err != nil {
			return recap.Message{}, err
		}
		delete(raw, arg)
		p.Input, p.Wire = wireValue(s, typ == itemCustomCall)
	}
	return recap.Message{Role: recap.RoleAssistant, Parts: []recap.Part{p}, Format: recap.FormatOpenAI, Extra: extra(raw)}, nil
}

// outputItem converts a function_call_output or custom_tool_call_output
// item: a tool message with one tool-result part.
func outputItem(raw map[string]json.RawMessage) (recap.Message, error) {
	p := recap.Part{Type: recap.PartToolResult}
	var err error
	if p.ToolCallID, err = takeString(raw, "call_id"); err != nil {
		return recap.Message{}, err
	}
	if out, ok := raw["output"]; ok && jsonKind(out) != 'n' {
		delete(raw, "output")
		if jsonKind(out) == '"' {
			p.Output, p.Wire = out, recap.WireString
		} else {
			p.Output, p.Wire = out, recap.WireValue
		}
	}
	return recap.Message{Role: recap.RoleTool, Parts: []recap.Part{p}, Format: recap.FormatOpenAI, Extra: extra(raw)}, nil
}

// extra returns the members left in raw, nil if none.
func extra(raw map[string]json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return raw
}

// takeString returns raw[name] as a string and deletes it from raw, unless
// it is absent, null or "", which stay in raw (and give "").
func takeString(raw map[string]json.RawMessage, name string) (string, error) {
	s, err := jsonobj.String(raw, name)
	if err != nil || s == "" {
		return "", err
	}
	delete(raw, name)
	return s, nil
}

// carriedItem converts an item that travels unchanged: a message with one
// part that holds the item under itemKey.
func carriedItem(raw map[string]json.RawMessage, typ string, data []byte) (recap.Message, error) {
	m := recap.Message{Role: recap.RoleAssistant, Format: recap.FormatOpenAI}
	p := recap.Part{Type: typ, Extra: map[string]json.RawMessage{itemKey: compact(data)}}
	if typ == recap.PartText || p.IsTool() || p.IsFile() {
		p.Type = "item" // not a type recap would read as text, a tool or a file
	}
	callKey, resultKey := "call_id", "call_id"
	output := strings.HasSuffix(typ, "_output")
	switch typ {
	case itemApprovalRequest:
		callKey = "id"
	case itemApprovalResponse:
		resultKey, output = "approval_request_id", true
	}
	_, hasCall := raw[callKey]
	_, hasResult := raw[resultKey]
	var err error
	switch {
	case typ == itemReasoning:
		p.Type = recap.PartReasoning
		p.Text, err = reasoningText(raw)
	case output && hasResult:
		m.Role, p.Type, p.ToolName = recap.RoleTool, recap.PartToolResult, typ
		p.ToolCallID, err = jsonobj.String(raw, resultKey)
		p.Text = countText(raw, typ)
	case !output && hasCall:
		p.Type, p.ToolName = recap.PartToolCall, typ
		p.ToolCallID, err = jsonobj.String(raw, callKey)
		p.Text = countText(raw, typ)
	default:
		if role, _ := jsonobj.String(raw, "role"); itemRole(recap.Role(role)) {
			m.Role = recap.Role(role) // an "additional_tools" item is a developer's
		}
		p.Text = countText(raw, typ)
	}
	if err != nil {
		return recap.Message{}, err
	}
	m.Parts = []recap.Part{p}
	return m, nil
}

// reasoningOnly reports whether m is a reasoning item alone, as
// carriedItem made it.
func reasoningOnly(m recap.Message) bool {
	return len(m.Parts) == 1 && m.Parts[0].Type == recap.PartReasoning && m.Parts[0].Extra[itemKey] != nil && m.Extra == nil
}

// reasoningMessage returns the message of reasoning part p that no item
// of the model's follows.
func reasoningMessage(p recap.Part) recap.Message {
	return recap.Message{Role: recap.RoleAssistant, Parts: []recap.Part{p}, Format: recap.FormatOpenAI}
}

// reasoningText joins the texts of a reasoning item's summary and
// content: what it shows, not its encrypted content.
func reasoningText(raw map[string]json.RawMessage) (string, error) {
	var texts []string
	for _, name := range [...]string{"summary", "content"} {
		v, ok := raw[name]
		if !ok || jsonKind(v) == 'n' {
			continue
		}
		var parts []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(v, &parts); err != nil {
			return "", fmt.Errorf("%q: %w", name, err)
		}
		for _, p := range parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
	}
	return strings.Join(texts, "\n"), nil
}

// uncounted reports whether member name of a carried item is not content
// that the model reads.
func uncounted(name string) bool {
	switch name {
	case "type", "id", "call_id", "status", "encrypted_content":
		return true
	}
	return false
}

// countText returns the text that stands for a carried item in recap's
// counts: its JSON without the uncounted members, with data: URLs (a
// screenshot, an image generation's result) as attachment notes, or ""
// if nothing is left.
func countText(raw map[string]json.RawMessage, typ string) string {
	v := make(map[string]any, len(raw))
	for k, r := range raw {
		if uncounted(k) {
			continue
		}
		var x any
		if json.Unmarshal(r, &x) == nil {
			v[k] = withoutData(x)
		}
	}
	if typ == "image_generation_call" {
		if _, ok := v["result"]; ok {
			v["result"] = "[attachment: image]" // base64 without a data: prefix
		}
	}
	if len(v) == 0 {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// withoutData returns x with every string that is a data: URL replaced by
// an attachment note.
func withoutData(x any) any {
	switch x := x.(type) {
	case string:
		if rest, ok := strings.CutPrefix(x, "data:"); ok {
			t, _, _ := strings.Cut(rest, ";")
			t, _, _ = strings.Cut(t, ",")
			return "[attachment: " + t + "]"
		}
	case []any:
		for i := range x {
			x[i] = withoutData(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = withoutData(x[k])
		}
	}
	return x
}

// decodeContent sets m's Parts from a content array.
func decodeContent(content json.RawMessage, m *recap.Message) error {
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(content, &blocks); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	if len(blocks) == 0 {
		return nil // [] stays in Extra
	}
	m.Parts = make([]recap.Part, 0, len(blocks))
	for i, b := range blocks {
		p, err := decodeBlock(b)
		if err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
		m.Parts = append(m.Parts, p)
	}
	return nil
}

// decodeBlock converts one part of a content array.
func decodeBlock(b map[string]json.RawMessage) (recap.Part, error) {
	if b == nil {
		return recap.Part{}, fmt.Errorf("a content part is a JSON object, not null")
	}
	if _, ok := b[itemKey]; ok {
		return recap.Part{}, fmt.Errorf("member %q is reserved", itemKey)
	}
	typ, err := jsonobj.String(b, "type")
	if err != nil {
		return recap.Part{}, err
	}
	p := recap.Part{Type: typ}
	switch typ {
	case "input_text", "output_text":
		p.Text, err = takeString(b, "text")
		delete(b, "type")
	case recap.PartRefusal:
		p.Text, err = takeString(b, "refusal")
		delete(b, "type")
	case "input_image", "input_file", "input_audio":
		// A file part for recap; its members, type included, stay.
		p.Type, p.MediaType = recap.PartFile, mediaType(typ, b)
		p.Filename, _ = jsonobj.String(b, "filename") // counted in the note; kept in Extra too
	default:
		// Another part: its type stays in Extra; recap sees it under that
		// type, unless recap would read that type as text, a tool or a
		// file.
		p.Text, err = takeString(b, "text")
		if typ == "" || typ == recap.PartText || p.IsTool() || p.IsFile() {
			p.Type = "block"
		}
	}
	if err != nil {
		return recap.Part{}, err
	}
	if len(b) > 0 {
		p.Extra = b
	}
	return p, nil
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

// summaryAsDeveloper reports whether the summary in msgs is written as a
// developer message: when msgs have developer messages and no system
// message but the summary.
func summaryAsDeveloper(msgs []recap.Message) bool {
	developer := false
	for _, m := range msgs {
		switch {
		case isSummary(m):
		case m.Role == recap.RoleSystem:
			return false
		case m.Role == recap.RoleDeveloper:
			developer = true
		}
	}
	return developer
}

// isSummary reports whether m is the summary message that the Compressor
// puts in a payload: a system message of recap's summary ID that carries
// no item of its own.
func isSummary(m recap.Message) bool {
	_, id := m.Extra["id"]
	_, typ := m.Extra["type"]
	return m.Role == recap.RoleSystem && strings.HasPrefix(m.ID, recap.SummaryIDPrefix) && !id && !typ
}

// messageItems returns the items of m: those its parts carry, in order,
// then the item of m itself, if it has more than those parts.
func messageItems(m recap.Message) ([]json.RawMessage, error) {
	var items []json.RawMessage
	var rest []recap.Part
	for _, p := range m.Parts {
		if v, ok := p.Extra[itemKey]; ok {
			items = append(items, v)
		} else {
			rest = append(rest, p)
		}
	}
	if items != nil {
		m.Parts = rest
		if m.Content == "" && m.Refusal == "" && len(m.Parts) == 0 && len(m.Extra) == 0 {
			return items, nil
		}
	}
	own, err := ownItems(m)
	if err != nil {
		return nil, err
	}
	return append(items, own...), nil
}

// ownItems returns the items of m without carried ones: a call, an
// output, or a message followed by the function calls of a Chat
// Completions assistant message.
func ownItems(m recap.Message) ([]json.RawMessage, error) {
	item := make(map[string]json.RawMessage, len(m.Extra)+4)
	if m.Format == recap.FormatOpenAI {
		for k, v := range m.Extra {
			item[k] = v
		}
	}
	typ, _ := jsonobj.String(item, "type")
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
	case typ == itemFunctionCall || typ == itemCustomCall:
		if len(calls) != 1 || len(m.Parts) != 1 || m.Role != recap.RoleAssistant || m.Content != "" || m.Refusal != "" {
			return nil, fmt.Errorf("a %s item is an assistant message with one tool call and nothing else", typ)
		}
		c := calls[0]
		if c.ToolCallID != "" {
			item["call_id"] = jsonobj.Quote(c.ToolCallID)
		}
		if c.ToolName != "" {
			item["name"] = jsonobj.Quote(c.ToolName)
		}
		if c.Input != nil {
			arg := "arguments"
			if typ == itemCustomCall {
				arg = "input"
			}
			item[arg] = jsonobj.Quote(wireString(c))
		}
		return []json.RawMessage{jsonobj.Encode(item)}, nil
	case m.Role == recap.RoleTool:
		if result == nil || len(m.Parts) != 1 || m.Content != "" || m.Refusal != "" {
			return nil, fmt.Errorf("a tool message is one tool result and nothing else")
		}
		if typ == "" {
			item["type"] = jsonobj.Quote(itemFunctionOutput)
		} else if typ != itemFunctionOutput && typ != itemCustomOutput {
			return nil, fmt.Errorf("a tool message of item type %q", typ)
		}
		if result.ToolCallID != "" {
			item["call_id"] = jsonobj.Quote(result.ToolCallID)
		}
		if result.Output != nil {
			if result.Wire == recap.WireValue && m.Format == recap.FormatOpenAI {
				item["output"] = result.Output
			} else {
				item["output"] = jsonobj.Quote(wireString(*result))
			}
		}
		return []json.RawMessage{jsonobj.Encode(item)}, nil
	case typ != "" && typ != itemTypeMessage:
		return nil, fmt.Errorf("a message with item type %q in Extra", typ)
	case result != nil:
		return nil, fmt.Errorf("a tool result in a %s message", m.Role)
	case !itemRole(m.Role):
		return nil, fmt.Errorf("role %q is not a role of a message item", m.Role)
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
		if c.ToolCallID == "" || c.ToolName == "" {
			return nil, fmt.Errorf("a tool call without an ID or a name")
		}
		items = append(items, jsonobj.Encode(map[string]json.RawMessage{
			"type": jsonobj.Quote(itemFunctionCall), "call_id": jsonobj.Quote(c.ToolCallID),
			"name": jsonobj.Quote(c.ToolName), "arguments": jsonobj.Quote(wireString(c)),
		}))
	}
	return items, nil
}

// encodeContent returns m's content: Content as a string if m has no
// other parts, else an array of Content as a text part and the parts; nil
// if m has neither.
func encodeContent(m recap.Message) (json.RawMessage, error) {
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
	if n == 0 && m.Refusal == "" {
		if m.Content == "" {
			return nil, nil
		}
		return jsonobj.Quote(m.Content), nil
	}
	var blocks []json.RawMessage
	if m.Content != "" {
		blocks = append(blocks, jsonobj.Encode(map[string]json.RawMessage{"type": jsonobj.Quote(textType), "text": jsonobj.Quote(m.Content)}))
	}
	if m.Refusal != "" {
		blocks = append(blocks, jsonobj.Encode(map[string]json.RawMessage{"type": jsonobj.Quote(recap.PartRefusal), "refusal": jsonobj.Quote(m.Refusal)}))
	}
	for _, p := range m.Parts {
		if p.Type == recap.PartToolCall {
			continue
		}
		b, err := encodeBlock(p, textType, m.Format == recap.FormatOpenAI)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
	}
	return jsonobj.Array(blocks), nil
}

// encodeBlock returns part p as a content part, text parts as textType.
// Of a part of another format (own is false) only a text part has a
// Responses form.
func encodeBlock(p recap.Part, textType string, own bool) (json.RawMessage, error) {
	b := make(map[string]json.RawMessage, len(p.Extra)+2)
	if own {
		for k, v := range p.Extra {
			b[k] = v
		}
	}
	switch {
	case p.Type == recap.PartText:
		b["type"], b["text"] = jsonobj.Quote(textType), jsonobj.Quote(p.Text)
	case !own:
		return nil, fmt.Errorf("a %q part of another format has no Responses form", p.Type)
	case p.Type == "input_text" || p.Type == "output_text":
		b["type"] = jsonobj.Quote(p.Type)
		if p.Text != "" {
			b["text"] = jsonobj.Quote(p.Text)
		}
	case p.Type == recap.PartRefusal:
		b["type"] = jsonobj.Quote(p.Type)
		if p.Text != "" {
			b["refusal"] = jsonobj.Quote(p.Text)
		}
	case p.Type == recap.PartFile:
		if _, ok := b["type"]; !ok {
			return nil, fmt.Errorf("a file part of Chat Completions (%s %s) has no Responses form", p.MediaType, p.Filename)
		}
	case p.IsFile(), p.Type == recap.PartToolResult:
		return nil, fmt.Errorf("a %q part has no Responses form", p.Type)
	default:
		// A part of another type: a Responses part keeps its type in
		// Extra; a Chat Completions block does not.
		if _, ok := b["type"]; !ok && p.Type != "block" {
			b["type"] = jsonobj.Quote(p.Type)
		}
		if p.Text != "" {
			b["text"] = jsonobj.Quote(p.Text)
		}
	}
	return jsonobj.Encode(b), nil
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

// compact returns data without insignificant space, or data itself if it
// is not valid JSON.
func compact(data []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, data) != nil {
		return data
	}
	return buf.Bytes()
}

// jsonKind returns the first byte of JSON value v ('"', '[', '{', 'n', 't',
// 'f', a digit or '-'), or 0 if v is empty.
func jsonKind(v json.RawMessage) byte {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return 0
	}
	return v[0]
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
