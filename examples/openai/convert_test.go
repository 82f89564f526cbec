package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/internal/apitest"
	"github.com/recapgo/recap/examples/openai"
)

// jsonOf decodes the JSON encoding of v, for comparing what the SDK would
// send regardless of member order.
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

// toolCall is an assistant's function call of the SDK.
func toolCall(id, name, args string) oai.ChatCompletionMessageToolCallUnionParam {
	return oai.ChatCompletionMessageToolCallUnionParam{OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
		ID: id, Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: name, Arguments: args}}}
}

// agentChat is a chat of n turns as a backend holds it in the SDK's types:
// a system prompt, questions with an image, parallel tool calls and their
// results, answers.
func agentChat(n int) []oai.ChatCompletionMessageParamUnion {
	chat := []oai.ChatCompletionMessageParamUnion{oai.SystemMessage("You are a travel agent. Use the tools.")}
	for i := 1; i <= n; i++ {
		q := fmt.Sprintf("Turn %d: what is the weather in Lisbon and Porto on day %d, and what should I pack?", i, i)
		if i%3 == 1 {
			chat = append(chat, oai.UserMessage([]oai.ChatCompletionContentPartUnionParam{
				oai.TextContentPart(q),
				oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: "https://example.com/map.png", Detail: "low"}),
			}))
		} else {
			chat = append(chat, oai.UserMessage(q))
		}
		a, b := fmt.Sprintf("call_%da", i), fmt.Sprintf("call_%db", i)
		assistant := oai.ChatCompletionAssistantMessageParam{ToolCalls: []oai.ChatCompletionMessageToolCallUnionParam{
			toolCall(a, "weather", fmt.Sprintf(`{"city":"Lisbon","day":%d}`, i)),
			toolCall(b, "weather", fmt.Sprintf(`{"city":"Porto","day":%d}`, i)),
		}}
		chat = append(chat, oai.ChatCompletionMessageParamUnion{OfAssistant: &assistant},
			oai.ToolMessage(fmt.Sprintf(`{"temp":%d,"sky":"clear"}`, 20+i), a),
			oai.ToolMessage("rain, 14 degrees", b),
			oai.AssistantMessage(fmt.Sprintf("On day %d Lisbon is clear at %d degrees and Porto has rain: pack a light jacket and an umbrella.", i, 20+i)))
	}
	return chat
}

func TestChatCompletionRoundTrip(t *testing.T) {
	chat := append(agentChat(3), oai.DeveloperMessage("Answer in English."),
		oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{Refusal: oai.String("I cannot book flights.")}})
	msgs, err := openai.FromChatCompletion(chat)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		if m.Format != recap.FormatOpenAI || !strings.HasPrefix(m.ID, recap.ChainIDPrefix) {
			t.Errorf("message %d: format %v, ID %q", i, m.Format, m.ID)
		}
	}
	if msgs[2].Role != recap.RoleAssistant || len(msgs[2].Parts) != 2 || msgs[3].Role != recap.RoleTool || msgs[3].Parts[0].ToolCallID != "call_1a" {
		t.Errorf("tool calls and results not modelled: %+v %+v", msgs[2], msgs[3])
	}
	back, err := openai.ToChatCompletion(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jsonOf(t, chat), jsonOf(t, back)); diff != "" {
		t.Errorf("round trip changed the chat (-before +after):\n%s", diff)
	}
	// An older snapshot's IDs are a prefix of the grown chat's.
	older, _ := openai.FromChatCompletion(chat[:5])
	for i := range older {
		if older[i].ID != msgs[i].ID {
			t.Fatalf("message %d: ID %q in the older snapshot, %q now", i, older[i].ID, msgs[i].ID)
		}
	}
}

