package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/gemini"
	"github.com/recapgo/recap/internal/apitest"
	"google.golang.org/genai"
)

var system = &genai.Content{Parts: []*genai.Part{{Text: "You are a travel agent."}, {Text: "Prices are in euros."}}}

// richChat holds every kind of part a backend sends back to Gemini.
func richChat() []*genai.Content {
	return []*genai.Content{
		genai.NewContentFromText("Plan a day in Lisbon.", genai.RoleUser),
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{Text: "Here is my map:"},
			genai.NewPartFromBytes([]byte("\x89PNG..."), "image/png"),
			genai.NewPartFromURI("gs://bucket/guide.pdf", "application/pdf"),
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "The user wants the weather.", Thought: true, ThoughtSignature: []byte("sig")},
			{FunctionCall: &genai.FunctionCall{Name: "weather", Args: map[string]any{"city": "Lisbon"}}, ThoughtSignature: []byte("sig2")},
			{FunctionCall: &genai.FunctionCall{Name: "weather", Args: map[string]any{"city": "Sintra"}}},
			{FunctionCall: &genai.FunctionCall{ID: "call-7", Name: "tram", Args: map[string]any{"line": 28.0}}},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{
			genai.NewPartFromFunctionResponse("weather", map[string]any{"temp": 21.0}),
			genai.NewPartFromFunctionResponse("weather", map[string]any{"error": "timeout"}),
			{FunctionResponse: &genai.FunctionResponse{ID: "call-7", Name: "tram", Response: map[string]any{"every": "12 min"}}},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{ExecutableCode: &genai.ExecutableCode{Code: "print(21*9/5+32)", Language: genai.LanguagePython}},
			{CodeExecutionResult: &genai.CodeExecutionResult{Outcome: genai.OutcomeOK, Output: "69.8"}},
			{Text: "21 °C (69.8 °F) in Lisbon; Sintra timed out; tram 28 every 12 minutes."},
		}},
		{Parts: []*genai.Part{{Text: "Thanks! And Porto?"}}}, // no role: the user's
	}
}

