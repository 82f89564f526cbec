package openai

import (
	"encoding/json"
	"errors"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/llm"
)

// Conversions between the SDK's Chat Completions messages and recap's. A
// backend that holds its chat as []oai.ChatCompletionMessageParamUnion
// compresses it as
//
//	msgs, err := openai.FromChatCompletion(history)
//	res, err := compressor.Compress(ctx, chatID, msgs)
//	payload, err := openai.ToChatCompletion(res.Payload)
//	resp, err := client.Chat.Completions.New(ctx, oai.ChatCompletionNewParams{Model: model, Messages: payload})
//
// recap models the Chat Completions JSON itself ([recap.FormatOpenAI]), so
// nothing is lost on the way: a message converted and converted back
// encodes to the JSON it came from. Chat Completions messages have no IDs;
// [recap.ChainIDs] derives them, so that the payload a client sends back
// (recap's summary included, as {"role":"system","content":...}) is
// recognised on the next turn.

// ErrNotConvertible is matched by the errors of ToChatCompletion and
// ToResponsesInput for a message that has no form in the API, such as one
// of a role the API does not know or a tool message without a result.
var ErrNotConvertible = errors.New("openai: message has no OpenAI API form")

// FromChatCompletion returns msgs as recap messages in
// [recap.FormatOpenAI], with IDs from [recap.ChainIDs]: stable while the
// chat grows, changed from an edited message on. A message that carries
// an "id" member of its own (one set with param.Override) keeps it as its
// ID. msgs is not modified.
//
// A message the SDK cannot encode (one with no variant set), one without
// a Chat Completions role, or one recap cannot read (such as a tool call
// without a type) is an error naming its index.
func FromChatCompletion(msgs []oai.ChatCompletionMessageParamUnion) ([]recap.Message, error) {
	out := make([]recap.Message, len(msgs))
	for i, m := range msgs {
		data, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		if err := json.Unmarshal(data, &out[i]); err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		if !chatRole(out[i].Role) {
			return nil, fmt.Errorf("openai: message %d: role %q is not a Chat Completions role", i, out[i].Role)
		}
		switch out[i].Format {
		case recap.FormatUI:
			return nil, fmt.Errorf("openai: message %d: a Chat Completions message has no \"parts\" member", i)
		case recap.FormatPlain:
			// Only {"id","role","content"}, with an "id" the caller
			// added: recap reads that as its plain format. It is an
			// OpenAI message whose id is kept, as recap keeps one.
			out[i].Format = recap.FormatOpenAI
			if out[i].Extra == nil {
				out[i].Extra = map[string]json.RawMessage{}
			}
			out[i].Extra["id"], _ = json.Marshal(out[i].ID) // a string always marshals
		}
	}
	return recap.ChainIDs(out), nil
}

// ToChatCompletion returns msgs, such as a Compress payload, as the SDK's
// messages, each of which encodes to the JSON recap writes for it. The
// summary message the Compressor adds comes out as a message of its role
// ({"role":"system","content":...} by default), which FromChatCompletion
// recognises when a client sends it back.
//
// A message of another format (a plain one built in Go, a UIMessage) is
// written as an OpenAI message of its role, Content, Refusal and its
// "text", "tool-call" and "tool-result" parts; its Extra members, which are
// not OpenAI members, are left out, and a part of any other type is an
// error. A message that cannot be an OpenAI message (a role the SDK does
// not know, more than one tool result) is an error matching
// ErrNotConvertible and naming its index. msgs is not modified.
func ToChatCompletion(msgs []recap.Message) ([]oai.ChatCompletionMessageParamUnion, error) {
	out := make([]oai.ChatCompletionMessageParamUnion, len(msgs))
	for i, m := range msgs {
		fail := func(err error) error {
			return fmt.Errorf("%w: message %d (%s): %w", ErrNotConvertible, i, m.ID, err)
		}
		if !chatRole(m.Role) {
			return nil, fail(fmt.Errorf("role %q is not a Chat Completions role", m.Role))
		}
		if m.Format != recap.FormatOpenAI {
			conv, err := asOpenAI(m)
			if err != nil {
				return nil, fail(err)
			}
			m = conv
		}
		data, err := json.Marshal(m)
		if err != nil {
			return nil, fail(err)
		}
		if err := json.Unmarshal(data, &out[i]); err != nil {
			return nil, fail(err)
		}
		exact(&out[i], data)
	}
	return out, nil
}

// chatRole reports whether r is a role of the SDK's message union.
func chatRole(r recap.Role) bool {
	switch r {
	case recap.RoleSystem, recap.RoleDeveloper, recap.RoleUser, recap.RoleAssistant, recap.RoleTool, "function":
		return true
	}
	return false
}

// asOpenAI returns m, of another format, as an OpenAI message: its role,
// Content, Refusal, and its text, tool-call and tool-result parts without
// their Extra. A JSON value that the wire carries as itself in m's format
// (a UIMessage's input object) becomes a string of its JSON text, as the
// Chat Completions API wants.
func asOpenAI(m recap.Message) (recap.Message, error) {
	out := recap.Message{ID: m.ID, Role: m.Role, Content: m.Content, Refusal: m.Refusal, Format: recap.FormatOpenAI}
	for _, p := range m.Parts {
		switch p.Type {
		case recap.PartText:
			out.Parts = append(out.Parts, recap.Part{Type: recap.PartText, Text: p.Text})
		case recap.PartToolCall:
			out.Parts = append(out.Parts, recap.Part{Type: p.Type, ToolCallID: p.ToolCallID, ToolName: p.ToolName, Input: p.Input, Wire: foreignWire(p.Input, p.Wire)})
		case recap.PartToolResult:
			out.Parts = append(out.Parts, recap.Part{Type: p.Type, ToolCallID: p.ToolCallID, Output: p.Output, Wire: foreignWire(p.Output, p.Wire)})
		default:
			return recap.Message{}, fmt.Errorf("a %q part of a %v message has no Chat Completions form", p.Type, m.Format)
		}
	}
	return out, nil
}

// foreignWire returns how an OpenAI message carries v, which another
// format carried as form: a JSON string as itself, any other value as its
// JSON text.
func foreignWire(v json.RawMessage, form recap.WireForm) recap.WireForm {
	if form != recap.WireValue {
		return form
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return recap.WireString
	}
	return recap.WireJSONText
}

// exact makes the union *u encode to data, which it was decoded from
// (see llm.ExactUnion).
func exact(u any, data []byte) { llm.ExactUnion(u, data, param.SetJSON) }