// TestChatCompletionThroughCompressor: a backend's loop on SDK types:
// convert, compress, convert back, send with the SDK; the request is
// valid (every tool result after its call, the summary in a system
// message), and the next turn, sent as the payload echoed back plus a new
// question, keeps the summary.
func TestChatCompletionThroughCompressor(t *testing.T) {
	var calls int
	sum := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		calls++
		return fmt.Sprintf("Summary %d: the user plans a Lisbon and Porto trip; weather looked up day by day.", calls), nil
	})
	c, err := recap.New(sum, recap.NewMemoryStore(), recap.WithTriggerTokens(200), recap.WithWindowConversations(1),
		recap.WithMessageOverhead(recap.OpenAIMessageOverhead))
	if err != nil {
		t.Fatal(err)
	}
	chat := agentChat(6)
	msgs, err := openai.FromChatCompletion(chat)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compress(context.Background(), "chat-1", msgs)
	if err != nil || !res.Summarized || res.Err != nil {
		t.Fatalf("Compress = %+v, %v", res.Summary, err)
	}
	payload, err := openai.ToChatCompletion(res.Payload)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, response{status: 200, body: completion("Pack a jacket.", "stop")})
	client := oai.NewClient(option.WithAPIKey("sk-test"), option.WithBaseURL(s.URL+"/v1"))
	if _, err := client.Chat.Completions.New(context.Background(), oai.ChatCompletionNewParams{Model: "gpt-4o", Messages: payload}); err != nil {
		t.Fatal(err)
	}
	sent := s.Body(0)["messages"].([]any)
	checkChatRequest(t, sent)
	if m := sent[1].(map[string]any); m["role"] != "system" || m["content"] != res.Summary.Text {
		t.Errorf("message 1 sent: %v, want the summary as a system message", m)
	}

	// Next turn: the payload echoed back, an answer and a new question.
	next := append(payload, oai.AssistantMessage("Pack a jacket."), oai.UserMessage("And for day 7?"))
	msgs, err = openai.FromChatCompletion(next)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := c.Compress(context.Background(), "chat-1", msgs)
	if err != nil || res2.Stale || res2.Older || res2.Err != nil {
		t.Fatalf("next turn: %+v, %v", res2, err)
	}
	if !res2.Summary.Equal(res.Summary) && !res2.Summarized {
		t.Errorf("next turn's summary %+v, want %+v kept", res2.Summary, res.Summary)
	}
	if calls != 1+btoi(res2.Summarized) {
		t.Errorf("%d summarizations", calls)
	}
	if _, err := openai.ToChatCompletion(res2.Payload); err != nil {
		t.Fatal(err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkChatRequest checks the messages of a Chat Completions request: every
// tool message answers a call of an assistant message before it, after
// which only tool messages come until all its calls are answered.
func checkChatRequest(t *testing.T, msgs []any) {
	t.Helper()
	open := map[string]bool{}
	for i, raw := range msgs {
		m := raw.(map[string]any)
		switch m["role"] {
		case "tool":
			id, _ := m["tool_call_id"].(string)
			if !open[id] {
				t.Errorf("message %d: tool result %q without its call before it", i, id)
			}
			delete(open, id)
		default:
			if len(open) > 0 {
				t.Errorf("message %d (%v): calls %v not answered before it", i, m["role"], open)
			}
			calls, _ := m["tool_calls"].([]any)
			for _, c := range calls {
				open[c.(map[string]any)["id"].(string)] = true
			}
		}
	}
}

// responsesItems is a Responses API conversation with every kind of item
// a backend sends back: easy and typed messages, an image, reasoning, a
// function call and its output, a custom tool call, a web search, an
// output message with annotations and an item reference.
func responsesItems() responses.ResponseInputParam {
	raw := `[
{"role":"system","content":"You are a travel agent."},
{"type":"message","role":"user","content":[{"type":"input_text","text":"Weather in Lisbon?"},{"type":"input_image","image_url":"https://example.com/map.png","detail":"low"}]},
{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"The user wants the weather; call the tool."}],"encrypted_content":"gAAAA-opaque"},
{"type":"function_call","id":"fc_1","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Lisbon\"}","status":"completed"},
{"type":"function_call_output","call_id":"call_1","output":"{\"temp\":21}"},
{"type":"custom_tool_call","id":"ctc_1","call_id":"call_2","name":"sql","input":"SELECT 1"},
{"type":"custom_tool_call_output","call_id":"call_2","output":"1"},
{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"Lisbon weather"}},
{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"21 degrees and clear.","annotations":[]}]},
{"type":"item_reference","id":"msg_0"},
{"role":"user","content":"Thanks! And Porto?"}
]`
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		panic(err)
	}
	// Items as a backend holds them: built by the SDK's constructors, or
	// kept as the JSON the API returned (param.Override).
	items := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("You are a travel agent.", responses.EasyInputMessageRoleSystem)}
	for _, it := range list[1:] {
		items = append(items, param.Override[responses.ResponseInputItemUnionParam](it))
	}
	return items
}

