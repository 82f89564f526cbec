package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/recapgo/recap"
)

// decodeChat reads a JSON array of chat messages in format "ui" (Vercel AI
// SDK UIMessages, or any messages with id/role/content/parts), "openai"
// (OpenAI Chat Completions messages) or "auto", which picks "openai" when
// some message has no id or has content blocks, tool_calls or tool_call_id,
// and "ui" otherwise.
func decodeChat(data []byte, format string) ([]recap.Message, string, error) {
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, "", fmt.Errorf("chat is not a JSON array of objects: %w", err)
	}
	if format == "auto" {
		format = "ui"
		for _, m := range raw {
			_, hasID := m["id"]
			_, calls := m["tool_calls"]
			_, callID := m["tool_call_id"]
			c := bytes.TrimSpace(m["content"])
			if !hasID || calls || callID || (len(c) > 0 && c[0] == '[') {
				format = "openai"
				break
			}
		}
	}
	switch format {
	case "ui":
		var msgs []recap.Message
		if err := json.Unmarshal(data, &msgs); err != nil {
			return nil, "", err
		}
		return msgs, format, nil
	case "openai":
		msgs, err := fromOpenAI(raw)
		return msgs, format, err
	}
	return nil, "", fmt.Errorf("unknown format %q (want auto, ui or openai)", format)
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
