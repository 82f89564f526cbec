package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/recapgo/recap"
)

// errEmptyInput is decodeChat's error for data that is empty or only
// white space.
var errEmptyInput = errors.New("empty input")

// decodeChat reads a JSON array of chat messages, after a UTF-8 byte order
// mark if there is one, in format "ui" (Vercel AI SDK UIMessages, or any
// messages with id/role/content/parts), "openai" (OpenAI Chat Completions
// messages, whose IDs recap.ChainIDs makes), "anthropic" (Anthropic
// Messages API messages, or a request body whose "system" and "messages"
// it reads, decoded by recap.DecodeAnthropic, IDs by recap.ChainIDs) or
// "auto". Data that is empty or only white space is errEmptyInput. Each
// message is decoded by recap.Message, which keeps its wire format for the
// payload. Auto picks "anthropic" for an object (a request body) or when a
// message has a block only Anthropic has (tool_use, tool_result,
// thinking...), "ui" when a message has parts, "openai" when one has no
// id, tool_calls, tool_call_id or content blocks, and "ui" otherwise; a
// chat with the signs of two formats is an error naming the two messages,
// since decoding it either way would lose one kind of content (an
// Anthropic tool_use read as an OpenAI block counts nothing).
func decodeChat(data []byte, format string) ([]recap.Message, string, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, "", errEmptyInput
	}
	if format != "auto" && format != "ui" && format != "openai" && format != "anthropic" {
		return nil, "", fmt.Errorf("unknown format %q (want auto, ui, openai or anthropic)", format)
	}
	array, body := data, false
	if messages, ok := requestMessages(data); ok {
		if format != "auto" && format != "anthropic" {
			return nil, "", fmt.Errorf("an object with \"messages\" is an Anthropic request body, not a chat in format %s (use -format anthropic)", format)
		}
		array, body, format = messages, true, "anthropic"
	}
	raw, err := decodeArray(array)
	if err != nil {
		if body {
			err = fmt.Errorf("messages: %w", err)
		}
		return nil, "", err
	}
	parts, openai, sign := -1, -1, ""
	strong, strongSign := -1, "" // an OpenAI sign an Anthropic message never has
	anth, anthSign := -1, ""
	for i, m := range raw {
		if _, ok := m["parts"]; ok && parts < 0 {
			parts = i
		}
		if s := openAISign(m); s != "" && openai < 0 {
			openai, sign = i, s
		}
		if s := strongOpenAISign(m); s != "" && strong < 0 {
			strong, strongSign = i, s
		}
		if s := anthropicSign(m); s != "" && anth < 0 {
			anth, anthSign = i, s
		}
	}
	if format == "auto" && anth >= 0 {
		format = "anthropic"
	}
	switch {
	case format == "openai" && parts >= 0:
		return nil, "", fmt.Errorf("message %d has parts: it is an AI SDK UIMessage, not an OpenAI message (use -format ui)", parts)
	case (format == "openai" || format == "ui") && anth >= 0:
		return nil, "", fmt.Errorf("message %d %s: it is an Anthropic message, not a chat in format %s (use -format anthropic)", anth, anthSign, format)
	case format == "anthropic" && parts >= 0:
		return nil, "", fmt.Errorf("message %d has parts: it is an AI SDK UIMessage, not an Anthropic message (use -format ui)", parts)
	case format == "anthropic" && strong >= 0 && anth >= 0:
		return nil, "", fmt.Errorf("message %d %s, as an Anthropic message, but message %d %s, as an OpenAI message: a chat must be in one format", anth, anthSign, strong, strongSign)
	case format == "anthropic" && strong >= 0:
		return nil, "", fmt.Errorf("message %d %s: it is an OpenAI message, not an Anthropic message (use -format openai)", strong, strongSign)
	case format == "auto" && parts >= 0 && openai >= 0:
		return nil, "", fmt.Errorf("message %d has parts, as an AI SDK UIMessage, but message %d %s, as an OpenAI message: a chat must be in one format", parts, openai, sign)
	case format == "auto" && openai >= 0:
		format = "openai"
	case format == "auto":
		format = "ui"
	}
	if format == "anthropic" {
		msgs, err := recap.DecodeAnthropic(data)
		if err != nil {
			return nil, "", errors.New(strings.TrimPrefix(err.Error(), "recap: decode anthropic: "))
		}
		// Anthropic messages have no IDs: as OpenAI's, below.
		return recap.ChainIDs(msgs), format, nil
	}
	msgs := make([]recap.Message, len(raw))
	for i, m := range raw {
		b, _ := json.Marshal(m) // an object decoded from JSON: cannot fail
		if err := json.Unmarshal(b, &msgs[i]); err != nil {
			return nil, "", fmt.Errorf("message %d: %s", i, strings.TrimPrefix(err.Error(), "recap: "))
		}
	}
	if format == "ui" {
		// A message without an ID decodes as an OpenAI one, which recap
		// would give an ID: forced to be a UIMessage, it is refused (a
		// UIMessage carries its own).
		for i, m := range raw {
			if _, ok := m["id"]; !ok {
				msgs[i].Format = recap.FormatUI
			}
		}
	}
	if format == "openai" {
		// OpenAI messages have no IDs: each gets one chained to the
		// message before it, stable while the chat grows (see
		// recap.ChainIDs). A UIMessage must have its own.
		msgs = recap.ChainIDs(msgs)
	}
	return msgs, format, nil
}

