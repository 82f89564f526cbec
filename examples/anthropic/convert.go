package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/internal/jsonobj"
	"github.com/recapgo/recap/examples/internal/llm"
)

// Conversions between the Messages API's request (its top-level system
// blocks and its messages) and recap messages. A backend compresses its
// chat as
//
//	msgs, err := anthropic.FromMessages(system, history)
//	res, err := compressor.Compress(ctx, chatID, msgs)
//	system, payload, err := anthropic.ToMessages(res.Payload)
//	resp, err := client.Messages.New(ctx, sdk.MessageNewParams{Model: model, MaxTokens: 1024, System: system, Messages: payload})
//
// Each system block is a system message of recap's (so it is pinned), and
// each message a message: its content string Content, its blocks Parts.
// Text blocks are text parts; images and documents file parts (counted by
// WithMediaTokens, never by their bytes; a plain-text document by its
// text); tool_use blocks "tool-call" parts (ToolCallID the id, Input the
// input); tool_result blocks "tool-result" parts (ToolCallID the
// tool_use_id, Output the content); thinking blocks reasoning parts; any
// other block (server tool use and results, redacted thinking, search
// results...) travels unchanged and counts as its JSON. A user message
// that holds a tool_result block is a tool message to recap: never the
// start of a turn or of the window, so a cut never separates it from the
// tool_use before it. Members recap does not model (cache_control,
// citations, is_error, signature...) stay in Extra, so converting back
// gives the same JSON. The Messages API has no message IDs: the IDs come
// from [recap.ChainIDs].

// ErrNotConvertible is matched by the errors of ToMessages for a message
// that has no form in the Messages API.
var ErrNotConvertible = errors.New("anthropic: message has no Messages API form")

