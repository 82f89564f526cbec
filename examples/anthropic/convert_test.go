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
	"github.com/recapgo/recap/examples/internal/apitest"
)

// jsonOf decodes the JSON encoding of v, to compare what the SDK would
// send whatever the order of members.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

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
		sdk.NewUserMessage(sdk.NewTextBlock("Thanks!")),
	}
}

func TestMessagesRoundTrip(t *testing.T) {
	msgs := richChat()
	rs, err := anthropic.FromMessages(system, msgs)
	if err != nil {
		t.Fatal(err)
	}
	roles := make([]recap.Role, len(rs))
	for i, m := range rs {
		roles[i] = m.Role
	}
	want := []recap.Role{"system", "system", "user", "user", "assistant", "tool", "assistant", "user", "assistant", "user"}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Fatalf("roles (-want +got):\n%s", diff)
	}
	if rs[2].Content != "Plan a day in Lisbon." || rs[2].Parts != nil {
		t.Errorf("a lone text block: %+v, want Content", rs[2])
	}
	if p := rs[3].Parts[1]; !p.IsFile() || p.MediaType != "image/png" || strings.Contains(rs[3].Text(), "iVBOR") {
		t.Errorf("image: %+v, text %q", p, rs[3].Text())
	}
	if p := rs[4].Parts[2]; p.Type != recap.PartToolCall || p.ToolCallID != "toolu_1" || p.ToolName != "weather" {
		t.Errorf("tool_use: %+v", p)
	}
	if p := rs[5].Parts[1]; p.Type != recap.PartToolResult || p.ToolCallID != "toolu_2" {
		t.Errorf("tool_result: %+v", p)
	}
	if !strings.Contains(rs[7].Text(), "every 12 minutes") {
		t.Errorf("a text document is not counted: %q", rs[7].Text())
	}
	for i, m := range rs {
		if !strings.HasPrefix(m.ID, recap.ChainIDPrefix) {
			t.Errorf("message %d: ID %q", i, m.ID)
		}
	}
	gotSystem, gotMsgs, err := anthropic.ToMessages(rs, anthropic.WithoutCacheBreakpoint())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jsonOf(t, system), jsonOf(t, gotSystem)); diff != "" {
		t.Errorf("system blocks (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(jsonOf(t, msgs), jsonOf(t, gotMsgs)); diff != "" {
		t.Errorf("messages (-before +after):\n%s", diff)
	}
}

func TestCacheBreakpoint(t *testing.T) {
	prompt := []sdk.TextBlockParam{{Text: "You are a travel agent."}}
	rs, err := anthropic.FromMessages(prompt, []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Hi"))})
	if err != nil {
		t.Fatal(err)
	}
	sys, _, err := anthropic.ToMessages(rs)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, sys); !cmp.Equal(got, jsonOf(t, []map[string]any{{"type": "text", "text": "You are a travel agent.", "cache_control": map[string]any{"type": "ephemeral"}}})) {
		t.Errorf("system = %v, want a breakpoint on its last block", got)
	}
	// Four breakpoints already: none added.
	var msgs []sdk.MessageParam
	for i := 0; i < 4; i++ {
		b := sdk.NewTextBlock(fmt.Sprintf("message %d", i))
		b.OfText.CacheControl = sdk.NewCacheControlEphemeralParam()
		msgs = append(msgs, sdk.NewUserMessage(b))
	}
	rs, _ = anthropic.FromMessages(prompt, msgs)
	sys, _, _ = anthropic.ToMessages(rs)
	if data, _ := json.Marshal(sys); strings.Contains(string(data), "cache_control") {
		t.Errorf("a fifth breakpoint was added: %s", data)
	}
}

