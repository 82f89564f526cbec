package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/openai"
)

// fakeAPI is an OpenAI API on 127.0.0.1 for the examples: it answers
// every request with reply and keeps the requests' bodies and headers.
type fakeAPI struct {
	*httptest.Server
	mu      sync.Mutex // protects bodies and headers
	bodies  []map[string]any
	headers []http.Header
}

func newFakeAPI(reply string) *fakeAPI {
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		json.Unmarshal(data, &body)
		f.mu.Lock()
		f.bodies, f.headers = append(f.bodies, body), append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	return f
}

// sent returns the items of list (such as "messages") of the last request
// in short: their role or type, and the start of their content.
func (f *fakeAPI) sent(list string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, raw := range f.bodies[len(f.bodies)-1][list].([]any) {
		m := raw.(map[string]any)
		kind, _ := m["role"].(string)
		if kind == "" {
			kind = m["type"].(string)
		}
		content, _ := m["content"].(string)
		if len(content) > 40 {
			content = content[:40] + "..."
		}
		out = append(out, strings.TrimSpace(kind+": "+content))
	}
	return out
}

// A backend that holds its chat as the SDK's messages compresses it on
// every turn: convert, compress, convert back, send.
func ExampleFromChatCompletion() {
	api := newFakeAPI(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o",
		"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Day 5: Sintra, by the morning train."}}]}`)
	defer api.Close()
	client := oai.NewClient(option.WithAPIKey("sk-example"), option.WithBaseURL(api.URL+"/v1"))

	// In a real backend: openai.New(apiKey) or openai.NewWithClient(client)
	// as the summarizer, and a shared Store.
	summarizer := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		return "The user plans five days in Lisbon: museums by day, miradouros at sunset.", nil
	})
	c, err := recap.New(summarizer, recap.NewMemoryStore(), recap.WithTriggerTokens(60), recap.WithWindowConversations(2))
	if err != nil {
		panic(err)
	}

	history := []oai.ChatCompletionMessageParamUnion{oai.SystemMessage("You are a travel agent.")}
	for day := 1; day <= 4; day++ {
		history = append(history,
			oai.UserMessage(fmt.Sprintf("What should I see in Lisbon on day %d of my trip, in the morning and the evening?", day)),
			oai.AssistantMessage(fmt.Sprintf("Day %d: a museum in the morning, a miradouro at sunset, dinner in Alfama.", day)))
	}
	history = append(history, oai.UserMessage("And on day 5?"))

	ctx := context.Background()
	// doc:openai
	msgs, err := openai.FromChatCompletion(history)
	if err != nil {
		panic(err)
	}
	res, err := c.Compress(ctx, "chat-42", msgs)
	if err != nil {
		panic(err)
	}
	payload, err := openai.ToChatCompletion(res.Payload)
	if err != nil {
		panic(err)
	}
	// end doc:openai
	resp, err := client.Chat.Completions.New(ctx, oai.ChatCompletionNewParams{Model: oai.ChatModelGPT4o, Messages: payload})
	if err != nil {
		panic(err)
	}
	for _, m := range api.sent("messages") {
		fmt.Println(m)
	}
	fmt.Println("reply:", resp.Choices[0].Message.Content)

	// The client may keep the payload as its history: recap knows its
	// summary when it comes back.
	history = append(payload, resp.Choices[0].Message.ToParam(), oai.UserMessage("Thanks!"))
	msgs, _ = openai.FromChatCompletion(history)
	res, _ = c.Compress(ctx, "chat-42", msgs)
	fmt.Println("next turn: stale", res.Stale)
	// Output:
	// system: You are a travel agent.
	// system: The user plans five days in Lisbon: muse...
	// user: What should I see in Lisbon on day 4 of ...
	// assistant: Day 4: a museum in the morning, a mirado...
	// user: And on day 5?
	// reply: Day 5: Sintra, by the morning train.
	// next turn: stale false
}

// A backend on the Responses API keeps its conversation as input items,
// the model's output items appended as they come (reasoning included,
// which travels with the item after it).
func ExampleFromResponsesInput() {
	api := newFakeAPI(`{"id":"resp_2","object":"response","created_at":1,"status":"completed","model":"gpt-5",
		"output":[{"type":"message","id":"msg_2","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Porto: 17 degrees, rain.","annotations":[]}]}],
		"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}`)
	defer api.Close()
	client := oai.NewClient(option.WithAPIKey("sk-example"), option.WithBaseURL(api.URL+"/v1"))

	c, err := recap.New(recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		return "Lisbon was 21 degrees and clear.", nil
	}), recap.NewMemoryStore(), recap.WithTriggerTokens(40), recap.WithWindowConversations(1))
	if err != nil {
		panic(err)
	}

	history := responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("You are a travel agent.", responses.EasyInputMessageRoleDeveloper),
		responses.ResponseInputItemParamOfMessage("What is the weather in Lisbon today, and is it a good day for the beach at Cascais?", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfReasoning("rs_1", []responses.ResponseReasoningItemSummaryParam{{Text: "Look the weather up."}}),
		responses.ResponseInputItemParamOfFunctionCall(`{"city":"Lisbon"}`, "call_1", "weather"),
		responses.ResponseInputItemParamOfFunctionCallOutput(`{"temp":21,"sky":"clear"}`),
		responses.ResponseInputItemParamOfMessage("21 degrees and clear: a good beach day.", responses.EasyInputMessageRoleAssistant),
		responses.ResponseInputItemParamOfMessage("And in Porto?", responses.EasyInputMessageRoleUser),
	}
	history[4].OfFunctionCallOutput.CallID = oai.String("call_1")

	ctx := context.Background()
	msgs, err := openai.FromResponsesInput(history)
	if err != nil {
		panic(err)
	}
	res, err := c.Compress(ctx, "conv-7", msgs)
	if err != nil {
		panic(err)
	}
	input, err := openai.ToResponsesInput(res.Payload)
	if err != nil {
		panic(err)
	}
	resp, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
	if err != nil {
		panic(err)
	}
	for _, it := range api.sent("input") {
		fmt.Println(it)
	}
	fmt.Println("reply:", resp.OutputText())

	// The output items join the history as the API's JSON.
	for _, out := range resp.Output {
		input = append(input, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(out.RawJSON())))
	}
	fmt.Println("history:", len(input), "items")
	// Output:
	// developer: You are a travel agent.
	// developer: Lisbon was 21 degrees and clear.
	// user: And in Porto?
	// reply: Porto: 17 degrees, rain.
	// history: 4 items
}