// FromMessages returns system's blocks and msgs as recap messages (see
// above), with IDs from [recap.ChainIDs]. A block or message the SDK
// cannot encode, or one without a type or role, is an error naming it.
func FromMessages(system []sdk.TextBlockParam, msgs []sdk.MessageParam) ([]recap.Message, error) {
	out := make([]recap.Message, 0, len(system)+len(msgs))
	for i, b := range system {
		raw, err := jsonobj.Members(b)
		if err != nil {
			return nil, fmt.Errorf("anthropic: system block %d: %w", i, err)
		}
		m := recap.Message{Role: recap.RoleSystem, Format: recap.FormatOpenAI}
		if m.Content, err = jsonobj.String(raw, "text"); err != nil {
			return nil, fmt.Errorf("anthropic: system block %d: %w", i, err)
		}
		delete(raw, "text")
		delete(raw, "type")
		if len(raw) > 0 {
			m.Extra = raw
		}
		out = append(out, m)
	}
	for i, pm := range msgs {
		raw, err := jsonobj.Members(pm)
		if err != nil {
			return nil, fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		m, err := fromMessage(raw)
		if err != nil {
			return nil, fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		out = append(out, m)
	}
	return recap.ChainIDs(out), nil
}

// fromMessage converts the members of one message.
func fromMessage(raw map[string]json.RawMessage) (recap.Message, error) {
	role, err := jsonobj.String(raw, "role")
	if err != nil {
		return recap.Message{}, err
	}
	m := recap.Message{Format: recap.FormatOpenAI}
	switch role {
	case "user":
		m.Role = recap.RoleUser
	case "assistant":
		m.Role = recap.RoleAssistant
	default:
		return recap.Message{}, fmt.Errorf("role %q is not user or assistant", role)
	}
	content := raw["content"]
	delete(raw, "role")
	delete(raw, "content")
	if len(raw) > 0 {
		m.Extra = raw
	}
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		if err := json.Unmarshal(content, &m.Content); err != nil {
			return recap.Message{}, err
		}
	case isPlainText(content, &m.Content):
		// One text block and nothing else: Content, as ToMessages writes
		// it back, so that a summary sent in the first user message is
		// known again when it comes back.
	default:
		var blocks []map[string]json.RawMessage
		if err := json.Unmarshal(content, &blocks); err != nil {
			return recap.Message{}, fmt.Errorf("content: %w", err)
		}
		m.Parts = make([]recap.Part, len(blocks))
		for i, b := range blocks {
			if m.Parts[i], err = blockPart(b); err != nil {
				return recap.Message{}, fmt.Errorf("content[%d]: %w", i, err)
			}
			if m.Parts[i].Type == recap.PartToolResult && m.Role == recap.RoleUser {
				m.Role = recap.RoleTool
			}
		}
	}
	return m, nil
}

// isPlainText reports whether content is one text block of no other
// members than its type and text, and sets *text to its text if so.
func isPlainText(content json.RawMessage, text *string) bool {
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(content, &blocks) != nil || len(blocks) != 1 || len(blocks[0]) != 2 {
		return false
	}
	if typ, err := jsonobj.String(blocks[0], "type"); err != nil || typ != blockText {
		return false
	}
	s, err := jsonobj.String(blocks[0], "text")
	if err != nil || s == "" {
		return false
	}
	*text = s
	return true
}

// Block types with a meaning to the conversion.
const (
	blockText       = "text"
	blockImage      = "image"
	blockDocument   = "document"
	blockToolUse    = "tool_use"
	blockToolResult = "tool_result"
	blockThinking   = "thinking"
)

// opaqueMark, in a part's Extra, marks a block carried unchanged: the
// part's Text is only what recap counts of it.
const opaqueMark = "\x00recap-opaque"

// blockPart converts one content block; b keeps the members recap does
// not model.
func blockPart(b map[string]json.RawMessage) (recap.Part, error) {
	typ, err := jsonobj.String(b, "type")
	if err != nil || typ == "" {
		return recap.Part{}, fmt.Errorf("a block needs a type (%v)", err)
	}
	p := recap.Part{}
	take := func(name string) (string, error) {
		s, err := jsonobj.String(b, name)
		delete(b, name)
		return s, err
	}
	switch typ {
	case blockText:
		delete(b, "type")
		p.Type = recap.PartText
		p.Text, err = take("text")
	case blockThinking:
		delete(b, "type")
		p.Type = recap.PartReasoning
		p.Text, err = take("thinking")
	case blockToolUse:
		delete(b, "type")
		p.Type, p.Wire = recap.PartToolCall, recap.WireValue
		if p.ToolCallID, err = take("id"); err == nil {
			p.ToolName, err = take("name")
		}
		p.Input = b["input"]
		delete(b, "input")
	case blockToolResult:
		delete(b, "type")
		p.Type = recap.PartToolResult
		p.ToolCallID, err = take("tool_use_id")
		if c, ok := b["content"]; ok {
			delete(b, "content")
			p.Output, p.Wire = c, recap.WireValue
			if len(c) > 0 && c[0] == '"' {
				p.Wire = recap.WireString
			}
		}
	case blockImage, blockDocument:
		// A file part for recap; every member, type included, stays.
		p.Type = recap.PartFile
		var src struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		}
		json.Unmarshal(b["source"], &src) // absent or odd: no media type
		p.MediaType = src.MediaType
		if p.MediaType == "" {
			p.MediaType = map[string]string{blockImage: "image/*", blockDocument: "application/pdf"}[typ]
		}
		if title, err := jsonobj.String(b, "title"); err == nil {
			p.Filename = title
		}
		if typ == blockDocument && src.Type == "text" {
			// A plain-text document costs its text, which recap counts.
			p = recap.Part{Type: typ, Text: src.Data}
			b[opaqueMark] = nil
		}
	default:
		// Carried unchanged, counted as its JSON.
		p.Type = typ
		if data, err := json.Marshal(b); err == nil {
			p.Text = string(data)
		}
		b[opaqueMark] = nil
	}
	if err != nil {
		return recap.Part{}, err
	}
	if len(b) > 0 {
		p.Extra = b
	}
	return p, nil
}

// A ConvertOption configures ToMessages.
type ConvertOption func(*convertConfig)

type convertConfig struct {
	noBreakpoint bool
}

// WithoutCacheBreakpoint keeps ToMessages from adding a cache_control
// breakpoint after the system blocks.
func WithoutCacheBreakpoint() ConvertOption {
	return func(c *convertConfig) { c.noBreakpoint = true }
}

// maxBreakpoints is how many cache_control breakpoints a request may hold.
const maxBreakpoints = 4

