package gemini_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/gemini"
	"google.golang.org/genai"
)

// TestRecallTool: the recall tool goes to the API in a request whose
// summary carries the hint; the model calls it; the Compressor's answer,
// from the messages the summary covers, goes back as the functionResponse
// of the next request.
func TestRecallTool(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI(t,
		reply{200, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_1","name":"recall","args":{"query":"flight booking code"}}}]},
			"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":300,"candidatesTokenCount":20,"totalTokenCount":320},"modelVersion":"gemini-2.5-flash"}`, false, ""},
		reply{200, answer("The booking code is QX7-PLM2.", "STOP"), false, ""})
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: api.URL}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
		return "The user booked a flight to Lisbon on 12 May and a hotel in Alfama.", nil
	}), recap.NewMemoryStore(), recap.WithTriggerTokens(10), recap.WithWindowConversations(1), recap.WithRecallHint(recap.RecallHint))
	if err != nil {
		t.Fatal(err)
	}

	history := []*genai.Content{
		genai.NewContentFromText("Book me the Lisbon flight on 12 May. The booking code is QX7-PLM2.", genai.RoleUser),
		genai.NewContentFromText("Booked: Lisbon on 12 May.", genai.RoleModel),
		genai.NewContentFromText("Now a hotel near Alfama for three nights.", genai.RoleUser),
		genai.NewContentFromText("Booked the Memmo Alfama, 12 to 15 May.", genai.RoleModel),
		genai.NewContentFromText("What was the booking code of the flight?", genai.RoleUser),
	}
	send := func() *genai.GenerateContentResponse {
		t.Helper()
		msgs, err := gemini.FromContents(system, history)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compress(ctx, "chat", msgs)
		if err != nil || res.Summary.IsZero() {
			t.Fatalf("Compress = %+v, %v", res, err)
		}
		sys, contents, err := gemini.ToContents(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		out, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents,
			&genai.GenerateContentConfig{SystemInstruction: sys, Tools: []*genai.Tool{gemini.RecallTool()}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	first := send()
	params := map[string]any{"type": "OBJECT", "required": []any{"query"}, "propertyOrdering": []any{"query", "k"},
		"properties": map[string]any{
			"query": map[string]any{"type": "STRING", "description": "What to look for: the words, names, numbers or identifiers of the detail, in the conversation's language."},
			"k":     map[string]any{"type": "INTEGER", "minimum": 1.0, "maximum": float64(recap.MaxRecallToolResults), "description": "How many passages to return (default 3)."},
		}}
	want := []any{map[string]any{"functionDeclarations": []any{map[string]any{
		"name": recap.RecallToolName, "description": recap.RecallToolDescription, "parameters": params}}}}
	if diff := cmp.Diff(want, api.body(0)["tools"]); diff != "" {
		t.Errorf("tools sent mismatch (-want +got):\n%s", diff)
	}
	parts := api.body(0)["systemInstruction"].(map[string]any)["parts"].([]any)
	if summary := parts[len(parts)-1].(map[string]any)["text"].(string); !strings.HasSuffix(summary, "\n\n"+recap.RecallHint) {
		t.Errorf("summary part %q: want the hint", summary)
	}

	// The model calls the tool: answer it from the chat, with the call.
	calls := first.FunctionCalls()
	if len(calls) != 1 || calls[0].Name != recap.RecallToolName {
		t.Fatalf("reply %+v: want a call of the recall tool", first.Candidates[0].Content)
	}
	history = append(history, first.Candidates[0].Content)
	msgs, err := gemini.FromContents(system, history)
	if err != nil {
		t.Fatal(err)
	}
	args, err := json.Marshal(calls[0].Args)
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.AnswerRecall(ctx, "chat", msgs, args)
	if err != nil || !strings.Contains(text, "QX7-PLM2") {
		t.Fatalf("AnswerRecall = %q, %v; want the booking code", text, err)
	}
	part := genai.NewPartFromFunctionResponse(recap.RecallToolName, map[string]any{"output": text})
	part.FunctionResponse.ID = calls[0].ID
	history = append(history, genai.NewContentFromParts([]*genai.Part{part}, genai.RoleUser))

	if final := send(); final.Text() != "The booking code is QX7-PLM2." {
		t.Errorf("final reply %q", final.Text())
	}
	contents := api.body(1)["contents"].([]any)
	last, before := contents[len(contents)-1].(map[string]any), contents[len(contents)-2].(map[string]any)
	wantLast := map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
		"id": "call_1", "name": recap.RecallToolName, "response": map[string]any{"output": text}}}}}
	if diff := cmp.Diff(wantLast, last); diff != "" {
		t.Errorf("function response sent mismatch (-want +got):\n%s", diff)
	}
	if p := before["parts"].([]any)[0].(map[string]any); before["role"] != "model" || p["functionCall"] == nil {
		t.Errorf("content before the response %v: want the model's call", before)
	}
}
