package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/anthropic"
	"github.com/recapgo/recap/internal/apitest"
)

// rawBlock is a block the SDK sends as given.
func rawBlock(s string) sdk.ContentBlockParamUnion {
	return param.Override[sdk.ContentBlockParamUnion](json.RawMessage(s))
}

var system = []sdk.TextBlockParam{
	{Text: "You are a travel agent."},
	{Text: "Prices are in euros.", CacheControl: sdk.NewCacheControlEphemeralParam()},
}

// richChat holds every kind of block a backend sends back to Claude.
func richChat() []sdk.MessageParam {
	cached := sdk.NewTextBlock("My budget is 200 euros.")
	cached.OfText.CacheControl = sdk.NewCacheControlEphemeralParam()
	tagged := sdk.NewUserMessage(sdk.NewTextBlock("Bye."))
	tagged.SetExtraFields(map[string]any{"x_trace": "t-1"})
	return []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("Plan a day in Lisbon.")),
		sdk.NewUserMessage(sdk.NewTextBlock("Here is my map:"),
			sdk.NewImageBlockBase64("image/png", "iVBORw0KGgo=")),
		sdk.NewAssistantMessage(
			sdk.NewThinkingBlock("sig-abc", "The user wants weather first."),
			sdk.NewTextBlock("Let me check the weather."),
			sdk.NewToolUseBlock("toolu_1", map[string]any{"city": "Lisbon"}, "weather"),
			sdk.NewToolUseBlock("toolu_2", map[string]any{"city": "Sintra"}, "weather")),
		{Role: sdk.MessageParamRoleUser, Content: []sdk.ContentBlockParamUnion{
			sdk.NewToolResultBlock("toolu_1", `{"temp":21}`, false),
			rawBlock(`{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"timeout"}]}`),
			sdk.NewTextBlock("Also consider the tram."),
		}},
		sdk.NewAssistantMessage(sdk.NewTextBlock("21 degrees in Lisbon; Sintra timed out.")),
		sdk.NewUserMessage(rawBlock(`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Tram 28 runs every 12 minutes."},"title":"tram.txt"}`),
			sdk.NewTextBlock("And this timetable?")),
		sdk.NewAssistantMessage(
			rawBlock(`{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"tram 28"}}`),
			rawBlock(`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://example.com","title":"Tram 28","encrypted_content":"EqQ"}]}`),
			sdk.NewTextBlock("Tram 28 runs often.")),
		sdk.NewUserMessage(cached),
		sdk.NewAssistantMessage(sdk.NewRedactedThinkingBlock("RWNyeXB0ZWQ="), sdk.NewTextBlock("Noted.")),
		{Role: sdk.MessageParamRoleSystem, Content: []sdk.ContentBlockParamUnion{sdk.NewTextBlock("From now on, answer in Portuguese.")}},
		sdk.NewUserMessage(rawBlock(`{"type":"document","source":{"type":"content","content":[{"type":"text","text":"Belem tower: 10 euros."}]},"title":"prices"}`),
			sdk.NewImageBlock(sdk.URLImageSourceParam{URL: "https://example.com/belem.jpg"})),
		sdk.NewAssistantMessage(rawBlock(`{"type":"thinking","thinking":"no signature"}`), sdk.NewTextBlock("Obrigado.")),
		{Role: sdk.MessageParamRoleUser, Content: []sdk.ContentBlockParamUnion{
			rawBlock(`{"type":"tool_result","tool_use_id":"toolu_3","content":[{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}}]}`),
		}},
		tagged,
	}
}

// TestMessagesRoundTrip: every kind of block converts to the recap
// message documented and back to the same JSON.
func TestMessagesRoundTrip(t *testing.T) {
	msgs := richChat()
	rs, err := anthropic.FromMessages(system, msgs)
	if err != nil {
		t.Fatal(err)
	}
	roles := make([]recap.Role, len(rs))
	for i, m := range rs {
		roles[i] = m.Role
		if !strings.HasPrefix(m.ID, recap.ChainIDPrefix) || m.Format != recap.FormatAnthropic || m.Extra["id"] != nil {
			t.Errorf("message %d: ID %q, format %v, Extra %v: want a chain ID, FormatAnthropic, no Extra id", i, m.ID, m.Format, m.Extra)
		}
	}
	want := []recap.Role{"system", "system", "user", "user", "assistant", "tool", "assistant", "user", "assistant",
		"user", "assistant", "system", "user", "assistant", "tool", "user"}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Fatalf("roles mismatch (-want +got):\n%s", diff)
	}
	gotSystem, gotMsgs, err := anthropic.ToMessages(rs, anthropic.WithoutCacheBreakpoint())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, system), apitest.JSONOf(t, gotSystem)); diff != "" {
		t.Errorf("system blocks mismatch (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, msgs), apitest.JSONOf(t, gotMsgs)); diff != "" {
		t.Errorf("messages mismatch (-before +after):\n%s", diff)
	}
	// With the breakpoint: the same, the caller's own breakpoint on the
	// last system block being where ToMessages puts one.
	gotSystem, gotMsgs, err = anthropic.ToMessages(rs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, system), apitest.JSONOf(t, gotSystem)); diff != "" {
		t.Errorf("system blocks with the breakpoint mismatch (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, msgs), apitest.JSONOf(t, gotMsgs)); diff != "" {
		t.Errorf("messages with the breakpoint mismatch (-before +after):\n%s", diff)
	}
}