// A Summarizer can send through the client a backend already has, with
// its authentication, base URL, retries and middleware, adding request
// options of its own.
func ExampleNewWithClient() {
	api := newFakeAPI(`{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"gpt-4o-mini",
		"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"The user plans a trip to Lisbon."}}]}`)
	defer api.Close()
	client := oai.NewClient(option.WithAPIKey("sk-example"), option.WithBaseURL(api.URL+"/v1"), option.WithMaxRetries(0),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			r.Header.Set("X-Trace-Id", "trace-1") // as a tracing middleware would
			return next(r)
		}))

	s, err := openai.NewWithClient(client, openai.WithModel("gpt-4o-mini"),
		openai.WithRequestOptions(option.WithHeader("X-Tenant", "acme")))
	if err != nil {
		panic(err)
	}
	summary, err := s.Summarize(context.Background(), recap.SummarizeRequest{
		ChatID:   "chat-1",
		Messages: []recap.Message{{ID: "u1", Role: recap.RoleUser, Content: "I am going to Lisbon in May."}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(summary)
	h := api.headers[0]
	fmt.Println(h.Get("Authorization"), h.Get("X-Trace-Id"), h.Get("X-Tenant"))

	_, err = openai.NewWithClient(client, openai.WithBaseURL("http://localhost:11434/v1"))
	fmt.Println(err)
	// Output:
	// The user plans a trip to Lisbon.
	// Bearer sk-example trace-1 acme
	// openai: NewWithClient: WithBaseURL configure a client: configure the client you pass instead
}