func TestToMessagesRejects(t *testing.T) {
	for name, msgs := range map[string][]recap.Message{
		"system after the start": {{ID: "u", Role: recap.RoleUser, Content: "hi"}, {ID: "s", Role: recap.RoleSystem, Content: "late"}},
		"tool without result":    {{ID: "u", Role: recap.RoleUser, Content: "hi"}, {ID: "t", Role: recap.RoleTool, Content: "x"}},
		"input not an object": {{ID: "a", Role: recap.RoleAssistant, Parts: []recap.Part{
			{Type: recap.PartToolCall, ToolCallID: "c", ToolName: "f", Input: json.RawMessage(`[1,2]`)}}}},
	} {
		if _, _, err := anthropic.ToMessages(msgs); !errors.Is(err, anthropic.ErrNotConvertible) {
			t.Errorf("%s: %v, want ErrNotConvertible", name, err)
		}
	}
}

// agentChat is an agent's chat of n turns in the SDK's types: a question,
// a tool call, its result in a user message, an answer.
func agentChat(n int) []sdk.MessageParam {
	var msgs []sdk.MessageParam
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			sdk.NewUserMessage(sdk.NewTextBlock(fmt.Sprintf("Day %d: what is the weather in Lisbon, and what should I wear in the evening?", i))),
			sdk.NewAssistantMessage(sdk.NewToolUseBlock(id, map[string]any{"city": "Lisbon", "day": i}, "weather")),
			sdk.NewUserMessage(sdk.NewToolResultBlock(id, fmt.Sprintf(`{"temp":%d,"wind":"light"}`, 18+i), false)),
			sdk.NewAssistantMessage(sdk.NewTextBlock(fmt.Sprintf("Day %d: %d degrees with a light wind; a jacket for the evening.", i, 18+i))))
	}
	return msgs
}

// checkRequest checks a Messages API request body: the first message is a
// user message, and every tool_result answers a tool_use of the message
// right before it.
func checkRequest(t *testing.T, body map[string]any) {
	t.Helper()
	msgs := body["messages"].([]any)
	if len(msgs) == 0 || msgs[0].(map[string]any)["role"] != "user" {
		t.Fatalf("first message: %v", msgs[0])
	}
	prev := map[string]bool{}
	for i, raw := range msgs {
		m := raw.(map[string]any)
		uses := map[string]bool{}
		for _, b := range m["content"].([]any) {
			block := b.(map[string]any)
			switch block["type"] {
			case "tool_use":
				uses[block["id"].(string)] = true
			case "tool_result":
				if id := block["tool_use_id"].(string); !prev[id] || m["role"] != "user" {
					t.Errorf("message %d: tool_result %s without its tool_use in the message before", i, id)
				}
			}
		}
		prev = uses
	}
}

