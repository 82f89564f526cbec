package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/jsonobj"
	"github.com/recapgo/recap/internal/llm"
	"google.golang.org/genai"
)

// Conversions between the SDK's contents and recap messages. A backend
// compresses its chat as
//
//	msgs, err := gemini.FromContents(system, history)
//	res, err := compressor.Compress(ctx, chatID, msgs)
//	system, contents, err := gemini.ToContents(res.Payload)
//	resp, err := client.Models.GenerateContent(ctx, model, contents, &genai.GenerateContentConfig{SystemInstruction: system})
//
// Each part of the system instruction is a system message of recap's (so
// it is pinned); each content a message of its role ("user", "model" as
// assistant): a lone text part is its Content, other parts are Parts. Text
// parts are text parts (thoughts reasoning parts); functionCall parts
// "tool-call" parts (ToolCallID the call's id, ToolName its name, Input its
// args); functionResponse parts "tool-result" parts (Output the response);
// inlineData and fileData parts file parts (counted by WithMediaTokens,
// never by their bytes); executable code and its result count their text;
// any other part travels unchanged and counts as its JSON. A content that
// holds a functionResponse is a tool message to recap: never the start of
// a turn or of the window, so a cut never separates it from its call. The
// members recap does not model (thoughtSignature, videoMetadata,
// willContinue...) stay in Extra, so converting back gives the same JSON.
//
// The Gemini API may leave function calls without IDs and pair a response
// with its call by name and order; FromContents then gives the call an ID
// of its own, derived from its name and its place among its content's
// calls (so it does not change as the chat grows), gives the response the
// ID of the earliest unanswered call of its name, and ToContents leaves
// both out again. Contents have no message IDs: the IDs come from
// [recap.ChainIDs].

// derivedID starts the tool call IDs that FromContents makes up for calls
// without one; ToContents writes no ID for them.
const derivedID = "recap-derived-call:"

// opaqueMark, in a part's Extra, marks a part carried unchanged: the
// part's Text is only what recap counts of it.
const opaqueMark = "\x00recap-opaque"

// ErrNotConvertible is matched by the errors of ToContents for a message
// that has no form in the Gemini API.
var ErrNotConvertible = errors.New("gemini: message has no Gemini API form")

// FromContents returns system's parts and contents as recap messages (see
// above), with IDs from [recap.ChainIDs]. system may be nil. A content or
// part the SDK cannot encode, a role other than "user" and "model", or a
// nil content is an error naming it.
func FromContents(system *genai.Content, contents []*genai.Content) ([]recap.Message, error) {
	var out []recap.Message
	if system != nil {
		raw, err := jsonobj.Members(system)
		if err != nil {
			return nil, fmt.Errorf("gemini: system instruction: %w", err)
		}
		parts, err := partList(raw["parts"])
		if err != nil {
			return nil, fmt.Errorf("gemini: system instruction: %w", err)
		}
		delete(raw, "parts")
		for i, p := range parts {
			m := recap.Message{Role: recap.RoleSystem, Format: recap.FormatOpenAI}
			text, _ := jsonobj.String(p, "text")
			if text == "" || len(p) != 1 {
				return nil, fmt.Errorf("gemini: system instruction part %d: only text parts are supported", i)
			}
			m.Content = text
			if i == 0 && len(raw) > 0 {
				m.Extra = map[string]json.RawMessage{systemMembers: jsonobj.Encode(raw)} // the instruction's role
			}
			out = append(out, m)
		}
	}
	pending := map[string][]string{} // unanswered derived call IDs, by name
	for i, c := range contents {
		if c == nil {
			return nil, fmt.Errorf("gemini: content %d is nil", i)
		}
		raw, err := jsonobj.Members(c)
		if err != nil {
			return nil, fmt.Errorf("gemini: content %d: %w", i, err)
		}
		m, err := fromContent(raw, pending)
		if err != nil {
			return nil, fmt.Errorf("gemini: content %d: %w", i, err)
		}
		out = append(out, m)
	}
	return recap.ChainIDs(out), nil
}

// noRole, in the Extra of a message, marks a content that had no role.
const noRole = "\x00gemini-no-role"

// systemMembers, in the Extra of the first system message, holds the
// system instruction's members other than its parts (its role).
const systemMembers = "\x00gemini-system"