// TestRecapDecoded: a request decoded by recap.DecodeAnthropic, the
// library's own Anthropic format, goes back through ToMessages as it came:
// its blocks are written by recap, not converted a second time here.
func TestRecapDecoded(t *testing.T) {
	msgs := richChat()
	body, err := json.Marshal(map[string]any{"system": system, "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := recap.DecodeAnthropic(body)
	if err != nil {
		t.Fatal(err)
	}
	gotSystem, gotMsgs, err := anthropic.ToMessages(rs, anthropic.WithoutCacheBreakpoint())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, system), apitest.JSONOf(t, gotSystem)); diff != "" {
		t.Errorf("system blocks mismatch (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, msgs), apitest.JSONOf(t, gotMsgs)); diff != "" {
		t.Errorf("messages mismatch (-before +after):\n%s", diff)
	}
	// FromMessages is recap.DecodeAnthropic with chain IDs: one mapping.
	from, err := anthropic.FromMessages(system, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recap.ChainIDs(rs), from, rawJSON); diff != "" {
		t.Errorf("FromMessages differs from recap.DecodeAnthropic (-library +FromMessages):\n%s", diff)
	}
}

// TestFromMessages: what recap sees of each kind of block: role, Content,
// the parts' types and the text it counts.
func TestFromMessages(t *testing.T) {
	type want struct {
		Role    recap.Role
		Content string
		Parts   []string
		Text    string
	}
	tests := []struct {
		name   string
		reason string
		in     sdk.MessageParam
		want   want
		system bool // written back as a system block
	}{{
		name:   "lone text",
		reason: "a lone text block is a text part, written back as the block it was",
		in:     sdk.NewUserMessage(sdk.NewTextBlock("Hi")),
		want:   want{Role: "user", Parts: []string{"text"}, Text: "Hi"},
	}, {
		name:   "lone text with a breakpoint",
		reason: "the breakpoint ToMessages puts on a user-role summary stays on its block",
		in: func() sdk.MessageParam {
			b := sdk.NewTextBlock("Hi")
			b.OfText.CacheControl = sdk.NewCacheControlEphemeralParam()
			return sdk.NewUserMessage(b)
		}(),
		want: want{Role: "user", Parts: []string{"text"}, Text: "Hi"},
	}, {
		name:   "lone text with citations",
		reason: "members other than a breakpoint need a part to travel",
		in:     sdk.NewAssistantMessage(rawBlock(`{"type":"text","text":"Hi","citations":[]}`)),
		want:   want{Role: "assistant", Parts: []string{"text"}, Text: "Hi"},
	}, {
		name:   "image",
		reason: "an image is a file part noted by its media type, never counted by its bytes",
		in:     sdk.NewUserMessage(sdk.NewTextBlock("Look:"), sdk.NewImageBlockBase64("image/png", "iVBORw0KGgo=")),
		want:   want{Role: "user", Parts: []string{"text", "image"}, Text: "Look:\n[attachment: image/png]"},
	}, {
		name:   "pdf document",
		reason: "a PDF is a file part named by its title",
		in:     sdk.NewUserMessage(rawBlock(`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="},"title":"plan.pdf"}`)),
		want:   want{Role: "user", Parts: []string{"document"}, Text: "[attachment: application/pdf plan.pdf]"},
	}, {
		name:   "text document",
		reason: "a plain-text document costs its text",
		in:     sdk.NewUserMessage(rawBlock(`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Tram 28."}}`)),
		want:   want{Role: "user", Parts: []string{"document"}, Text: "Tram 28."},
	}, {
		name:   "tool use",
		reason: "tool_use is a tool-call part: name and input counted",
		in:     sdk.NewAssistantMessage(sdk.NewToolUseBlock("toolu_1", map[string]any{"city": "Lisbon"}, "weather")),
		want:   want{Role: "assistant", Parts: []string{"tool-call"}, Text: `weather` + "\n" + `{"city":"Lisbon"}`},
	}, {
		name:   "tool result",
		reason: "a user message with a tool_result is a tool message, never a turn start",
		in:     sdk.NewUserMessage(rawBlock(`{"type":"tool_result","tool_use_id":"toolu_1","content":"21 degrees","is_error":false}`), sdk.NewTextBlock("Thanks")),
		want:   want{Role: "tool", Parts: []string{"tool-result", "text"}, Text: "21 degrees\nThanks"},
	}, {
		name:   "tool result with a screenshot",
		reason: "an image in a tool_result is an attachment to recap, never counted by its bytes",
		in: sdk.NewUserMessage(rawBlock(`{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"Screen:"},` +
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`)),
		want: want{Role: "tool", Parts: []string{"tool-result"}, Text: `[{"type":"text","text":"Screen:"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"[attachment: image/png]"}}]`},
	}, {
		name:   "thinking",
		reason: "signed thinking is a reasoning part; its signature is not counted",
		in:     sdk.NewAssistantMessage(sdk.NewThinkingBlock("sig", "Think."), sdk.NewTextBlock("Done.")),
		want:   want{Role: "assistant", Parts: []string{"reasoning", "text"}, Text: "Think.\nDone."},
	}, {
		name:   "redacted thinking",
		reason: "encrypted thinking counts nothing",
		in:     sdk.NewAssistantMessage(sdk.NewRedactedThinkingBlock("RWNy"), sdk.NewTextBlock("Done.")),
		want:   want{Role: "assistant", Parts: []string{"redacted_thinking", "text"}, Text: "Done."},
	}, {
		name:   "server tool",
		reason: "a server tool's call is a tool call, counted as its tool text, its type kept",
		in:     sdk.NewAssistantMessage(rawBlock(`{"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"q"}}`)),
		want:   want{Role: "assistant", Parts: []string{"tool-call"}, Text: "web_search\n" + `{"query":"q"}`},
	}, {
		name:   "system message",
		reason: "a message of the role system is a system message; first in the chat, it is written back as a system block",
		in:     sdk.MessageParam{Role: sdk.MessageParamRoleSystem, Content: []sdk.ContentBlockParamUnion{sdk.NewTextBlock("Be brief.")}},
		want:   want{Role: "system", Parts: []string{"text"}, Text: "Be brief."},
		system: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := anthropic.FromMessages(nil, []sdk.MessageParam{tt.in})
			if err != nil {
				t.Fatal(err)
			}
			m := rs[0]
			got := want{Role: m.Role, Content: m.Content, Text: m.Text()}
			for _, p := range m.Parts {
				got.Parts = append(got.Parts, p.Type)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: mismatch (-want +got):\n%s", tt.reason, diff)
			}
			if strings.Contains(m.Text(), "iVBOR") || strings.Contains(m.Text(), "RWNy") {
				t.Errorf("binary data counted: %q", m.Text())
			}
			sys, back, err := anthropic.ToMessages(rs, anthropic.WithoutCacheBreakpoint())
			if err != nil {
				t.Fatal(err)
			}
			if tt.system {
				if len(back) != 0 || len(sys) != 1 || !cmp.Equal(apitest.JSONOf(t, tt.in.Content[0]), apitest.JSONOf(t, sys[0])) {
					t.Errorf("written back as system %s and messages %s, want its block as the system", apitest.JSONOf(t, sys), apitest.JSONOf(t, back))
				}
				return
			}
			if diff := cmp.Diff(apitest.JSONOf(t, []sdk.MessageParam{tt.in}), apitest.JSONOf(t, back)); diff != "" {
				t.Errorf("round trip mismatch (-before +after):\n%s", diff)
			}
		})
	}
}

func TestFromMessagesRejects(t *testing.T) {
	tests := []struct {
		name, reason string
		system       []sdk.TextBlockParam
		msgs         []sdk.MessageParam
	}{
		{"unknown role", "only user, assistant and system messages exist", nil, []sdk.MessageParam{{Role: "tool", Content: []sdk.ContentBlockParamUnion{sdk.NewTextBlock("x")}}}},
		{"block without a type", "a block is told by its type", nil, []sdk.MessageParam{sdk.NewUserMessage(rawBlock(`{"text":"x"}`))}},
		{"tool_use id not a string", "an id is a string", nil, []sdk.MessageParam{sdk.NewAssistantMessage(rawBlock(`{"type":"tool_use","id":7,"name":"f","input":{}}`))}},
		{"content not blocks", "content is a string or blocks", nil, []sdk.MessageParam{func() sdk.MessageParam {
			m := sdk.NewUserMessage()
			m.SetExtraFields(map[string]any{"content": 7})
			return m
		}()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if rs, err := anthropic.FromMessages(tt.system, tt.msgs); err == nil || !strings.HasPrefix(err.Error(), "anthropic: ") {
				t.Errorf("%s: FromMessages = %+v, %v; want an error", tt.reason, rs, err)
			}
		})
	}
}

func TestToMessagesRejects(t *testing.T) {
	tests := []struct {
		name, reason string
		msgs         []recap.Message
		opts         []anthropic.ConvertOption
	}{
		{"system after the start", "the API's system blocks come before the messages",
			[]recap.Message{{ID: "u", Role: recap.RoleUser, Content: "hi"}, {ID: "s", Role: recap.RoleSystem, Content: "late"}}, nil},
		{"tool without result", "a tool message is a user message of tool results",
			[]recap.Message{{ID: "u", Role: recap.RoleUser, Content: "hi"}, {ID: "t", Role: recap.RoleTool, Content: "x"}}, nil},
		{"input not an object", "tool_use input is an object",
			[]recap.Message{{ID: "a", Role: recap.RoleAssistant, Parts: []recap.Part{
				{Type: recap.PartToolCall, ToolCallID: "c", ToolName: "f", Input: json.RawMessage(`[1,2]`)}}}}, nil},
		{"attachment without a URL", "an attachment of another format needs an image URL",
			[]recap.Message{{ID: "u", Role: recap.RoleUser, Parts: []recap.Part{{Type: recap.PartFile, MediaType: "audio/wav"}}}}, nil},
		{"nil option", "a nil option is a mistake, not a default",
			[]recap.Message{{ID: "u", Role: recap.RoleUser, Content: "hi"}}, []anthropic.ConvertOption{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := anthropic.ToMessages(tt.msgs, tt.opts...); !errors.Is(err, anthropic.ErrNotConvertible) {
				t.Errorf("%s: %v, want ErrNotConvertible", tt.reason, err)
			}
		})
	}
}

// breakpoints returns where a request's cache_control breakpoints are, as
// paths such as "system[1]" or "messages[0].content[0]".
func breakpoints(t testing.TB, sys []sdk.TextBlockParam, msgs []sdk.MessageParam) []string {
	var paths []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["cache_control"] != nil {
				paths = append(paths, path)
			}
			for _, k := range []string{"content", "source"} {
				if e, ok := v[k]; ok {
					walk(path+"."+k, e)
				}
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("system", apitest.JSONOf(t, sys))
	walk("messages", apitest.JSONOf(t, msgs))
	return paths
}

// TestCacheBreakpoint: ToMessages puts one breakpoint at the end of the
// stable prefix, and never a fifth.
func TestCacheBreakpoint(t *testing.T) {
	prompt := recap.Message{Role: recap.RoleSystem, Format: recap.FormatOpenAI, Content: "You are a travel agent."}
	summary := func(role recap.Role) recap.Message {
		return recap.NewTextMessage(recap.FormatOpenAI, recap.SummaryIDPrefix+"h-1", role, "Summary.")
	}
	hi := recap.Message{Role: recap.RoleUser, Format: recap.FormatOpenAI, Content: "Hi"}
	cached := func(text string) recap.Message {
		return recap.Message{Role: recap.RoleUser, Format: recap.FormatOpenAI, Content: text, Extra: map[string]json.RawMessage{"cache_control": json.RawMessage(`{"type":"ephemeral"}`)}}
	}
	nested := recap.Message{Role: recap.RoleTool, Format: recap.FormatOpenAI, Parts: []recap.Part{{
		Type: recap.PartToolResult, ToolCallID: "c", Wire: recap.WireValue,
		Output: json.RawMessage(`[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]`),
	}}}
	call := recap.Message{Role: recap.RoleAssistant, Format: recap.FormatOpenAI, Parts: []recap.Part{{Type: recap.PartToolCall, ToolCallID: "c", ToolName: "f", Input: json.RawMessage(`{}`)}}}
	tests := []struct {
		name, reason string
		msgs         []recap.Message
		opts         []anthropic.ConvertOption
		want         []string
		firstRole    sdk.MessageParamRole
	}{
		{"prompt only", "before any summary the prompt is the stable prefix",
			[]recap.Message{prompt, hi}, nil, []string{"system[0]"}, "user"},
		{"system summary", "the summary is the last system block",
			[]recap.Message{prompt, summary(recap.RoleSystem), hi}, nil, []string{"system[1]"}, "user"},
		{"user summary", "a user-role summary is the first message and ends the prefix",
			[]recap.Message{prompt, summary(recap.RoleUser), hi}, nil, []string{"messages[0].content[0]"}, "user"},
		{"assistant summary", "the first message must be a user message",
			[]recap.Message{prompt, summary(recap.RoleAssistant), hi}, nil, []string{"messages[0].content[0]"}, "user"},
		{"user summary, no prompt", "the prefix is the summary alone",
			[]recap.Message{summary(recap.RoleUser), hi}, nil, []string{"messages[0].content[0]"}, "user"},
		{"no prefix", "without a system block or a summary there is nothing stable to mark",
			[]recap.Message{hi}, nil, nil, "user"},
		{"without", "WithoutCacheBreakpoint adds none",
			[]recap.Message{prompt, summary(recap.RoleSystem), hi}, []anthropic.ConvertOption{anthropic.WithoutCacheBreakpoint()}, nil, "user"},
		{"caller's one kept", "the caller's breakpoints stay, and one more fits",
			[]recap.Message{prompt, summary(recap.RoleSystem), cached("a")}, nil, []string{"system[1]", "messages[0].content[0]"}, "user"},
		{"four already", "the API takes at most four",
			[]recap.Message{prompt, cached("a"), cached("b"), cached("c"), cached("d")}, nil,
			[]string{"messages[0].content[0]", "messages[1].content[0]", "messages[2].content[0]", "messages[3].content[0]"}, "user"},
		{"nested ones count", "a tool result's blocks may hold breakpoints too",
			[]recap.Message{prompt, cached("a"), call, nested, cached("d")}, nil,
			[]string{"messages[0].content[0]", "messages[2].content[0].content[0]", "messages[2].content[0].content[1]", "messages[3].content[0]"}, "user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys, msgs, err := anthropic.ToMessages(tt.msgs, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, breakpoints(t, sys, msgs)); diff != "" {
				t.Errorf("%s: breakpoints mismatch (-want +got):\n%s", tt.reason, diff)
			}
			if msgs[0].Role != tt.firstRole {
				t.Errorf("first message role %q, want %q", msgs[0].Role, tt.firstRole)
			}
		})
	}
}

// agentChat is an agent's chat of n turns in the SDK's types: a question,
// a tool call, its result in a user message, an answer.
func agentChat(n int) []sdk.MessageParam {
	var msgs []sdk.MessageParam
	for i := 1; i <= n; i++ {
		msgs = append(msgs, agentTurn(i)...)
	}
	return msgs
}

// agentTurn is turn i of agentChat.
func agentTurn(i int) []sdk.MessageParam {
	id := fmt.Sprintf("toolu_%d", i)
	return []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock(fmt.Sprintf("Day %d: what is the weather in Lisbon, and what should I wear in the evening?", i))),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock(id, map[string]any{"city": "Lisbon", "day": i}, "weather")),
		sdk.NewUserMessage(sdk.NewToolResultBlock(id, fmt.Sprintf(`{"temp":%d,"wind":"light"}`, 18+i), false)),
		sdk.NewAssistantMessage(sdk.NewTextBlock(fmt.Sprintf("Day %d: %d degrees with a light wind; a jacket for the evening.", i, 18+i))),
	}
}

