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
// messages, whose IDs recap.ChainIDs makes) or "auto". Data that is empty
// or only white space is errEmptyInput. Each message is decoded by
// recap.Message, which keeps its wire format for the payload. Auto picks
// "ui" when a message has parts, "openai" when one has no id, tool_calls,
// tool_call_id or content blocks, and "ui" otherwise; a chat with both
// signs is an error naming the two messages, since decoding it either way
// would lose one kind of content.
func decodeChat(data []byte, format string) ([]recap.Message, string, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, "", errEmptyInput
	}
	raw, err := decodeArray(data)
	if err != nil {
		return nil, "", err
	}
	if format != "auto" && format != "ui" && format != "openai" {
		return nil, "", fmt.Errorf("unknown format %q (want auto, ui or openai)", format)
	}
	parts, openai, sign := -1, -1, ""
	for i, m := range raw {
		if _, ok := m["parts"]; ok && parts < 0 {
			parts = i
		}
		if s := openAISign(m); s != "" && openai < 0 {
			openai, sign = i, s
		}
	}
	switch {
	case format == "openai" && parts >= 0:
		return nil, "", fmt.Errorf("message %d has parts: it is an AI SDK UIMessage, not an OpenAI message (use -format ui)", parts)
	case format == "auto" && parts >= 0 && openai >= 0:
		return nil, "", fmt.Errorf("message %d has parts, as an AI SDK UIMessage, but message %d %s, as an OpenAI message: a chat must be in one format", parts, openai, sign)
	case format == "auto" && openai >= 0:
		format = "openai"
	case format == "auto":
		format = "ui"
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