// fromContent converts the members of one content.
func fromContent(raw map[string]json.RawMessage, pending map[string][]string) (recap.Message, error) {
	role, err := jsonobj.String(raw, "role")
	if err != nil {
		return recap.Message{}, err
	}
	m := recap.Message{Format: recap.FormatOpenAI}
	switch role {
	case genai.RoleUser, "":
		m.Role = recap.RoleUser // the API takes a content without a role as the user's
	case genai.RoleModel:
		m.Role = recap.RoleAssistant
	default:
		return recap.Message{}, fmt.Errorf("role %q is not user or model", role)
	}
	parts, err := partList(raw["parts"])
	if err != nil {
		return recap.Message{}, err
	}
	_, hadParts := raw["parts"]
	delete(raw, "role")
	delete(raw, "parts")
	if role == "" {
		raw[noRole] = nil // written back without a role
	}
	if len(raw) > 0 {
		m.Extra = raw
	}
	if len(parts) == 1 && len(parts[0]) == 1 {
		if text, err := jsonobj.String(parts[0], "text"); err == nil && text != "" {
			m.Content = text // a lone text part
			return m, nil
		}
	}
	if !hadParts {
		return m, nil
	}
	m.Parts = make([]recap.Part, 0, len(parts))
	calls := map[string]int{} // calls of each name in this content
	for i, b := range parts {
		p, err := partOf(b, pending, calls)
		if err != nil {
			return recap.Message{}, fmt.Errorf("parts[%d]: %w", i, err)
		}
		if p.Type == recap.PartToolResult && m.Role == recap.RoleUser {
			m.Role = recap.RoleTool
		}
		m.Parts = append(m.Parts, p)
	}
	return m, nil
}

// partOf converts one part; b keeps the members recap does not model.
func partOf(b map[string]json.RawMessage, pending map[string][]string, calls map[string]int) (recap.Part, error) {
	var p recap.Part
	switch {
	case b["functionCall"] != nil:
		var fc map[string]json.RawMessage
		if err := json.Unmarshal(b["functionCall"], &fc); err != nil {
			return p, fmt.Errorf("functionCall: %w", err)
		}
		p.Type, p.Wire = recap.PartToolCall, recap.WireValue
		p.ToolName, _ = jsonobj.String(fc, "name")
		p.ToolCallID, _ = jsonobj.String(fc, "id")
		if p.ToolCallID == "" {
			k := calls[p.ToolName]
			calls[p.ToolName]++
			p.ToolCallID = derivedID + p.ToolName + "#" + strconv.Itoa(k)
			pending[p.ToolName] = append(pending[p.ToolName], p.ToolCallID)
		}
		p.Input = fc["args"]
		for _, k := range []string{"name", "id", "args"} {
			delete(fc, k)
		}
		b["functionCall"] = jsonobj.Encode(fc)
	case b["functionResponse"] != nil:
		var fr map[string]json.RawMessage
		if err := json.Unmarshal(b["functionResponse"], &fr); err != nil {
			return p, fmt.Errorf("functionResponse: %w", err)
		}
		p.Type, p.Wire = recap.PartToolResult, recap.WireValue
		p.ToolName, _ = jsonobj.String(fr, "name")
		p.ToolCallID, _ = jsonobj.String(fr, "id")
		if p.ToolCallID == "" {
			if q := pending[p.ToolName]; len(q) > 0 {
				p.ToolCallID, pending[p.ToolName] = q[0], q[1:]
			} else {
				p.ToolCallID = derivedID + p.ToolName + "#unpaired"
			}
		}
		p.Output = fr["response"]
		for _, k := range []string{"name", "id", "response"} {
			delete(fr, k)
		}
		b["functionResponse"] = jsonobj.Encode(fr)
	case b["inlineData"] != nil || b["fileData"] != nil:
		p.Type = recap.PartFile
		var d struct {
			MIMEType    string `json:"mimeType"`
			DisplayName string `json:"displayName"`
		}
		data := b["inlineData"]
		if data == nil {
			data = b["fileData"]
		}
		json.Unmarshal(data, &d)
		p.MediaType, p.Filename = d.MIMEType, d.DisplayName
	case b["text"] != nil:
		var err error
		if p.Text, err = jsonobj.String(b, "text"); err != nil {
			return p, err
		}
		delete(b, "text")
		p.Type = recap.PartText
		if string(b["thought"]) == "true" {
			p.Type = recap.PartReasoning
		}
	default:
		// Carried unchanged, counted as its text (code, its output) or its
		// JSON.
		var code struct {
			Code   string `json:"code"`
			Output string `json:"output"`
		}
		json.Unmarshal(b["executableCode"], &code)
		json.Unmarshal(b["codeExecutionResult"], &code)
		p.Type, p.Text = "gemini-part", code.Code+code.Output
		if p.Text == "" {
			// The JSON but a thought signature, which is opaque bytes the
			// model reads back, not text (a part of only a signature
			// counts as {"thought":true} or {}).
			counted := make(map[string]json.RawMessage, len(b))
			for k, v := range b {
				if k != "thoughtSignature" {
					counted[k] = v
				}
			}
			p.Text = string(jsonobj.Encode(counted))
		}
		b[opaqueMark] = nil
	}
	if len(b) > 0 {
		p.Extra = b
	}
	return p, nil
}