// checkRequest checks a Messages API request body as the API does, after
// joining consecutive messages of one role: the first message is a user
// message; every tool_result answers a tool_use of the message right
// before it and comes before the other blocks of its message; every
// tool_use is answered in the message right after it (unless it is the
// last message); there are at most 4 breakpoints.
func checkRequest(t testing.TB, body map[string]any) {
	t.Helper()
	type turn struct {
		role   string
		blocks []map[string]any
	}
	var turns []turn
	msgs, _ := body["messages"].([]any)
	for _, raw := range msgs {
		m := raw.(map[string]any)
		role := m["role"].(string)
		if role == "system" {
			continue // a system message is not a turn
		}
		if len(turns) == 0 || turns[len(turns)-1].role != role {
			turns = append(turns, turn{role: role})
		}
		content, _ := m["content"].([]any)
		for _, b := range content {
			turns[len(turns)-1].blocks = append(turns[len(turns)-1].blocks, b.(map[string]any))
		}
	}
	if len(turns) == 0 || turns[0].role != "user" {
		t.Errorf("the first message is not a user message: %v", msgs)
		return
	}
	for i, tu := range turns {
		uses := map[string]bool{}
		if i > 0 {
			for _, b := range turns[i-1].blocks {
				if b["type"] == "tool_use" {
					uses[b["id"].(string)] = true
				}
			}
		}
		results, other := map[string]bool{}, false
		for _, b := range tu.blocks {
			if b["type"] != "tool_result" {
				other = true
				continue
			}
			id := b["tool_use_id"].(string)
			results[id] = true
			if !uses[id] || tu.role != "user" {
				t.Errorf("turn %d: tool_result %s without its tool_use in the turn before", i, id)
			}
			if other {
				t.Errorf("turn %d: tool_result %s after another block", i, id)
			}
		}
		for id := range uses {
			if !results[id] {
				t.Errorf("turn %d: tool_use %s not answered", i, id)
			}
		}
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["cache_control"] != nil {
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
	walk(body)
	if n > anthropic.MaxCacheBreakpoints {
		t.Errorf("%d breakpoints, more than the API takes", n)
	}
}

const messageResponse = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`

// summaries is a Summarizer that returns the summary "Summary N." for its
// Nth call and records the content keys of the messages it was given, to
// tell a message summarized twice.
type summaries struct {
	t     testing.TB
	calls int
	seen  map[string]bool
}

func (s *summaries) Summarize(_ context.Context, req recap.SummarizeRequest) (string, error) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, m := range req.Messages {
		key := m.ID[strings.LastIndexByte(m.ID, '.')+1:]
		if s.seen[key] {
			s.t.Errorf("message %s (%.40q) summarized twice", m.ID, m.Text())
		}
		s.seen[key] = true
	}
	s.calls++
	return fmt.Sprintf("Summary %d: the weather in Lisbon by day; a jacket every evening.", s.calls), nil
}

// TestMessagesThroughCompressor: convert, compress, convert back, send
// with the SDK: the summary ends the stable prefix with the cache
// breakpoint on it, tool pairs are intact, the first message is a user
// message. On the next turn the request echoed back, with the answer and
// a new question, keeps the summary: it is known again, not stale, not
// summarized again.
func TestMessagesThroughCompressor(t *testing.T) {
	for _, role := range []recap.Role{recap.RoleSystem, recap.RoleUser, recap.RoleAssistant} {
		t.Run(string(role), func(t *testing.T) {
			sum := &summaries{t: t}
			c, err := recap.New(sum, recap.NewMemoryStore(), recap.WithTriggerTokens(400), recap.WithWindowConversations(2), recap.WithSummaryRole(role))
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := anthropic.FromMessages(system, agentChat(8))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compress(context.Background(), "chat", msgs)
			if err != nil || !res.Summarized || res.Err != nil {
				t.Fatalf("Compress = %+v, %v", res, err)
			}
			sys, payload, err := anthropic.ToMessages(res.Payload)
			if err != nil {
				t.Fatal(err)
			}
			s := apitest.New(t, "/v1/messages", apitest.Response{Status: 200, Body: messageResponse})
			client := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL(s.URL), option.WithMaxRetries(0))
			if _, err := client.Messages.New(context.Background(), sdk.MessageNewParams{Model: sdk.ModelClaudeSonnet4_5, MaxTokens: 100, System: sys, Messages: payload}); err != nil {
				t.Fatal(err)
			}
			body := s.Body(0)
			checkRequest(t, body)
			var wantBreakpoints []string
			blocks := body["system"].([]any)
			first := body["messages"].([]any)[0].(map[string]any)
			if role == recap.RoleSystem {
				wantBreakpoints = []string{"system[1]", "system[2]"}
				if last := blocks[len(blocks)-1].(map[string]any); last["text"] != res.Summary.Text {
					t.Errorf("last system block %v, want the summary", last)
				}
			} else {
				wantBreakpoints = []string{"system[1]", "messages[0].content[0]"}
				if block := first["content"].([]any)[0].(map[string]any); first["role"] != "user" || block["text"] != res.Summary.Text || len(first["content"].([]any)) != 1 {
					t.Errorf("first message %v, want the summary as a user message", first)
				}
			}
			if diff := cmp.Diff(wantBreakpoints, breakpoints(t, sys, payload)); diff != "" {
				t.Errorf("breakpoints mismatch (-want +got):\n%s", diff)
			}

			// The echo, as recap must see it: the summary's text, idless.
			echo, err := anthropic.FromMessages(sys, payload)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, m := range echo {
				if m.Text() == res.Summary.Text {
					found = true
					if m.Format != recap.FormatAnthropic || m.Extra["id"] != nil || len(m.Parts) != 1 {
						t.Errorf("echoed summary %+v: want FormatAnthropic, no Extra id, one text block", m)
					}
				}
			}
			if !found {
				t.Fatalf("the summary is not a message of its own in the echo: %+v", echo)
			}

			// Next turn: what was sent, the answer, a new question.
			next := append(payload, sdk.NewAssistantMessage(sdk.NewTextBlock("ok")), sdk.NewUserMessage(sdk.NewTextBlock("And day 9?")))
			msgs, err = anthropic.FromMessages(sys, next)
			if err != nil {
				t.Fatal(err)
			}
			res2, err := c.Compress(context.Background(), "chat", msgs)
			if err != nil || res2.Stale || res2.Older || res2.Err != nil || res2.Summarized {
				t.Fatalf("next turn: %+v, %v; want the summary kept, not stale, not summarized", res2, err)
			}
			if !res2.Summary.Equal(res.Summary) || sum.calls != 1 {
				t.Errorf("next turn: summary %+v after %d calls, want %+v after 1", res2.Summary, sum.calls, res.Summary)
			}
			sys2, payload2, err := anthropic.ToMessages(res2.Payload)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(apitest.JSONOf(t, sys), apitest.JSONOf(t, sys2)); diff != "" {
				t.Errorf("next turn's system blocks changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(apitest.JSONOf(t, next), apitest.JSONOf(t, payload2)); diff != "" {
				t.Errorf("next turn's messages mismatch (-sent +payload):\n%s", diff)
			}
		})
	}
}

// TestEchoLoop: a client that sends back each request it made, with the
// answer and a new question, for many turns: the summary is never stale,
// no message is summarized twice, and every request is valid.
func TestEchoLoop(t *testing.T) {
	for _, role := range []recap.Role{recap.RoleSystem, recap.RoleUser} {
		t.Run(string(role), func(t *testing.T) {
			sum := &summaries{t: t}
			c, err := recap.New(sum, recap.NewMemoryStore(), recap.WithTriggerTokens(300), recap.WithWindowConversations(1), recap.WithSummaryRole(role))
			if err != nil {
				t.Fatal(err)
			}
			sys := []sdk.TextBlockParam{{Text: "You are a travel agent."}}
			var msgs []sdk.MessageParam
			summarized := 0
			for day := 1; day <= 15; day++ {
				turn := agentTurn(day)
				msgs = append(msgs, turn[0])
				rs, err := anthropic.FromMessages(sys, msgs)
				if err != nil {
					t.Fatal(err)
				}
				res, err := c.Compress(context.Background(), "chat", rs)
				if err != nil || res.Stale || res.Older || res.Err != nil {
					t.Fatalf("day %d: %+v, %v", day, res, err)
				}
				if res.Summarized {
					summarized++
				}
				if sys, msgs, err = anthropic.ToMessages(res.Payload); err != nil {
					t.Fatal(err)
				}
				checkRequest(t, apitest.JSONOf(t, map[string]any{"system": sys, "messages": msgs}).(map[string]any))
				msgs = append(msgs, turn[1:]...) // the agent's steps and answer
			}
			if summarized == 0 || sum.calls != summarized {
				t.Errorf("%d summaries saved, %d summarizer calls", summarized, sum.calls)
			}
		})
	}
}

// chooser picks numbers: a *rand.Rand or a fuzzer's bytes.
type chooser interface{ IntN(n int) int }

// bytesChooser picks by the bytes of a fuzz input, then 0.
type bytesChooser struct{ data []byte }

func (b *bytesChooser) IntN(n int) int {
	if len(b.data) == 0 {
		return 0
	}
	v := int(b.data[0])
	b.data = b.data[1:]
	return v % n
}

// randomChat returns a chat made by r's choices: turns of user text,
// images and documents, agent steps of parallel tool calls (with thinking,
// text, errors, image results), server tools, and a last question. Every
// message's text is unique.
func randomChat(r chooser) []sdk.MessageParam {
	var msgs []sdk.MessageParam
	words := func(tag string) string { return tag + strings.Repeat(" word", 1+r.IntN(40)) }
	turns := 1 + r.IntN(8)
	for turn := 0; turn < turns; turn++ {
		user := []sdk.ContentBlockParamUnion{sdk.NewTextBlock(words(fmt.Sprintf("question %d:", turn)))}
		switch r.IntN(4) {
		case 1:
			user = append(user, sdk.NewImageBlockBase64("image/png", "iVBORw0KGgo="))
		case 2:
			user = append(user, rawBlock(fmt.Sprintf(`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes %d"}}`, turn)))
		}
		msgs = append(msgs, sdk.NewUserMessage(user...))
		for step := 0; step < r.IntN(4); step++ {
			var uses, results []sdk.ContentBlockParamUnion
			if r.IntN(3) == 0 {
				uses = append(uses, sdk.NewThinkingBlock("sig", fmt.Sprintf("thinking %d.%d", turn, step)))
			}
			if r.IntN(2) == 0 {
				uses = append(uses, sdk.NewTextBlock(fmt.Sprintf("calling tools %d.%d", turn, step)))
			}
			for k := 0; k <= r.IntN(3); k++ {
				id := fmt.Sprintf("toolu_%d_%d_%d", turn, step, k)
				uses = append(uses, sdk.NewToolUseBlock(id, map[string]any{"q": id}, "lookup"))
				switch r.IntN(4) {
				case 0:
					results = append(results, rawBlock(fmt.Sprintf(`{"type":"tool_result","tool_use_id":%q,"is_error":true,"content":"failed %s"}`, id, id)))
				case 1:
					results = append(results, rawBlock(fmt.Sprintf(`{"type":"tool_result","tool_use_id":%q,"content":[{"type":"text","text":"chart %s"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`, id, id)))
				default:
					results = append(results, sdk.NewToolResultBlock(id, words("result "+id), false))
				}
			}
			if r.IntN(4) == 0 {
				results = append(results, sdk.NewTextBlock(fmt.Sprintf("and hurry %d.%d", turn, step)))
			}
			msgs = append(msgs, sdk.NewAssistantMessage(uses...), sdk.NewUserMessage(results...))
		}
		answer := []sdk.ContentBlockParamUnion{}
		if r.IntN(4) == 0 {
			id := fmt.Sprintf("srvtoolu_%d", turn)
			answer = append(answer,
				rawBlock(fmt.Sprintf(`{"type":"server_tool_use","id":%q,"name":"web_search","input":{"query":"q"}}`, id)),
				rawBlock(fmt.Sprintf(`{"type":"web_search_tool_result","tool_use_id":%q,"content":[]}`, id)))
		}
		if r.IntN(5) == 0 {
			answer = append(answer, sdk.NewRedactedThinkingBlock(fmt.Sprintf("cmVk%d", turn)))
		}
		answer = append(answer, sdk.NewTextBlock(words(fmt.Sprintf("answer %d:", turn))))
		msgs = append(msgs, sdk.NewAssistantMessage(answer...))
	}
	return append(msgs, sdk.NewUserMessage(sdk.NewTextBlock("last question?")))
}

