package gemini_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/gemini"
	"google.golang.org/genai"
)

// A backend that holds its chat as the SDK's contents compresses it on
// every turn: convert, compress, convert back, send.
func ExampleFromContents() {
	system := genai.NewContentFromText("You are a travel agent.", "")
	var history []*genai.Content
	for day := 1; day <= 4; day++ {
		history = append(history,
			genai.NewContentFromText(fmt.Sprintf("What should I see in Lisbon on day %d, in the morning and the evening?", day), genai.RoleUser),
			genai.NewContentFromText(fmt.Sprintf("Day %d: a museum in the morning, a miradouro at sunset.", day), genai.RoleModel))
	}
	history = append(history, genai.NewContentFromText("And on day 5?", genai.RoleUser))

	// In a real backend: gemini.New(ctx, apiKey) as the summarizer, and a
	// shared Store.
	summarizer := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		return "Five days in Lisbon: museums by day, miradouros at sunset.", nil
	})
	c, _ := recap.New(summarizer, recap.NewMemoryStore(), recap.WithTriggerTokens(60))

	// doc:gemini
	msgs, err := gemini.FromContents(system, history)
	if err != nil {
		panic(err)
	}
	res, err := c.Compress(context.Background(), "chat-42", msgs)
	if err != nil {
		panic(err)
	}
	sys, contents, err := gemini.ToContents(res.Payload)
	if err != nil {
		panic(err)
	}
	// end doc:gemini
	// client.Models.GenerateContent(ctx, model, contents, &genai.GenerateContentConfig{SystemInstruction: sys})
	for _, p := range sys.Parts {
		fmt.Println("system:", p.Text)
	}
	for _, c := range contents {
		fmt.Printf("%s: %.40s\n", c.Role, c.Parts[0].Text)
	}
	// Output:
	// system: You are a travel agent.
	// system: Five days in Lisbon: museums by day, miradouros at sunset.
	// user: What should I see in Lisbon on day 4, in
	// model: Day 4: a museum in the morning, a mirado
	// user: And on day 5?
}

// fakeGemini stands in for the Gemini API in the examples: it answers
// every request with body.
func fakeGemini(body string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
}

func ExampleNew() {
	api := fakeGemini(`{"candidates":[{"content":{"role":"model","parts":[{"text":"The user plans three days in Lisbon."}]},"finishReason":"STOP"}]}`)
	defer api.Close()

	// In production: gemini.New(ctx, os.Getenv("GEMINI_API_KEY")).
	s, err := gemini.New(context.Background(), "test-key", gemini.WithBaseURL(api.URL), gemini.WithMaxOutputTokens(512))
	if err != nil {
		panic(err)
	}
	summary, err := s.Summarize(context.Background(), recap.SummarizeRequest{
		ChatID:   "chat-42",
		Messages: []recap.Message{{ID: "u1", Role: recap.RoleUser, Content: "I have three days in Lisbon."}},
	})
	fmt.Println(summary, err)
	// Output:
	// The user plans three days in Lisbon. <nil>
}

// A client of the caller's own (here with its retry options; Vertex AI
// and its credentials would do as well) is used as it is.
func ExampleNewWithClient() {
	api := fakeGemini(`{"candidates":[{"content":{"role":"model","parts":[{"text":"Lisbon, three days."}]},"finishReason":"STOP"}]}`)
	defer api.Close()

	attempts := int32(5)
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: api.URL, RetryOptions: &genai.HTTPRetryOptions{Attempts: &attempts}},
	})
	if err != nil {
		panic(err)
	}
	s, err := gemini.NewWithClient(client, gemini.WithModel("gemini-2.5-flash"),
		gemini.WithHTTPOptions(genai.HTTPOptions{Headers: http.Header{"X-Tenant": {"acme"}}}))
	if err != nil {
		panic(err)
	}
	summary, err := s.Summarize(context.Background(), recap.SummarizeRequest{
		ChatID:   "chat-42",
		Messages: []recap.Message{{ID: "u1", Role: recap.RoleUser, Content: "Three days in Lisbon."}},
	})
	fmt.Println(summary, err)

	// Options that would configure the client are refused.
	_, err = gemini.NewWithClient(client, gemini.WithMaxRetries(2))
	fmt.Println(err)
	// Output:
	// Lisbon, three days. <nil>
	// gemini: NewWithClient: WithMaxRetries configure a client: configure the client you pass instead
}

// The exact count of a payload calibrates the counter a Compressor uses
// for the model.
func ExampleCountTokens() {
	api := fakeGemini(`{"totalTokens":57}`)
	defer api.Close()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: api.URL},
	})
	if err != nil {
		panic(err)
	}
	const model = "gemini-2.5-flash"
	cal := recap.NewCalibrator(nil)

	payload, err := gemini.FromContents(genai.NewContentFromText("You are a travel agent.", ""), []*genai.Content{
		genai.NewContentFromText(strings.Repeat("What should I see in Lisbon? ", 5), genai.RoleUser),
	})
	if err != nil {
		panic(err)
	}
	n, err := gemini.CountTokens(context.Background(), client, model, payload)
	if err != nil {
		panic(err)
	}
	if err := cal.Observe(model, recap.Usage{Payload: payload, Reported: n}); err != nil {
		panic(err)
	}
	// A Compressor for this model counts with recap.WithTokenCounter(cal.Counter(model)).
	fmt.Println(n, cal.Observations(model))
	// Output:
	// 57 1
}