// ToContents returns msgs, such as a Compress payload, as a system
// instruction (nil if there are no system messages) and contents. The
// leading system (and developer) messages, the pinned prompt and the
// summary the Compressor adds with the default summary role, become the
// system instruction's parts; a summary with the user role
// (recap.WithSummaryRole(recap.RoleUser)) stays a user content of its own.
// Tool messages become user contents of functionResponse parts;
// assistant messages model contents.
//
// A system message after the conversation started, a tool message without
// a tool result, or a part with no Gemini form (a tool call whose input is
// not a JSON object, an attachment of another format that is not a data
// URL) is an error matching ErrNotConvertible.
func ToContents(msgs []recap.Message) (*genai.Content, []*genai.Content, error) {
	var (
		sysParts []json.RawMessage
		sysRaw   json.RawMessage
		out      []*genai.Content
	)
	for i, m := range msgs {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%w: message %d (%s): %s", ErrNotConvertible, i, m.ID, fmt.Sprintf(format, args...))
		}
		if m.Role == recap.RoleSystem || m.Role == recap.RoleDeveloper {
			if len(out) > 0 {
				return nil, nil, fail("a %s message after the conversation started", m.Role)
			}
			if v, ok := m.Extra[systemMembers]; ok && sysRaw == nil {
				sysRaw = v
			}
			sysParts = append(sysParts, jsonobj.Encode(map[string]json.RawMessage{"text": jsonobj.Quote(m.Text())}))
			continue
		}
		c := map[string]json.RawMessage{}
		for k, v := range m.Extra {
			if k != systemMembers && (m.Format == recap.FormatOpenAI || k != "id") {
				c[k] = v
			}
		}
		_, roleless := c[noRole]
		delete(c, noRole)
		switch {
		case roleless:
		case m.Role == recap.RoleAssistant:
			c["role"] = jsonobj.Quote(genai.RoleModel)
		default:
			c["role"] = jsonobj.Quote(genai.RoleUser)
		}
		if m.Role == recap.RoleTool && !llm.HasToolResult(m) {
			return nil, nil, fail("a tool message without a tool result")
		}
		parts, err := contentParts(m)
		if err != nil {
			return nil, nil, fail("%v", err)
		}
		if parts != nil {
			c["parts"] = jsonobj.Array(parts)
		}
		var content genai.Content
		if err := json.Unmarshal(jsonobj.Encode(c), &content); err != nil {
			return nil, nil, fail("%v", err)
		}
		out = append(out, &content)
	}
	var system *genai.Content
	if sysParts != nil {
		s := map[string]json.RawMessage{}
		if sysRaw != nil {
			json.Unmarshal(sysRaw, &s)
		}
		s["parts"] = jsonobj.Array(sysParts)
		system = new(genai.Content)
		if err := json.Unmarshal(jsonobj.Encode(s), system); err != nil {
			return nil, nil, fmt.Errorf("%w: system instruction: %v", ErrNotConvertible, err)
		}
	}
	return system, out, nil
}