const messageResponse = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`

// TestMessagesThroughCompressor: convert, compress, convert back, send
// with the SDK: the summary is the last system block with the cache
// breakpoint after it, tool pairs are intact, and the payload echoed back
// on the next turn keeps the summary. With the user summary role the
// summary leads the first user message and is known again as well.
func TestMessagesThroughCompressor(t *testing.T) {
	for _, role := range []recap.Role{recap.RoleSystem, recap.RoleUser} {
		t.Run(string(role), func(t *testing.T) {
			calls := 0
			c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
				calls++
				return "Summary: Lisbon weather by day; a jacket every evening.", nil
			}), recap.NewMemoryStore(), recap.WithTriggerTokens(150), recap.WithWindowConversations(2), recap.WithSummaryRole(role))
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := anthropic.FromMessages(system, agentChat(6))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compress(context.Background(), "chat", msgs)
			if err != nil || !res.Summarized {
				t.Fatalf("Compress = %+v, %v", res, err)
			}
			sys, payload, err := anthropic.ToMessages(res.Payload)
			if err != nil {
				t.Fatal(err)
			}
			s := apitest.New(t, "/v1/messages", apitest.Response{Status: 200, Body: messageResponse})
			client := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL(s.URL))
			if _, err := client.Messages.New(context.Background(), sdk.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 100, System: sys, Messages: payload}); err != nil {
				t.Fatal(err)
			}
			body := s.Body(0)
			checkRequest(t, body)
			blocks := body["system"].([]any)
			last := blocks[len(blocks)-1].(map[string]any)
			if last["cache_control"] == nil {
				t.Errorf("no breakpoint on the last system block: %v", last)
			}
			if role == recap.RoleSystem && last["text"] != res.Summary.Text {
				t.Errorf("last system block %v, want the summary", last)
			}
			if role == recap.RoleUser {
				first := body["messages"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)
				if first["text"] != res.Summary.Text {
					t.Errorf("first user block %v, want the summary", first)
				}
			}

			// Next turn: what was sent, the answer, a new question.
			next := append(payload, sdk.NewAssistantMessage(sdk.NewTextBlock("ok")), sdk.NewUserMessage(sdk.NewTextBlock("And day 7?")))
			msgs, err = anthropic.FromMessages(sys, next)
			if err != nil {
				t.Fatal(err)
			}
			res2, err := c.Compress(context.Background(), "chat", msgs)
			if err != nil || res2.Stale || res2.Older || res2.Err != nil {
				t.Fatalf("next turn: %+v, %v", res2, err)
			}
			if !res2.Summarized && !res2.Summary.Equal(res.Summary) {
				t.Errorf("next turn's summary %+v, want %+v", res2.Summary, res.Summary)
			}
			if calls != 1 && !res2.Summarized {
				t.Errorf("%d summarizations", calls)
			}
			if _, _, err := anthropic.ToMessages(res2.Payload); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestMessagesRandom: random agent chats convert back to themselves, and
// through a Compressor at random settings every request is valid.
func TestMessagesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 200; n++ {
		var msgs []sdk.MessageParam
		for turn := 0; turn < 1+r.IntN(10); turn++ {
			words := strings.Repeat("word ", 1+r.IntN(40))
			msgs = append(msgs, sdk.NewUserMessage(sdk.NewTextBlock(words)))
			for step := 0; step < r.IntN(3); step++ {
				var uses, results []sdk.ContentBlockParamUnion
				for k := 0; k <= r.IntN(3); k++ {
					id := fmt.Sprintf("toolu_%d_%d_%d", turn, step, k)
					uses = append(uses, sdk.NewToolUseBlock(id, map[string]any{"k": k}, "f"))
					results = append(results, sdk.NewToolResultBlock(id, words, r.IntN(5) == 0))
				}
				msgs = append(msgs, sdk.NewAssistantMessage(uses...), sdk.NewUserMessage(results...))
			}
			msgs = append(msgs, sdk.NewAssistantMessage(sdk.NewTextBlock(words)))
		}
		msgs = append(msgs, sdk.NewUserMessage(sdk.NewTextBlock("now?")))
		rs, err := anthropic.FromMessages(system, msgs)
		if err != nil {
			t.Fatal(err)
		}
		sys, back, err := anthropic.ToMessages(rs, anthropic.WithoutCacheBreakpoint())
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(jsonOf(t, system), jsonOf(t, sys)) || !cmp.Equal(jsonOf(t, msgs), jsonOf(t, back)) {
			t.Fatalf("chat %d: round trip changed it:\n%s", n, cmp.Diff(jsonOf(t, msgs), jsonOf(t, back)))
		}
		c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "short summary", nil }),
			recap.NewMemoryStore(), recap.WithTriggerTokens(20+r.IntN(200)), recap.WithWindowConversations(1+r.IntN(3)),
			recap.WithMaxSummarizeInput([]int{0, 300}[r.IntN(2)]))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compress(context.Background(), "c", rs)
		if err != nil {
			t.Fatal(err)
		}
		sys, payload, err := anthropic.ToMessages(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		checkRequest(t, jsonOf(t, map[string]any{"system": sys, "messages": payload}).(map[string]any))
	}
}