// ToMessages returns msgs, such as a Compress payload, as a Messages API
// request's system blocks and messages. The leading system (and developer)
// messages (the pinned prompt and the summary the Compressor adds, with
// the default summary role) become the system blocks; a summary with the
// user role (recap.WithSummaryRole(recap.RoleUser)) stays the first user
// message. Tool messages become user messages of tool_result blocks. The
// Messages API combines consecutive messages of one role itself, so they
// are left as they are.
//
// The last system block gets a cache_control breakpoint
// ({"type":"ephemeral"}), unless it has one, the request already holds the
// API's maximum of 4, or WithoutCacheBreakpoint is given: the prefix it
// closes, the pinned prompt and the summary, stays the same from one
// summarization to the next, so prompt caching keeps hitting.
//
// A system message after the conversation started, a tool message without
// a tool result, or a part that has no Messages API form (a tool call
// whose input is not a JSON object, an attachment of another format that
// is not an image URL) is an error matching ErrNotConvertible.
func ToMessages(msgs []recap.Message, opts ...ConvertOption) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	var cfg convertConfig
	for _, o := range opts {
		o(&cfg)
	}
	var (
		system     []map[string]json.RawMessage
		out        []sdk.MessageParam
		breakpoint int
	)
	for i, m := range msgs {
		notConvertible := func(format string, args ...any) error {
			return fmt.Errorf("%w: message %d (%s): %s", ErrNotConvertible, i, m.ID, fmt.Sprintf(format, args...))
		}
		if m.Role == recap.RoleSystem || m.Role == recap.RoleDeveloper {
			if len(out) > 0 {
				return nil, nil, notConvertible("a %s message after the conversation started", m.Role)
			}
			b := jsonobj.Copy(m.Extra)
			if m.Format != recap.FormatOpenAI {
				delete(b, "id")
			}
			b["type"], b["text"] = jsonobj.Quote(blockText), jsonobj.Quote(m.Text())
			if _, ok := b["cache_control"]; ok {
				breakpoint++
			}
			system = append(system, b)
			continue
		}
		pm := sdk.MessageParam{Role: sdk.MessageParamRoleUser}
		if m.Role == recap.RoleAssistant {
			pm.Role = sdk.MessageParamRoleAssistant
		}
		blocks, err := partBlocks(m)
		if err != nil {
			return nil, nil, notConvertible("%v", err)
		}
		if m.Role == recap.RoleTool && !hasResult(m) {
			return nil, nil, notConvertible("a tool message without a tool result")
		}
		if blocks == nil {
			blocks = []json.RawMessage{} // content: [] for an empty message
		}
		for j, data := range blocks {
			var u sdk.ContentBlockParamUnion
			if err := decodeBlock(data, &u); err != nil {
				return nil, nil, notConvertible("block %d: %v", j, err)
			}
			llm.ExactUnion(&u, data, param.SetJSON)
			pm.Content = append(pm.Content, u)
			if bytes.Contains(data, []byte(`"cache_control"`)) {
				breakpoint++
			}
		}
		out = append(out, pm)
	}
	if n := len(system); n > 0 && !cfg.noBreakpoint && breakpoint < maxBreakpoints {
		if _, ok := system[n-1]["cache_control"]; !ok {
			system[n-1]["cache_control"] = json.RawMessage(`{"type":"ephemeral"}`)
		}
	}
	blocks := make([]sdk.TextBlockParam, len(system))
	for i, b := range system {
		data := jsonobj.Encode(b)
		if err := json.Unmarshal(data, &blocks[i]); err != nil {
			return nil, nil, fmt.Errorf("%w: system block %d: %v", ErrNotConvertible, i, err)
		}
		param.SetJSON(data, &blocks[i])
	}
	return blocks, out, nil
}

// hasResult reports whether m has a tool result part.
func hasResult(m recap.Message) bool {
	for _, p := range m.Parts {
		if p.Type == recap.PartToolResult {
			return true
		}
	}
	return false
}

