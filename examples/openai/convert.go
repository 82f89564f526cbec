package openai

import (
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/internal/llm"
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
// encodes to the JSON it came from.

// FromChatCompletion returns msgs as recap messages in
// [recap.FormatOpenAI], with IDs from [recap.ChainIDs] (Chat Completions
// messages have none): stable while the chat grows, changed from an
// edited message on. A message the SDK cannot encode, or that recap cannot
// read (such as a tool call without a type), is an error naming its
// index.
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
		if out[i].Format != recap.FormatOpenAI {
			// Only {"id","role","content"}, with an "id" the caller
			// added: recap reads that as its plain format. It is an
			// OpenAI message whose id is kept, as recap keeps one.
			out[i].Format = recap.FormatOpenAI
			if out[i].Extra == nil {
				out[i].Extra = map[string]json.RawMessage{}
			}
			out[i].Extra["id"], _ = json.Marshal(out[i].ID)
		}
	}
	return recap.ChainIDs(out), nil
}

// ToChatCompletion returns msgs, such as a Compress payload, as the SDK's
// messages. A message of another format (a plain one built in Go, or a
// UIMessage) is written as an OpenAI message of its role and content. A
// message that cannot be an OpenAI message (more than one tool result, a
// role the SDK does not know) is an error naming its index.
func ToChatCompletion(msgs []recap.Message) ([]oai.ChatCompletionMessageParamUnion, error) {
	out := make([]oai.ChatCompletionMessageParamUnion, len(msgs))
	for i, m := range msgs {
		if m.Format != recap.FormatOpenAI {
			m.Format = recap.FormatOpenAI
			m.Extra = withoutID(m.Extra)
		}
		data, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d (%s): %w", i, m.ID, err)
		}
		if err := json.Unmarshal(data, &out[i]); err != nil {
			return nil, fmt.Errorf("openai: message %d (%s): %w", i, m.ID, err)
		}
		exact(&out[i], data)
		if out[i].GetRole() == nil {
			return nil, fmt.Errorf("openai: message %d (%s): role %q is not a Chat Completions role", i, m.ID, m.Role)
		}
	}
	return out, nil
}

// withoutID returns extra without an "id" member, copying it only if it
// has one: a message of another format carries its ID there, which an
// OpenAI message has not.
func withoutID(extra map[string]json.RawMessage) map[string]json.RawMessage {
	if _, ok := extra["id"]; !ok {
		return extra
	}
	out := make(map[string]json.RawMessage, len(extra))
	for k, v := range extra {
		if k != "id" {
			out[k] = v
		}
	}
	return out
}

// exact makes the union *u encode to data, which it was decoded from
// (see llm.ExactUnion).
func exact(u any, data []byte) { llm.ExactUnion(u, data, param.SetJSON) }