func TestResponsesRoundTrip(t *testing.T) {
	items := responsesItems()
	msgs, err := openai.FromResponsesInput(items)
	if err != nil {
		t.Fatal(err)
	}
	roles := make([]recap.Role, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	want := []recap.Role{"system", "user", "assistant", "assistant", "tool", "assistant", "tool", "assistant", "assistant", "assistant", "user"}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	if p := msgs[1].Parts[1]; !p.IsFile() || p.MediaType != "image/*" {
		t.Errorf("input_image part %+v, want a file part", p)
	}
	if msgs[4].Parts[0].ToolCallID != "call_1" || msgs[3].Parts[0].ToolCallID != "call_1" {
		t.Errorf("function call pair: %+v / %+v", msgs[3].Parts, msgs[4].Parts)
	}
	if !strings.Contains(msgs[2].Text(), "call the tool") || strings.Contains(msgs[2].Text(), "gAAAA") {
		t.Errorf("reasoning counted as %q", msgs[2].Text())
	}
	back, err := openai.ToResponsesInput(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jsonOf(t, items), jsonOf(t, back)); diff != "" {
		t.Errorf("round trip changed the items (-before +after):\n%s", diff)
	}
}

// TestResponsesThroughCompressor: Responses items through a Compressor and
// back, sent with the SDK to an httptest server: the summary is a system
// message item, every output item follows its call, and the echoed
// payload keeps the summary on the next turn.
func TestResponsesThroughCompressor(t *testing.T) {
	var items responses.ResponseInputParam
	items = append(items, responses.ResponseInputItemParamOfMessage("You are a travel agent.", responses.EasyInputMessageRoleSystem))
	for i := 1; i <= 6; i++ {
		call := fmt.Sprintf("call_%d", i)
		items = append(items,
			responses.ResponseInputItemParamOfMessage(fmt.Sprintf("Turn %d: the weather in Lisbon on day %d, and what to pack for the evening?", i, i), responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfFunctionCall(fmt.Sprintf(`{"city":"Lisbon","day":%d}`, i), call, "weather"),
			responses.ResponseInputItemParamOfFunctionCallOutput(fmt.Sprintf(`{"temp":%d}`, 18+i)),
			responses.ResponseInputItemParamOfMessage(fmt.Sprintf("Day %d: %d degrees; pack a light jacket for the evening breeze by the river.", i, 18+i), responses.EasyInputMessageRoleAssistant))
		items[len(items)-2].OfFunctionCallOutput.CallID = oai.String(call)
	}
	c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
		return "Summary: Lisbon weather by day, a jacket every evening.", nil
	}), recap.NewMemoryStore(), recap.WithTriggerTokens(150), recap.WithWindowConversations(1))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := openai.FromResponsesInput(items)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compress(context.Background(), "r1", msgs)
	if err != nil || !res.Summarized {
		t.Fatalf("Compress = %+v, %v", res, err)
	}
	input, err := openai.ToResponsesInput(res.Payload)
	if err != nil {
		t.Fatal(err)
	}
	s := apitest.New(t, "/v1/responses", apitest.Response{Status: 200, Body: `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-4.1","output":[],"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}`})
	client := oai.NewClient(option.WithAPIKey("sk-test"), option.WithBaseURL(s.URL+"/v1"))
	_, err = client.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
	if err != nil {
		t.Fatal(err)
	}
	sent := s.Body(0)["input"].([]any)
	if m := sent[1].(map[string]any); m["role"] != "system" || m["content"] != res.Summary.Text {
		t.Errorf("item 1 sent: %v, want the summary", m)
	}
	calls := map[string]bool{}
	for i, raw := range sent {
		it := raw.(map[string]any)
		switch it["type"] {
		case "function_call":
			calls[it["call_id"].(string)] = true
		case "function_call_output":
			if !calls[it["call_id"].(string)] {
				t.Errorf("item %d: output of %v without its call before it", i, it["call_id"])
			}
		}
	}

	next := append(input, responses.ResponseInputItemParamOfMessage("And day 7?", responses.EasyInputMessageRoleUser))
	msgs, err = openai.FromResponsesInput(next)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := c.Compress(context.Background(), "r1", msgs)
	if err != nil || res2.Stale || res2.Older || !res2.Summary.Equal(res.Summary) && !res2.Summarized {
		t.Fatalf("next turn: %+v, %v", res2, err)
	}
}

// TestChatCompletionRandom: random chats (any mix of text, images,
// parallel tool calls, refusals) convert back to themselves, and
// through a Compressor at random settings the payload never holds a tool
// result without its call.
func TestChatCompletionRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		chat := []oai.ChatCompletionMessageParamUnion{oai.SystemMessage("sys")}
		for turn := 0; turn < 1+r.IntN(12); turn++ {
			words := strings.Repeat("word ", 1+r.IntN(40))
			if r.IntN(4) == 0 {
				chat = append(chat, oai.UserMessage([]oai.ChatCompletionContentPartUnionParam{oai.TextContentPart(words),
					oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,iVBORw0KGgo="})}))
			} else {
				chat = append(chat, oai.UserMessage(words))
			}
			for step := 0; step < r.IntN(3); step++ {
				var calls []oai.ChatCompletionMessageToolCallUnionParam
				for k := 0; k <= r.IntN(3); k++ {
					calls = append(calls, toolCall(fmt.Sprintf("c%d_%d_%d", turn, step, k), "f", `{"x":1}`))
				}
				chat = append(chat, oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{ToolCalls: calls}})
				for k := range calls {
					chat = append(chat, oai.ToolMessage(words, fmt.Sprintf("c%d_%d_%d", turn, step, k)))
				}
			}
			chat = append(chat, oai.AssistantMessage(words))
		}
		chat = append(chat, oai.UserMessage("now?"))
		msgs, err := openai.FromChatCompletion(chat)
		if err != nil {
			t.Fatal(err)
		}
		back, err := openai.ToChatCompletion(msgs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(jsonOf(t, chat), jsonOf(t, back)); diff != "" {
			t.Fatalf("chat %d: round trip (-before +after):\n%s", n, diff)
		}
		c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "short summary", nil }),
			recap.NewMemoryStore(), recap.WithTriggerTokens(20+r.IntN(200)), recap.WithWindowConversations(1+r.IntN(3)),
			recap.WithMaxSummarizeInput([]int{0, 300}[r.IntN(2)]))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compress(context.Background(), "c", msgs)
		if err != nil {
			t.Fatal(err)
		}
		payload, err := openai.ToChatCompletion(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		checkChatRequest(t, jsonOf(t, payload).([]any))
	}
}