// contentParts returns the parts of m: a text part of Content (and of
// Refusal), then a part per part.
func contentParts(m recap.Message) ([]json.RawMessage, error) {
	var parts []json.RawMessage
	text := func(s string) json.RawMessage {
		return jsonobj.Encode(map[string]json.RawMessage{"text": jsonobj.Quote(s)})
	}
	for _, s := range []string{m.Content, m.Refusal} {
		if s != "" {
			parts = append(parts, text(s))
		}
	}
	for _, p := range m.Parts {
		b := make(map[string]json.RawMessage, len(p.Extra)+1)
		for k, v := range p.Extra {
			b[k] = v
		}
		if _, opaque := b[opaqueMark]; opaque {
			delete(b, opaqueMark)
			parts = append(parts, jsonobj.Encode(b))
			continue
		}
		switch {
		case p.Type == recap.PartToolCall:
			fc, err := subObject(b, "functionCall")
			if err != nil {
				return nil, err
			}
			fc["name"] = jsonobj.Quote(p.ToolName)
			if !strings.HasPrefix(p.ToolCallID, derivedID) {
				fc["id"] = jsonobj.Quote(p.ToolCallID)
			}
			if args, err := toolArgs(p); err != nil {
				return nil, err
			} else if args != nil {
				fc["args"] = args
			}
			b["functionCall"] = jsonobj.Encode(fc)
		case p.Type == recap.PartToolResult:
			fr, err := subObject(b, "functionResponse")
			if err != nil {
				return nil, err
			}
			fr["name"] = jsonobj.Quote(p.ToolName)
			if !strings.HasPrefix(p.ToolCallID, derivedID) {
				fr["id"] = jsonobj.Quote(p.ToolCallID)
			}
			if p.Output != nil {
				fr["response"] = responseObject(p)
			}
			b["functionResponse"] = jsonobj.Encode(fr)
		case p.Type == recap.PartText || p.Type == recap.PartReasoning:
			if p.Type == recap.PartReasoning && b["thought"] == nil {
				continue // reasoning of another format: not the model's thought
			}
			b["text"] = jsonobj.Quote(p.Text)
		case p.IsFile():
			if b["inlineData"] == nil && b["fileData"] == nil {
				d, err := inlineData(p)
				if err != nil {
					return nil, err
				}
				b = map[string]json.RawMessage{"inlineData": d}
			}
		case p.IsTool():
			return nil, fmt.Errorf("a %s part has no Gemini form", p.Type)
		default:
			if p.Text == "" {
				continue // a step or source marker of another format
			}
			b = map[string]json.RawMessage{"text": jsonobj.Quote(p.Text)}
		}
		parts = append(parts, jsonobj.Encode(b))
	}
	return parts, nil
}

// subObject returns the object b[name] decoded, empty if absent.
func subObject(b map[string]json.RawMessage, name string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if v := b[name]; v != nil {
		if err := json.Unmarshal(v, &out); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}

// toolArgs returns a call's Input as the JSON object args must be, or nil
// for none.
func toolArgs(p recap.Part) (json.RawMessage, error) {
	in := llm.InputJSON(p)
	if len(in) == 0 || string(in) == "null" {
		return nil, nil
	}
	if in[0] != '{' || !json.Valid(in) {
		return nil, fmt.Errorf("tool call %s: input %.40q is not a JSON object", p.ToolName, in)
	}
	return in, nil
}

// responseObject returns a result's Output as the object response must
// be: itself if it is one, else {"output": its value} as the Gemini API
// documents for non-object results.
func responseObject(p recap.Part) json.RawMessage {
	out := bytes.TrimSpace(p.Output)
	if len(out) > 0 && out[0] == '{' && json.Valid(out) {
		return out
	}
	if !json.Valid(out) {
		out = jsonobj.Quote(string(out))
	}
	return jsonobj.Encode(map[string]json.RawMessage{"output": out})
}

// inlineData returns the inlineData of a file part of another format that
// holds a base64 data URL.
func inlineData(p recap.Part) (json.RawMessage, error) {
	url := p.URL
	if url == "" {
		var nested struct {
			URL string `json:"url"`
		}
		json.Unmarshal(p.Extra["image_url"], &nested)
		url = nested.URL
	}
	meta, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	mt, enc, _ := strings.Cut(meta, ";")
	if !strings.HasPrefix(url, "data:") || !ok || enc != "base64" {
		return nil, fmt.Errorf("attachment %s %s is not a base64 data URL", p.MediaType, p.Filename)
	}
	return jsonobj.Encode(map[string]json.RawMessage{"mimeType": jsonobj.Quote(mt), "data": jsonobj.Quote(data)}), nil
}

// partList decodes a parts array.
func partList(raw json.RawMessage) ([]map[string]json.RawMessage, error) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, fmt.Errorf("parts: %w", err)
	}
	for i, p := range parts {
		if p == nil {
			return nil, fmt.Errorf("parts[%d] is null", i)
		}
	}
	return parts, nil
}