func TestContentsRoundTrip(t *testing.T) {
	contents := richChat()
	msgs, err := gemini.FromContents(system, contents)
	if err != nil {
		t.Fatal(err)
	}
	roles := make([]recap.Role, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	if diff := cmp.Diff([]recap.Role{"system", "system", "user", "user", "assistant", "tool", "assistant", "user"}, roles); diff != "" {
		t.Fatalf("roles (-want +got):\n%s", diff)
	}
	if msgs[2].Content != "Plan a day in Lisbon." || msgs[7].Content != "Thanks! And Porto?" {
		t.Errorf("lone text parts: %+v %+v", msgs[2], msgs[7])
	}
	if p := msgs[3].Parts[1]; !p.IsFile() || p.MediaType != "image/png" || strings.Contains(msgs[3].Text(), "PNG") {
		t.Errorf("inline image: %+v; text %q", p, msgs[3].Text())
	}
	calls, results := msgs[4].Parts[1:], msgs[5].Parts
	for i := range results {
		if calls[i].ToolCallID != results[i].ToolCallID || calls[i].Type != recap.PartToolCall || results[i].Type != recap.PartToolResult {
			t.Errorf("call %d %q and result %q are not paired", i, calls[i].ToolCallID, results[i].ToolCallID)
		}
	}
	if !strings.Contains(msgs[6].Text(), "print(21*9/5+32)") || !strings.Contains(msgs[6].Text(), "69.8") {
		t.Errorf("code not counted: %q", msgs[6].Text())
	}
	sys, back, err := gemini.ToContents(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, system), apitest.JSONOf(t, sys)); diff != "" {
		t.Errorf("system (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, contents), apitest.JSONOf(t, back)); diff != "" {
		t.Errorf("contents (-before +after):\n%s", diff)
	}
	// The derived call IDs do not depend on the chat before them.
	later, err := gemini.FromContents(nil, contents[2:4])
	if err != nil {
		t.Fatal(err)
	}
	if later[0].Parts[1].ToolCallID != calls[0].ToolCallID || later[1].Parts[1].ToolCallID != results[1].ToolCallID {
		t.Errorf("derived IDs changed with the chat before them")
	}
}

func TestToContentsRejects(t *testing.T) {
	for name, msgs := range map[string][]recap.Message{
		"system after the start": {{ID: "u", Role: recap.RoleUser, Content: "hi"}, {ID: "s", Role: recap.RoleSystem, Content: "late"}},
		"tool without result":    {{ID: "u", Role: recap.RoleUser, Content: "hi"}, {ID: "t", Role: recap.RoleTool, Content: "x"}},
		"args not an object": {{ID: "a", Role: recap.RoleAssistant, Parts: []recap.Part{
			{Type: recap.PartToolCall, ToolCallID: "c", ToolName: "f", Input: json.RawMessage(`"free text"`)}}}},
		"file without data": {{ID: "u", Role: recap.RoleUser, Parts: []recap.Part{{Type: recap.PartFile, URL: "https://x/y.png"}}}},
	} {
		if _, _, err := gemini.ToContents(msgs); !errors.Is(err, gemini.ErrNotConvertible) {
			t.Errorf("%s: %v, want ErrNotConvertible", name, err)
		}
	}
}

// agentChat is an agent's chat of n turns: a question, an ID-less call, its
// response, an answer.
func agentChat(n int) []*genai.Content {
	var cs []*genai.Content
	for i := 1; i <= n; i++ {
		cs = append(cs,
			genai.NewContentFromText(fmt.Sprintf("Day %d: what is the weather in Lisbon, and what should I wear in the evening?", i), genai.RoleUser),
			genai.NewContentFromFunctionCall("weather", map[string]any{"city": "Lisbon", "day": float64(i)}, genai.RoleModel),
			genai.NewContentFromFunctionResponse("weather", map[string]any{"temp": float64(18 + i)}, genai.RoleUser),
			genai.NewContentFromText(fmt.Sprintf("Day %d: %d degrees with a light wind; a jacket for the evening.", i, 18+i), genai.RoleModel))
	}
	return cs
}

// checkContents checks a generateContent request body: every function
// response answers a call of the model content right before it.
func checkContents(t *testing.T, contents []any) {
	t.Helper()
	prev := map[string]int{}
	for i, raw := range contents {
		c := raw.(map[string]any)
		calls := map[string]int{}
		for _, p := range c["parts"].([]any) {
			part := p.(map[string]any)
			if fc, ok := part["functionCall"].(map[string]any); ok {
				calls[fc["name"].(string)]++
			}
			if fr, ok := part["functionResponse"].(map[string]any); ok {
				name := fr["name"].(string)
				if prev[name] == 0 {
					t.Errorf("content %d: response of %s without its call right before", i, name)
				}
				prev[name]--
			}
		}
		prev = calls
	}
}

// TestContentsThroughCompressor: convert, compress, convert back, send
// with the SDK: the summary is the last part of the system instruction,
// calls and responses stay paired, and the echoed payload keeps the
// summary on the next turn; with the user summary role, the summary is a
// user content of its own, known again too.
func TestContentsThroughCompressor(t *testing.T) {
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
			msgs, err := gemini.FromContents(system, agentChat(6))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compress(context.Background(), "chat", msgs)
			if err != nil || !res.Summarized {
				t.Fatalf("Compress = %+v, %v", res, err)
			}
			sys, contents, err := gemini.ToContents(res.Payload)
			if err != nil {
				t.Fatal(err)
			}
			api := newFakeAPI(t, reply{200, answer("ok", "STOP"), false, ""})
			client, _ := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: api.URL}})
			if _, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, &genai.GenerateContentConfig{SystemInstruction: sys}); err != nil {
				t.Fatal(err)
			}
			body := api.body(0)
			checkContents(t, body["contents"].([]any))
			sysParts := body["systemInstruction"].(map[string]any)["parts"].([]any)
			if role == recap.RoleSystem && sysParts[len(sysParts)-1].(map[string]any)["text"] != res.Summary.Text {
				t.Errorf("system instruction %v, want the summary last", sysParts)
			}
			if role == recap.RoleUser {
				first := body["contents"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"]
				if first != res.Summary.Text {
					t.Errorf("first content %v, want the summary", first)
				}
			}

			next := append(contents, genai.NewContentFromText("ok", genai.RoleModel), genai.NewContentFromText("And day 7?", genai.RoleUser))
			msgs, err = gemini.FromContents(sys, next)
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
		})
	}
}

func TestContentsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 200; n++ {
		var cs []*genai.Content
		for turn := 0; turn < 1+r.IntN(10); turn++ {
			words := strings.Repeat("word ", 1+r.IntN(40))
			cs = append(cs, genai.NewContentFromText(words, genai.RoleUser))
			for step := 0; step < r.IntN(3); step++ {
				var calls, resps []*genai.Part
				for k := 0; k <= r.IntN(3); k++ {
					name := fmt.Sprintf("f%d", r.IntN(2))
					id := ""
					if r.IntN(2) == 0 {
						id = fmt.Sprintf("id-%d-%d-%d", turn, step, k)
					}
					calls = append(calls, &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: name, Args: map[string]any{"k": float64(k)}}})
					resps = append(resps, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: name, Response: map[string]any{"output": words}}})
				}
				cs = append(cs, genai.NewContentFromParts(calls, genai.RoleModel), genai.NewContentFromParts(resps, genai.RoleUser))
			}
			cs = append(cs, genai.NewContentFromText(words, genai.RoleModel))
		}
		cs = append(cs, genai.NewContentFromText("now?", genai.RoleUser))
		msgs, err := gemini.FromContents(system, cs)
		if err != nil {
			t.Fatal(err)
		}
		sys, back, err := gemini.ToContents(msgs)
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(apitest.JSONOf(t, system), apitest.JSONOf(t, sys)) || !cmp.Equal(apitest.JSONOf(t, cs), apitest.JSONOf(t, back)) {
			t.Fatalf("chat %d: round trip changed it:\n%s", n, cmp.Diff(apitest.JSONOf(t, cs), apitest.JSONOf(t, back)))
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
		_, payload, err := gemini.ToContents(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		checkContents(t, apitest.JSONOf(t, payload).([]any))
	}
}

// TestCountTokens: on the Gemini Developer API the payload goes to
// countTokens as a generateContentRequest with its system instruction,
// and the total comes back; an API error is an error.
func TestCountTokens(t *testing.T) {
	api := newFakeAPI(t, reply{200, `{"totalTokens":321}`, false, ""},
		reply{404, `{"error":{"code":404,"message":"models/nope is not found","status":"NOT_FOUND"}}`, false, ""})
	client, _ := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: api.URL}})
	payload, err := gemini.FromContents(system, agentChat(2))
	if err != nil {
		t.Fatal(err)
	}
	n, err := gemini.CountTokens(context.Background(), client, "gemini-2.5-flash", payload)
	if err != nil || n != 321 {
		t.Fatalf("CountTokens = %d, %v; want 321", n, err)
	}
	if api.paths[0] != "POST /v1/models/gemini-2.5-flash:countTokens" {
		t.Errorf("request %s", api.paths[0])
	}
	req, ok := api.body(0)["generateContentRequest"].(map[string]any)
	if !ok || req["model"] != "models/gemini-2.5-flash" || len(req["contents"].([]any)) != 8 ||
		len(req["systemInstruction"].(map[string]any)["parts"].([]any)) != 2 {
		t.Errorf("body %v", api.body(0))
	}
	if _, err := gemini.CountTokens(context.Background(), client, "nope", payload); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("CountTokens(nope) = %v", err)
	}
	if got := gemini.ReportedTokens(&genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, ToolUsePromptTokenCount: 20}); got != 120 {
		t.Errorf("ReportedTokens = %d", got)
	}
}
