package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/recapgo/recap"
)

// decodeChat reads a JSON array of chat messages, after a UTF-8 byte order
// mark if there is one, in format "ui" (Vercel AI SDK UIMessages, or any
// messages with id/role/content/parts), "openai" (OpenAI Chat Completions
// messages) or "auto". Auto picks "ui" when a message has parts, "openai"
// when one has no id, tool_calls, tool_call_id or content blocks, and "ui"
// otherwise; a chat with both signs is an error naming the two messages,
// since decoding it either way would lose one kind of content.
func decodeChat(data []byte, format string) ([]recap.Message, string, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
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
	if format == "openai" {
		msgs, err := fromOpenAI(raw)
		return msgs, format, err
	}
	var msgs []recap.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, "", err
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

// openAIMessage is one message of the Chat Completions API.
type openAIMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// fromOpenAI converts Chat Completions messages. A message without an id
// gets "m<index>", stable as long as the chat only grows; "developer"
// messages count as system messages. Content blocks become text parts,
// tool calls tool-call parts and tool messages tool-result parts.
func fromOpenAI(raw []map[string]json.RawMessage) ([]recap.Message, error) {
	msgs := make([]recap.Message, 0, len(raw))
	for i, r := range raw {
		b, _ := json.Marshal(r)
		var om openAIMessage
		if err := json.Unmarshal(b, &om); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		m := recap.Message{ID: om.ID, Role: recap.Role(om.Role)}
		if m.ID == "" {
			m.ID = fmt.Sprintf("m%d", i)
		}
		if om.Role == "developer" {
			m.Role = recap.RoleSystem
		}
		content := bytes.TrimSpace(om.Content)
		switch {
		case len(content) == 0 || string(content) == "null":
		case content[0] == '"':
			if err := json.Unmarshal(content, &m.Content); err != nil {
				return nil, fmt.Errorf("message %d: content: %w", i, err)
			}
		case content[0] == '[':
			var blocks []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(content, &blocks); err != nil {
				return nil, fmt.Errorf("message %d: content: %w", i, err)
			}
			for _, bl := range blocks {
				if bl.Type == "text" {
					m.Parts = append(m.Parts, recap.Part{Type: recap.PartText, Text: bl.Text})
				}
			}
		default:
			return nil, fmt.Errorf("message %d: content is neither a string nor a list of blocks", i)
		}
		if om.Role == "tool" {
			// A tool's content is a string, usually of JSON: keep that JSON
			// as the output, so it is counted as the model reads it.
			out := content
			switch {
			case len(out) == 0:
				out = []byte("null")
			case m.Content != "" && json.Valid([]byte(m.Content)):
				out = []byte(m.Content)
			}
			m.Parts = []recap.Part{{Type: recap.PartToolResult, ToolCallID: om.ToolCallID, Output: json.RawMessage(out)}}
			m.Content = ""
		}
		for _, tc := range om.ToolCalls {
			if len(m.Parts) == 0 && m.Content != "" {
				m.Parts = append(m.Parts, recap.Part{Type: recap.PartText, Text: m.Content})
				m.Content = ""
			}
			in := json.RawMessage(tc.Function.Arguments)
			if !json.Valid(in) {
				s, _ := json.Marshal(tc.Function.Arguments)
				in = s
			}
			m.Parts = append(m.Parts, recap.Part{Type: recap.PartToolCall, ToolCallID: tc.ID, ToolName: tc.Function.Name, Input: in})
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}