// partBlocks returns the content blocks of m: a text block of Content if
// it has parts too, then a block per part.
func partBlocks(m recap.Message) ([]json.RawMessage, error) {
	var blocks []json.RawMessage
	text := func(s string) json.RawMessage {
		return jsonobj.Encode(map[string]json.RawMessage{"type": jsonobj.Quote(blockText), "text": jsonobj.Quote(s)})
	}
	if m.Content != "" {
		blocks = append(blocks, text(m.Content))
	}
	if m.Refusal != "" {
		blocks = append(blocks, text(m.Refusal))
	}
	for _, p := range m.Parts {
		b := jsonobj.Copy(p.Extra)
		if _, opaque := b[opaqueMark]; opaque {
			delete(b, opaqueMark)
			blocks = append(blocks, jsonobj.Encode(b))
			continue
		}
		switch {
		case p.Type == recap.PartText || p.Type == recap.PartRefusal:
			b["type"], b["text"] = jsonobj.Quote(blockText), jsonobj.Quote(p.Text)
		case p.Type == recap.PartReasoning:
			if _, signed := b["signature"]; !signed {
				continue // a thinking block the API would reject: not Claude's
			}
			b["type"], b["thinking"] = jsonobj.Quote(blockThinking), jsonobj.Quote(p.Text)
		case p.Type == recap.PartToolCall:
			input, err := toolInput(p)
			if err != nil {
				return nil, err
			}
			b["type"], b["id"], b["name"], b["input"] = jsonobj.Quote(blockToolUse), jsonobj.Quote(p.ToolCallID), jsonobj.Quote(p.ToolName), input
		case p.Type == recap.PartToolResult:
			b["type"], b["tool_use_id"] = jsonobj.Quote(blockToolResult), jsonobj.Quote(p.ToolCallID)
			if p.Output != nil {
				b["content"] = toolContent(p)
			}
		case p.IsFile():
			if _, ok := b["type"]; !ok {
				img, err := imageBlock(p)
				if err != nil {
					return nil, err
				}
				b = img
			}
		case p.IsTool():
			return nil, fmt.Errorf("a %s part has no Messages API form", p.Type)
		default:
			if p.Text == "" {
				continue // a step or source marker of another format
			}
			b = map[string]json.RawMessage{"type": jsonobj.Quote(blockText), "text": jsonobj.Quote(p.Text)}
		}
		blocks = append(blocks, jsonobj.Encode(b))
	}
	return blocks, nil
}

// toolInput returns a tool call's input as the JSON object tool_use needs.
func toolInput(p recap.Part) (json.RawMessage, error) {
	in := bytes.TrimSpace(p.Input)
	if p.Wire == recap.WireString {
		var s string
		if json.Unmarshal(in, &s) == nil {
			in = []byte(s)
		}
	}
	if len(in) == 0 {
		return json.RawMessage(`{}`), nil
	}
	if in[0] != '{' || !json.Valid(in) {
		return nil, fmt.Errorf("tool call %s: input %.40q is not a JSON object", p.ToolCallID, in)
	}
	return in, nil
}

// toolContent returns a tool result's content: its string, or its blocks
// (any other JSON value as its text).
func toolContent(p recap.Part) json.RawMessage {
	out := bytes.TrimSpace(p.Output)
	if len(out) > 0 && (out[0] == '"' || out[0] == '[' && p.Wire == recap.WireValue) {
		return out
	}
	return jsonobj.Quote(string(out))
}

// imageBlock returns an image block for a file part of another format: a
// data URL as a base64 source, an http(s) URL as a url source.
func imageBlock(p recap.Part) (map[string]json.RawMessage, error) {
	url := p.URL
	if url == "" {
		var nested struct {
			URL string `json:"url"`
		}
		json.Unmarshal(p.Extra["image_url"], &nested)
		url = nested.URL
	}
	var src map[string]string
	switch {
	case strings.HasPrefix(url, "data:image/"):
		meta, data, ok := strings.Cut(url[len("data:"):], ",")
		mt, enc, _ := strings.Cut(meta, ";")
		if !ok || enc != "base64" {
			return nil, fmt.Errorf("attachment %q is not a base64 data URL", p.MediaType)
		}
		src = map[string]string{"type": "base64", "media_type": mt, "data": data}
	case strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://"):
		src = map[string]string{"type": "url", "url": url}
	default:
		return nil, fmt.Errorf("attachment %s %s has no image URL", p.MediaType, p.Filename)
	}
	source, err := json.Marshal(src)
	if err != nil {
		return nil, err
	}
	return map[string]json.RawMessage{"type": jsonobj.Quote(blockImage), "source": source}, nil
}

// decodeBlock decodes a block into the SDK's union, which may panic on an
// input it cannot place.
func decodeBlock(data []byte, u *sdk.ContentBlockParamUnion) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the SDK cannot decode the block: %v", v)
		}
	}()
	if err := json.Unmarshal(data, u); err != nil {
		return err
	}
	if param.IsOmitted(*u) {
		// A block type this SDK does not know: sent as it is.
		*u = param.Override[sdk.ContentBlockParamUnion](json.RawMessage(data))
	}
	return nil
}
