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
	"github.com/recapgo/recap/internal/jsonobj"
	"github.com/recapgo/recap/internal/llm"
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
// FromMessages is recap's own Anthropic format ([recap.FormatAnthropic],
// as [recap.DecodeAnthropic] reads a request body): one mapping, in the
// library, for SDK types and raw JSON alike. Each system block is a
// pinned system message, each message a message of one part per block:
// tool_use and tool_result blocks (and the server tools') are tool calls
// and results counted as their tool text, images and documents file parts
// counted by WithMediaTokens (a plain-text document by its text),
// redacted thinking counts nothing, any other block travels unchanged and
// counts as its JSON. A user message that holds a tool_result block is a
// tool message to recap: never the start of a turn or of the window, so a
// cut never separates it from the tool_use before it. Members recap does
// not model (cache_control, citations, is_error, signature...) stay in
// Extra, so converting back gives the same JSON. The Messages API has no
// message IDs: the IDs come from [recap.ChainIDs].

// ErrNotConvertible is matched by the errors of ToMessages for a message
// that has no form in the Messages API.
var ErrNotConvertible = errors.New("anthropic: message has no Messages API form")

// FromMessages returns system's blocks and msgs as recap messages of
// [recap.FormatAnthropic], decoded by [recap.DecodeAnthropicSystem] and
// [recap.DecodeAnthropicMessage] (see those for the mapping), with IDs
// from [recap.ChainIDs]; it does not modify its arguments. The summary
// ToMessages wrote, sent back with the rest of the request (as the last
// system block, with or without the cache_control breakpoint ToMessages
// put on it), is known again as recap's own (see [recap.Compressor]). A
// message of the role "system" (one among the messages, not a top-level
// block) is a system message of that format, which ToMessages writes back
// among the messages.
//
// A block or message the SDK cannot encode, one without a type, or a role
// other than user, assistant and system, is an error naming it.
func FromMessages(system []sdk.TextBlockParam, msgs []sdk.MessageParam) ([]recap.Message, error) {
	out := make([]recap.Message, 0, len(system)+len(msgs))
	if len(system) > 0 {
		data, err := json.Marshal(system)
		if err != nil {
			return nil, fmt.Errorf("anthropic: system: %w", err)
		}
		if out, err = recap.DecodeAnthropicSystem(data); err != nil {
			return nil, fmt.Errorf("anthropic: %w", err)
		}
	}
	for i, pm := range msgs {
		data, err := json.Marshal(pm)
		if err != nil {
			return nil, fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		m, err := recap.DecodeAnthropicMessage(data)
		if err != nil {
			return nil, fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		switch m.Role {
		case recap.RoleUser, recap.RoleAssistant, recap.RoleSystem, recap.RoleTool:
		default:
			return nil, fmt.Errorf("anthropic: message %d: role %q is not user, assistant or system", i, m.Role)
		}
		out = append(out, m)
	}
	return recap.ChainIDs(out), nil
}

// memberCacheControl, in the Extra of a message of another format with
// Content, is the cache_control of the text block that Content stands for.
const memberCacheControl = "cache_control"

// Block types ToMessages writes for messages of other formats.
const (
	blockText       = "text"
	blockImage      = "image"
	blockThinking   = "thinking"
	blockToolUse    = "tool_use"
	blockToolResult = "tool_result"
)

// A ConvertOption configures ToMessages.
type ConvertOption func(*convertConfig)

// convertConfig is what the ConvertOptions set.
type convertConfig struct {
	noBreakpoint bool
}

// WithoutCacheBreakpoint keeps ToMessages from adding a cache_control
// breakpoint at the end of the stable prefix. Breakpoints that the
// messages carry themselves are written all the same.
func WithoutCacheBreakpoint() ConvertOption {
	return func(c *convertConfig) { c.noBreakpoint = true }
}

// MaxCacheBreakpoints is how many cache_control breakpoints the Messages
// API accepts in a request.
const MaxCacheBreakpoints = 4

// ToMessages returns msgs, such as a Compress payload, as a Messages API
// request's system blocks and messages, fresh values that do not share
// memory with msgs. Messages from FromMessages come back as they were
// (the same JSON).
//
// The leading system (and developer) messages, the pinned prompt and a
// summary the Compressor added with the default role, become the system
// blocks. A summary of another role (recap.WithSummaryRole) is the first
// message, as a user message: the API wants a user message first, so an
// assistant-role summary is sent as a user one. It is a message of its
// own, which the API joins to the user message after it; sent back, it is
// known again as the summary. Tool messages become user messages of
// tool_result blocks. The API joins consecutive messages of one role
// itself, so they are left as they are; the Compressor never separates a
// tool_result from the assistant message of its tool_use.
//
// The end of the stable prefix, the last system block (the summary, with
// the default summary role) or a summary sent as the first message, gets a
// cache_control breakpoint ({"type":"ephemeral"}), so that prompt caching
// keeps hitting from one turn to the next; sent back, it leaves the
// summary recognizable. It is not added if that block has one already, if
// the request holds the API's maximum of MaxCacheBreakpoints, or with
// WithoutCacheBreakpoint. ToMessages does not see the request's tools:
// if their breakpoints would make more than MaxCacheBreakpoints, use
// WithoutCacheBreakpoint and set one yourself. Of several ConvertOptions,
// all apply.
//
// Send back the system blocks ToMessages returned, not only the messages:
// they hold the summary, without which the next turn looks like a chat
// that lost its beginning.
//
// A system message after the conversation started, a tool message without
// a tool result, or a part that has no Messages API form (a tool call
// whose input is not a JSON object, an attachment of another format that
// is not an image URL) is an error matching ErrNotConvertible; so is a
// nil ConvertOption.
func ToMessages(msgs []recap.Message, opts ...ConvertOption) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	var cfg convertConfig
	for _, o := range opts {
		if o == nil {
			return nil, nil, fmt.Errorf("%w: nil ConvertOption", ErrNotConvertible)
		}
		o(&cfg)
	}
	// A message, as it will be sent.
	type message struct {
		role   sdk.MessageParamRole
		blocks []json.RawMessage
		extra  map[string]any
	}
	var (
		system  []jsonobj.Object
		out     []message
		started bool // a user, assistant or tool message is in out
		summary = -1 // the index in out of a summary sent as a message
	)
	for i, m := range msgs {
		notConvertible := func(format string, args ...any) error {
			return fmt.Errorf("%w: message %d (%s): %s", ErrNotConvertible, i, m.ID, fmt.Sprintf(format, args...))
		}
		isSystem := m.Role == recap.RoleSystem || m.Role == recap.RoleDeveloper
		if isSystem && (!started || m.Format != recap.FormatAnthropic) {
			// (A system message of recap.FormatAnthropic after the
			// conversation started came from the messages: it goes back
			// there.)
			if started {
				return nil, nil, notConvertible("a %s message after the conversation started", m.Role)
			}
			if m.Format == recap.FormatAnthropic {
				// recap's own Anthropic system blocks, as they came.
				blocks, err := anthropicBlocks(m)
				if err != nil {
					return nil, nil, notConvertible("%v", err)
				}
				for _, data := range blocks {
					var b jsonobj.Object
					if err := json.Unmarshal(data, &b); err != nil {
						return nil, nil, notConvertible("%v", err)
					}
					system = append(system, b)
				}
				continue
			}
			b := jsonobj.Copy(m.Extra)
			if m.Format != recap.FormatOpenAI {
				delete(b, "id")
			}
			b["type"], b["text"] = jsonobj.Quote(blockText), jsonobj.Quote(m.Text())
			system = append(system, b)
			continue
		}
		if m.Role == recap.RoleTool && !llm.HasToolResult(m) {
			return nil, nil, notConvertible("a tool message without a tool result")
		}
		msg := message{role: sdk.MessageParamRoleUser}
		switch m.Role {
		case recap.RoleAssistant:
			msg.role = sdk.MessageParamRoleAssistant
		case recap.RoleSystem, recap.RoleDeveloper:
			msg.role = sdk.MessageParamRoleSystem
		}
		if !started && !isSystem && strings.HasPrefix(m.ID, recap.SummaryIDPrefix) {
			// The summary, where the Compressor puts it: before the
			// conversation.
			msg.role, summary = sdk.MessageParamRoleUser, len(out)
		}
		blocks, err := partBlocks(m)
		if err != nil {
			return nil, nil, notConvertible("%v", err)
		}
		msg.blocks = blocks
		for name, v := range m.Extra {
			switch {
			case name == "role" || name == "content":
				// The role and content are the message's own.
			case name == memberCacheControl && m.Content != "":
				// On the text block of Content (see partBlocks).
			default:
				if msg.extra == nil {
					msg.extra = map[string]any{}
				}
				msg.extra[name] = append(json.RawMessage(nil), v...)
			}
		}
		started = started || !isSystem
		out = append(out, msg)
	}

	if !cfg.noBreakpoint {
		n := 0
		for _, b := range system {
			n += countBreakpoints(jsonobj.Encode(b))
		}
		for _, msg := range out {
			for _, b := range msg.blocks {
				n += countBreakpoints(b)
			}
		}
		// The last block of the stable prefix gets one.
		breakpoint := func(b jsonobj.Object) bool {
			if n >= MaxCacheBreakpoints || countBreakpoints(jsonobj.Encode(b)) > 0 {
				return false
			}
			b[memberCacheControl] = json.RawMessage(`{"type":"ephemeral"}`)
			return true
		}
		switch {
		case summary >= 0:
			blocks := out[summary].blocks
			var last jsonobj.Object
			if len(blocks) > 0 && json.Unmarshal(blocks[len(blocks)-1], &last) == nil && breakpoint(last) {
				blocks[len(blocks)-1] = jsonobj.Encode(last)
			}
		case len(system) > 0:
			breakpoint(system[len(system)-1])
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
	params := make([]sdk.MessageParam, len(out))
	for i, msg := range out {
		pm := sdk.MessageParam{Role: msg.role}
		if msg.blocks != nil {
			pm.Content = make([]sdk.ContentBlockParamUnion, len(msg.blocks))
		}
		for j, data := range msg.blocks {
			if err := decodeBlock(data, &pm.Content[j]); err != nil {
				return nil, nil, fmt.Errorf("%w: message %d: block %d: %v", ErrNotConvertible, i, j, err)
			}
			llm.ExactUnion(&pm.Content[j], data, param.SetJSON)
		}
		if msg.extra != nil {
			pm.SetExtraFields(msg.extra)
		}
		params[i] = pm
	}
	return blocks, params, nil
}

// countBreakpoints returns how many cache_control breakpoints the JSON
// value data holds, at any depth (a tool result's content blocks may hold
// their own).
func countBreakpoints(data []byte) int {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return 0
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if cc, ok := v[memberCacheControl]; ok && cc != nil {
				n++
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return n
}

// partBlocks returns the content blocks of m: a message of
// recap.FormatAnthropic (from FromMessages or recap.DecodeAnthropic) has
// its blocks written by recap (see anthropicBlocks); one of another format
// a text block of Content (with the cache_control in m's Extra, if any),
// then a block per part.
func partBlocks(m recap.Message) ([]json.RawMessage, error) {
	if m.Format == recap.FormatAnthropic {
		return anthropicBlocks(m)
	}
	var blocks []json.RawMessage
	if m.Parts != nil {
		blocks = []json.RawMessage{} // content: [], as it came
	}
	text := func(s string) jsonobj.Object {
		return jsonobj.Object{"type": jsonobj.Quote(blockText), "text": jsonobj.Quote(s)}
	}
	if m.Content != "" {
		b := text(m.Content)
		if cc, ok := m.Extra[memberCacheControl]; ok {
			b[memberCacheControl] = cc
		}
		blocks = append(blocks, jsonobj.Encode(b))
	}
	if m.Refusal != "" {
		blocks = append(blocks, jsonobj.Encode(text(m.Refusal)))
	}
	for _, p := range m.Parts {
		b := jsonobj.Copy(p.Extra)
		switch {
		case p.Type == recap.PartText || p.Type == recap.PartRefusal:
			b["type"], b["text"] = jsonobj.Quote(blockText), jsonobj.Quote(p.Text)
		case p.Type == recap.PartReasoning:
			if _, signed := b["signature"]; !signed {
				continue // a thinking block the API would reject: not Claude's
			}
			b["type"], b["thinking"] = jsonobj.Quote(blockThinking), jsonobj.Quote(p.Text)
		case p.Type == recap.PartToolCall:
			b["type"], b["id"], b["name"] = jsonobj.Quote(blockToolUse), jsonobj.Quote(p.ToolCallID), jsonobj.Quote(p.ToolName)
			if p.Input != nil || p.Wire != recap.WireValue {
				input, err := toolInput(p)
				if err != nil {
					return nil, err
				}
				b["input"] = input
			}
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
			b = text(p.Text)
		}
		blocks = append(blocks, jsonobj.Encode(b))
	}
	return blocks, nil
}

// anthropicBlocks returns the content blocks of m, a message of
// recap.FormatAnthropic, as recap writes them (the library's Anthropic
// format, not converted a second time here): a string content as one text
// block; nil for a message of no content.
func anthropicBlocks(m recap.Message) ([]json.RawMessage, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var msg struct{ Content json.RawMessage }
	if err := json.Unmarshal(data, &msg); err != nil {
		return nil, err
	}
	switch c := bytes.TrimSpace(msg.Content); {
	case len(c) == 0 || string(c) == "null":
		return nil, nil
	case c[0] == '"':
		return []json.RawMessage{jsonobj.Encode(jsonobj.Object{"type": jsonobj.Quote(blockText), "text": c})}, nil
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(msg.Content, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// toolInput returns a tool call's input as the JSON object tool_use needs.
func toolInput(p recap.Part) (json.RawMessage, error) {
	in := llm.InputJSON(p)
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
func imageBlock(p recap.Part) (jsonobj.Object, error) {
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
	return jsonobj.Object{"type": jsonobj.Quote(blockImage), "source": source}, nil
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
