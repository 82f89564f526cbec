package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/anthropic"
)

// fakeAnthropic is a stand-in for https://api.anthropic.com: it answers
// every request with body and prints what it was sent, by path.
func fakeAnthropic(body string, show func(path string, req map[string]any)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var req map[string]any
		json.Unmarshal(data, &req)
		if show != nil {
			show(r.URL.Path, req)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
}

// A backend that holds its chat as the SDK's messages compresses it on
// every turn: convert, compress, convert back, send. The summary is the
// last system block, with a cache breakpoint so that the prompt cache
// keeps hitting; sent back on the next turn, it is known again.
func ExampleFromMessages() {
	system := []sdk.TextBlockParam{{Text: "You are a travel agent."}}
	var history []sdk.MessageParam
	for day := 1; day <= 4; day++ {
		id := fmt.Sprintf("toolu_%d", day)
		history = append(history,
			sdk.NewUserMessage(sdk.NewTextBlock(fmt.Sprintf("What is the weather in Lisbon on day %d?", day))),
			sdk.NewAssistantMessage(sdk.NewToolUseBlock(id, map[string]any{"city": "Lisbon", "day": day}, "weather")),
			sdk.NewUserMessage(sdk.NewToolResultBlock(id, fmt.Sprintf("%d degrees, sunny", 20+day), false)),
			sdk.NewAssistantMessage(sdk.NewTextBlock(fmt.Sprintf("Day %d: %d degrees and sunny.", day, 20+day))))
	}
	history = append(history, sdk.NewUserMessage(sdk.NewTextBlock("And on day 5?")))

	// In a real backend: anthropic.New(apiKey) or anthropic.NewWithClient
	// as the summarizer, and a shared Store.
	summarizer := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		return "Lisbon, days 1 to 3: 21 to 23 degrees, sunny.", nil
	})
	c, _ := recap.New(summarizer, recap.NewMemoryStore(), recap.WithTriggerTokens(100))

	// doc:anthropic
	msgs, err := anthropic.FromMessages(system, history)
	if err != nil {
		panic(err)
	}
	res, err := c.Compress(context.Background(), "chat-42", msgs)
	if err != nil {
		panic(err)
	}
	sys, payload, err := anthropic.ToMessages(res.Payload)
	if err != nil {
		panic(err)
	}
	// end doc:anthropic
	srv := fakeAnthropic(messageResponse, func(_ string, req map[string]any) {
		for _, b := range req["system"].([]any) {
			fmt.Printf("system: %v %v\n", b.(map[string]any)["text"], b.(map[string]any)["cache_control"])
		}
		for _, m := range req["messages"].([]any) {
			block := m.(map[string]any)["content"].([]any)[0].(map[string]any)
			fmt.Printf("%v: %v %v\n", m.(map[string]any)["role"], block["type"], block["text"])
		}
	})
	defer srv.Close()
	client := sdk.NewClient(option.WithAPIKey("sk-ant-..."), option.WithBaseURL(srv.URL))
	if _, err := client.Messages.New(context.Background(), sdk.MessageNewParams{Model: sdk.ModelClaudeSonnet4_5, MaxTokens: 1024, System: sys, Messages: payload}); err != nil {
		panic(err)
	}

	// The next turn sends back what was sent, the answer and a question.
	next := append(payload, sdk.NewAssistantMessage(sdk.NewTextBlock("Day 5: 25 degrees.")), sdk.NewUserMessage(sdk.NewTextBlock("Thanks!")))
	msgs, _ = anthropic.FromMessages(sys, next)
	res2, _ := c.Compress(context.Background(), "chat-42", msgs)
	fmt.Println("next turn: stale", res2.Stale, "summarized", res2.Summarized, "summary kept", res2.Summary.Equal(res.Summary))
	// Output:
	// system: You are a travel agent. <nil>
	// system: Lisbon, days 1 to 3: 21 to 23 degrees, sunny. map[type:ephemeral]
	// user: text What is the weather in Lisbon on day 4?
	// assistant: tool_use <nil>
	// user: tool_result <nil>
	// assistant: text Day 4: 24 degrees and sunny.
	// user: text And on day 5?
	// next turn: stale false summarized false summary kept true
}

// A Summarizer on a client of your own keeps its authentication, base
// URL, retries and middleware; WithRequestOptions adds request options to
// each of its requests.
func ExampleNewWithClient() {
	srv := fakeAnthropic(message("The user plans a trip to Lisbon.", "end_turn"), func(path string, req map[string]any) {
		fmt.Println(path, req["model"])
	})
	defer srv.Close()
	client := sdk.NewClient(option.WithAPIKey("sk-ant-..."), option.WithBaseURL(srv.URL),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			fmt.Println("traced:", r.Header.Get("X-Tenant"))
			return next(r)
		}))

	s, err := anthropic.NewWithClient(client, anthropic.WithModel(string(sdk.ModelClaudeHaiku4_5)),
		anthropic.WithRequestOptions(option.WithHeader("X-Tenant", "acme")))
	if err != nil {
		panic(err)
	}
	summary, err := s.Summarize(context.Background(), recap.SummarizeRequest{
		Messages: []recap.Message{{ID: "u1", Role: recap.RoleUser, Content: "I am going to Lisbon."}},
	})
	fmt.Println(summary, err)

	// Options that would build a client are an error here.
	_, err = anthropic.NewWithClient(client, anthropic.WithBaseURL("https://proxy.example"))
	fmt.Println(err != nil)
	// Output:
	// traced: acme
	// /v1/messages claude-haiku-4-5
	// The user plans a trip to Lisbon. <nil>
	// true
}

// The free count_tokens endpoint gives the exact count of a payload. It
// takes a context and can fail, so it is not the counter a Compressor
// uses: a Calibrator learns from it, and corrects that counter.
func ExampleCountTokens() {
	srv := fakeAnthropic(`{"input_tokens":131}`, func(path string, req map[string]any) {
		fmt.Println(path, req["model"], len(req["messages"].([]any)), "messages")
	})
	defer srv.Close()
	client := sdk.NewClient(option.WithAPIKey("sk-ant-..."), option.WithBaseURL(srv.URL))

	cal := recap.NewCalibrator(nil)
	payload, _ := anthropic.FromMessages(system, agentChat(2))
	model := sdk.ModelClaudeSonnet4_5
	n, err := anthropic.CountTokens(context.Background(), client, sdk.MessageCountTokensParams{Model: model}, payload)
	if err != nil {
		fmt.Println(err) // keep counting with the Calibrator's counter
		return
	}
	if err := cal.Observe(string(model), recap.Usage{Payload: payload, Reported: n}); err != nil {
		fmt.Println(err)
	}
	// The Compressor counts with what the Calibrator learns:
	// recap.New(summarizer, store, recap.WithTokenCounter(cal.Counter(string(model))))
	fmt.Println(n, "tokens;", cal.Observations(string(model)), "observation")
	// Output:
	// /v1/messages/count_tokens claude-sonnet-4-5 8 messages
	// 131 tokens; 1 observation
}