// checkChat checks the conversions' properties on msgs: the round trip
// gives the same JSON; every tool result's call is in the assistant
// message before it; through a Compressor at settings r picks, the
// request is valid, and the next turn, echoed, keeps the summary.
func checkChat(t testing.TB, r chooser, msgs []sdk.MessageParam) {
	t.Helper()
	rs, err := anthropic.FromMessages(system, msgs)
	if err != nil {
		t.Fatal(err)
	}
	sys, back, err := anthropic.ToMessages(rs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, msgs), apitest.JSONOf(t, back)); diff != "" || !cmp.Equal(apitest.JSONOf(t, system), apitest.JSONOf(t, sys)) {
		t.Fatalf("round trip mismatch (-before +after):\n%s", diff)
	}
	calls := map[string]bool{}
	for i, m := range rs {
		if m.Role == recap.RoleAssistant {
			calls = map[string]bool{} // the calls a tool message may answer
		}
		for _, p := range m.Parts {
			// A server tool's result is in the assistant message of its
			// call, after it; a client tool's in a tool message after.
			_, server := p.Extra["type"]
			switch {
			case p.Type == recap.PartToolCall:
				calls[p.ToolCallID] = true
			case p.Type == recap.PartToolResult && (!calls[p.ToolCallID] || (m.Role != recap.RoleTool) != server):
				t.Fatalf("message %d (%s): tool result %s without its call", i, m.Role, p.ToolCallID)
			}
		}
	}

	sum := &summaries{t: t}
	role := []recap.Role{recap.RoleSystem, recap.RoleUser, recap.RoleAssistant}[r.IntN(3)]
	opts := []recap.Option{recap.WithTriggerTokens(20 + r.IntN(300)), recap.WithWindowConversations(1 + r.IntN(3)),
		recap.WithMaxSummarizeInput([]int{0, 300}[r.IntN(2)]), recap.WithSummaryRole(role), recap.WithMediaTokens("*", 50)}
	if r.IntN(3) == 0 {
		opts = append(opts, recap.WithToolResultClearing(r.IntN(3), 5))
	}
	c, err := recap.New(sum, recap.NewMemoryStore(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compress(context.Background(), "c", rs)
	if err != nil || res.Err != nil {
		t.Fatalf("Compress: %v, %v", err, res.Err)
	}
	sys, payload, err := anthropic.ToMessages(res.Payload)
	if err != nil {
		t.Fatal(err)
	}
	checkRequest(t, apitest.JSONOf(t, map[string]any{"system": sys, "messages": payload}).(map[string]any))

	next := append(payload, sdk.NewAssistantMessage(sdk.NewTextBlock("ok")), sdk.NewUserMessage(sdk.NewTextBlock("next question?")))
	echo, err := anthropic.FromMessages(sys, next)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := c.Compress(context.Background(), "c", echo)
	if err != nil || res2.Err != nil || res2.Stale || res2.Older {
		t.Fatalf("next turn: %+v, %v", res2, err)
	}
	if !res.Summary.IsZero() && !res2.Summarized && !res2.Summary.Equal(res.Summary) {
		t.Fatalf("next turn's summary %+v, want %+v", res2.Summary, res.Summary)
	}
	sys, payload, err = anthropic.ToMessages(res2.Payload)
	if err != nil {
		t.Fatal(err)
	}
	checkRequest(t, apitest.JSONOf(t, map[string]any{"system": sys, "messages": payload}).(map[string]any))
}

// TestMessagesRandom runs checkChat on 300 random chats.
func TestMessagesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300; n++ {
		msgs := randomChat(r)
		t.Run(fmt.Sprint(n), func(t *testing.T) { checkChat(t, r, msgs) })
	}
}

