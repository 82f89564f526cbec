package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/openai"
	"github.com/recapgo/recap/internal/apitest"
)

// recallCompressor summarizes without the booking code, so that only the
// recall tool can find it, and tells the model about the tool.
func recallCompressor(t *testing.T) *recap.Compressor {
	t.Helper()
	c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
		return "The user booked a flight to Lisbon on 12 May and a hotel in Alfama.", nil
	}), recap.NewMemoryStore(), recap.WithTriggerTokens(10), recap.WithWindowConversations(1), recap.WithRecallHint(recap.RecallHint))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recallSchema is the tool's parameters as they go on the wire.
func recallSchema(t *testing.T) any {
	var v any
	if err := json.Unmarshal(recap.RecallToolSchema(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRecallToolChatCompletions: the recall tool goes to the API in a
// request whose summary carries the hint; the model calls it; the
// Compressor's answer, from the messages the summary covers, goes back
// as the tool message of the next request.
func TestRecallToolChatCompletions(t *testing.T) {
	ctx := context.Background()
	s := apitest.New(t, "/v1/chat/completions",
		apitest.Response{Status: 200, Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
			"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"call_1","type":"function","function":{"name":"recall","arguments":"{\"query\":\"flight booking code\",\"k\":2}"}}]}}]}`},
		apitest.Response{Status: 200, Body: completion("The booking code is QX7-PLM2.", "stop")})
	client := oai.NewClient(option.WithAPIKey("sk-test"), option.WithBaseURL(s.URL+"/v1"), option.WithMaxRetries(0))
	c := recallCompressor(t)

	history := []oai.ChatCompletionMessageParamUnion{
		oai.SystemMessage("You are a travel agent."),
		oai.UserMessage("Book me the Lisbon flight on 12 May. The booking code is QX7-PLM2."),
		oai.AssistantMessage("Booked: Lisbon on 12 May."),
		oai.UserMessage("Now a hotel near Alfama for three nights."),
		oai.AssistantMessage("Booked the Memmo Alfama, 12 to 15 May."),
		oai.UserMessage("What was the booking code of the flight?"),
	}
	send := func() *oai.ChatCompletion {
		t.Helper()
		msgs, err := openai.FromChatCompletion(history)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compress(ctx, "chat", msgs)
		if err != nil || res.Summary.IsZero() {
			t.Fatalf("Compress = %+v, %v", res, err)
		}
		payload, err := openai.ToChatCompletion(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		out, err := client.Chat.Completions.New(ctx, oai.ChatCompletionNewParams{
			Model: "gpt-4o-mini", Messages: payload, Tools: []oai.ChatCompletionToolUnionParam{openai.RecallTool()},
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	first := send()
	body := s.Body(0)
	want := []any{map[string]any{"type": "function", "function": map[string]any{
		"name": recap.RecallToolName, "description": recap.RecallToolDescription, "parameters": recallSchema(t)}}}
	if diff := cmp.Diff(want, body["tools"]); diff != "" {
		t.Errorf("tools sent mismatch (-want +got):\n%s", diff)
	}
	sent := body["messages"].([]any)
	if summary := sent[1].(map[string]any)["content"].(string); !strings.HasSuffix(summary, "\n\n"+recap.RecallHint) || strings.Contains(summary, "QX7-PLM2") {
		t.Errorf("summary message %q: want the hint, not the code", summary)
	}

	// The model calls the tool: answer it from the chat, with the call.
	reply := first.Choices[0].Message
	if len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Function.Name != recap.RecallToolName {
		t.Fatalf("reply %+v: want a call of the recall tool", reply)
	}
	call := reply.ToolCalls[0]
	history = append(history, reply.ToParam())
	msgs, err := openai.FromChatCompletion(history)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := c.AnswerRecall(ctx, "chat", msgs, json.RawMessage(call.Function.Arguments))
	if err != nil || !strings.Contains(answer, "QX7-PLM2") {
		t.Fatalf("AnswerRecall = %q, %v; want the booking code", answer, err)
	}
	history = append(history, oai.ToolMessage(answer, call.ID))

	final := send()
	if final.Choices[0].Message.Content != "The booking code is QX7-PLM2." {
		t.Errorf("final reply %q", final.Choices[0].Message.Content)
	}
	sent = s.Body(1)["messages"].([]any)
	last, before := sent[len(sent)-1].(map[string]any), sent[len(sent)-2].(map[string]any)
	if diff := cmp.Diff(map[string]any{"role": "tool", "tool_call_id": "call_1", "content": answer}, last); diff != "" {
		t.Errorf("tool message sent mismatch (-want +got):\n%s", diff)
	}
	if calls, _ := before["tool_calls"].([]any); before["role"] != "assistant" || len(calls) != 1 {
		t.Errorf("message before the result %v: want the assistant's call", before)
	}
}

// TestRecallToolResponses: the same on the Responses API, with the
// output items kept as the API's JSON.
func TestRecallToolResponses(t *testing.T) {
	ctx := context.Background()
	s := apitest.New(t, "/v1/responses",
		apitest.Response{Status: 200, Body: `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5",
			"output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"recall","arguments":"{\"query\":\"flight booking code\"}","status":"completed"}],
			"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}`},
		apitest.Response{Status: 200, Body: `{"id":"resp_2","object":"response","created_at":2,"status":"completed","model":"gpt-5",
			"output":[{"type":"message","id":"msg_2","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The booking code is QX7-PLM2.","annotations":[]}]}],
			"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}`})
	client := oai.NewClient(option.WithAPIKey("sk-test"), option.WithBaseURL(s.URL+"/v1"), option.WithMaxRetries(0))
	c := recallCompressor(t)

	history := responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("You are a travel agent.", responses.EasyInputMessageRoleDeveloper),
		userMsg("Book me the Lisbon flight on 12 May. The booking code is QX7-PLM2."),
		assistantMsg("Booked: Lisbon on 12 May."),
		userMsg("Now a hotel near Alfama for three nights."),
		assistantMsg("Booked the Memmo Alfama, 12 to 15 May."),
		userMsg("What was the booking code of the flight?"),
	}
	send := func() *responses.Response {
		t.Helper()
		msgs, err := openai.FromResponsesInput(history)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compress(ctx, "conv", msgs)
		if err != nil || res.Summary.IsZero() {
			t.Fatalf("Compress = %+v, %v", res, err)
		}
		input, err := openai.ToResponsesInput(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		out, err := client.Responses.New(ctx, responses.ResponseNewParams{
			Model: "gpt-5", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
			Tools: []responses.ToolUnionParam{openai.RecallResponsesTool()},
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	first := send()
	want := []any{map[string]any{"type": "function", "name": recap.RecallToolName, "description": recap.RecallToolDescription,
		"parameters": recallSchema(t), "strict": false}}
	if diff := cmp.Diff(want, s.Body(0)["tools"]); diff != "" {
		t.Errorf("tools sent mismatch (-want +got):\n%s", diff)
	}
	if summary, _ := s.Body(0)["input"].([]any)[1].(map[string]any)["content"].(string); !strings.HasSuffix(summary, "\n\n"+recap.RecallHint) {
		t.Errorf("summary item %q: want the hint", summary)
	}

	if len(first.Output) != 1 || first.Output[0].Type != "function_call" {
		t.Fatalf("output %+v: want a function call", first.Output)
	}
	call := first.Output[0].AsFunctionCall()
	history = append(history, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(first.Output[0].RawJSON())))
	msgs, err := openai.FromResponsesInput(history)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := c.AnswerRecall(ctx, "conv", msgs, json.RawMessage(call.Arguments))
	if err != nil || !strings.Contains(answer, "QX7-PLM2") {
		t.Fatalf("AnswerRecall = %q, %v; want the booking code", answer, err)
	}
	history = append(history, output(call.CallID, answer))

	if final := send(); final.OutputText() != "The booking code is QX7-PLM2." {
		t.Errorf("final reply %q", final.OutputText())
	}
	sent := s.Body(1)["input"].([]any)
	last, before := sent[len(sent)-1].(map[string]any), sent[len(sent)-2].(map[string]any)
	if last["type"] != "function_call_output" || last["call_id"] != "call_1" || last["output"] != answer {
		t.Errorf("last item sent %v: want the answer as the call's output", last)
	}
	if before["type"] != "function_call" || before["call_id"] != "call_1" {
		t.Errorf("item before the output %v: want the call", before)
	}
}