// openAISign returns what marks m as an OpenAI message rather than a
// UIMessage ("has no id", "has tool_calls", ...), or "".
func openAISign(m map[string]json.RawMessage) string {
	if _, ok := m["id"]; !ok {
		return "has no id"
	}
	for _, k := range []string{"tool_calls", "tool_call_id"} {
		if _, ok := m[k]; ok {
			return "has " + k
		}
	}
	if c := bytes.TrimSpace(m["content"]); len(c) > 0 && c[0] == '[' {
		return "has content blocks"
	}
	return ""
}

// strongOpenAISign returns what marks m as an OpenAI message rather than
// an Anthropic one ("has tool_calls", "has the role tool", ...), or "":
// Anthropic messages have no id either, and content blocks.
func strongOpenAISign(m map[string]json.RawMessage) string {
	for _, k := range []string{"tool_calls", "tool_call_id", "function_call", "refusal"} {
		if _, ok := m[k]; ok {
			return "has " + k
		}
	}
	var role string
	if json.Unmarshal(m["role"], &role) == nil && (role == "tool" || role == "developer") {
		return "has the role " + role
	}
	for _, b := range blocks(m) {
		switch b.Type {
		case "image_url", "input_audio", "file":
			return "has an " + b.Type + " block"
		}
	}
	return ""
}

// anthropicSign returns what marks m as an Anthropic message ("has a
// tool_use block", ...), or "": a block of a type only Anthropic has, or
// an image or document with a "source".
func anthropicSign(m map[string]json.RawMessage) string {
	for _, b := range blocks(m) {
		switch {
		case b.Type == "thinking", b.Type == "redacted_thinking",
			strings.HasSuffix(b.Type, "tool_use"), strings.HasSuffix(b.Type, "tool_result"),
			(b.Type == "image" || b.Type == "document") && b.Source != nil:
			return "has a " + b.Type + " block"
		}
	}
	return ""
}

// block is what the format signs read of a content block.
type block struct {
	Type   string          `json:"type"`
	Source json.RawMessage `json:"source"`
}

// blocks returns the content blocks of m, or none if its content is not
// an array of objects.
func blocks(m map[string]json.RawMessage) []block {
	var bs []block
	if c := bytes.TrimSpace(m["content"]); len(c) == 0 || c[0] != '[' || json.Unmarshal(c, &bs) != nil {
		return nil
	}
	return bs
}

// requestMessages returns the "messages" array of data if data is a JSON
// object that has one: an Anthropic request body.
func requestMessages(data []byte) ([]byte, bool) {
	var body struct {
		Messages json.RawMessage `json:"messages"`
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &body) != nil || body.Messages == nil {
		return nil, false
	}
	return body.Messages, true
}

// anthropicPayload returns payload as an Anthropic request body: the
// members of data, the input, if it was a request body (model, tools,
// max_tokens...), with its system and messages those of the payload (see
// recap.EncodeAnthropic), indented.
func anthropicPayload(data []byte, payload []recap.Message) ([]byte, error) {
	body := map[string]json.RawMessage{}
	if _, ok := requestMessages(data); ok {
		if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\ufeff")), &body); err != nil {
			return nil, err
		}
	}
	system, messages, err := recap.EncodeAnthropic(payload)
	if err != nil {
		return nil, err
	}
	delete(body, "system")
	if system != nil {
		body["system"] = system
	}
	body["messages"] = messages
	return json.MarshalIndent(body, "", "  ")
}

// decodeArray decodes a JSON array of objects, with errors that say what
// was found instead (never a Go type name) and where.
func decodeArray(data []byte) ([]map[string]json.RawMessage, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			line := 1 + bytes.Count(data[:syntax.Offset], []byte("\n"))
			return nil, fmt.Errorf("invalid JSON on line %d: %s", line, strings.TrimPrefix(err.Error(), "json: "))
		case errors.As(err, &typ):
			return nil, fmt.Errorf("want a JSON array of messages, got %s", kind(typ.Value))
		}
		return nil, fmt.Errorf("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if elems == nil {
		return nil, errors.New("want a JSON array of messages, got null")
	}
	raw := make([]map[string]json.RawMessage, len(elems))
	for i, e := range elems {
		if err := json.Unmarshal(e, &raw[i]); err != nil || raw[i] == nil {
			var typ *json.UnmarshalTypeError
			got := "null"
			if errors.As(err, &typ) {
				got = kind(typ.Value)
			}
			return nil, fmt.Errorf("message %d: want a JSON object, got %s", i, got)
		}
	}
	return raw, nil
}

// kind names a JSON kind as encoding/json reports it in an
// UnmarshalTypeError ("object", "string", "number", ...), with an article.
func kind(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "bool":
		return "a boolean"
	}
	return "a " + v
}