// FuzzChat runs checkChat on chats the fuzzer's bytes choose.
func FuzzChat(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{7, 1, 3, 2, 0, 1, 2, 3, 1, 0, 2, 3, 3, 0, 1, 4, 2, 9, 9, 1, 0, 2})
	f.Add([]byte("a chat of many turns, with tools, images and thinking, summarized twice"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &bytesChooser{data: data}
		checkChat(t, r, randomChat(r))
	})
}

// rawJSON compares JSON values, not their bytes.
var rawJSON = cmp.Transformer("json", func(r json.RawMessage) any {
	var v any
	if json.Unmarshal(r, &v) != nil {
		return string(r)
	}
	return v
})

// FuzzFromMessages: any messages the SDK decodes convert without a panic,
// and what converts back converts again to the same recap messages.
func FuzzFromMessages(f *testing.F) {
	data, _ := json.Marshal(richChat())
	f.Add(data)
	data, _ = json.Marshal(agentChat(2))
	f.Add(data)
	f.Add([]byte(`[{"role":"user","content":[{"type":"text","text":"a","cache_control":null}]},{"role":"system","content":"x"}]`))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":[1]}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []sdk.MessageParam
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
		rs, err := anthropic.FromMessages(nil, msgs)
		if err != nil {
			return
		}
		sys, back, err := anthropic.ToMessages(rs, anthropic.WithoutCacheBreakpoint())
		if err != nil {
			return
		}
		again, err := anthropic.FromMessages(sys, back)
		if err != nil {
			t.Fatalf("ToMessages wrote what FromMessages rejects: %v", err)
		}
		if diff := cmp.Diff(rs, again, rawJSON); diff != "" {
			t.Errorf("second conversion mismatch (-first +second):\n%s", diff)
		}
	})
}
