package recap_test

// The Go code of the README and the docs, compiled and run here: each
// "// doc:NAME" region is a block of them (TestDocCodeBlocks checks that
// they agree).

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/tokens"
)

// callLLM stands for the call to your LLM.
func callLLM(ctx context.Context, previous string, msgs []recap.Message) (string, error) {
	return listSummarizer.Summarize(ctx, recap.SummarizeRequest{Previous: previous, Messages: msgs})
}

// send stands for sending the payload to your LLM.
func send(payload []recap.Message) {
	for _, m := range payload {
		fmt.Printf("%-9s %s\n", m.Role, m.Text())
	}
}

func backend(ctx context.Context, chatID string, messages []recap.Message) error {
	// doc:quickstart
	summarizer := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		// Ask your LLM to merge req.Previous (the old summary, may be "") with req.Messages.
		return callLLM(ctx, req.Previous, req.Messages)
	})

	c, err := recap.New(summarizer, recap.NewMemoryStore(),
		recap.WithTriggerTokens(4000),    // summarize when the older part exceeds 4000 tokens
		recap.WithWindowConversations(3)) // keep the current turn and the 2 before it raw
	if err != nil {
		return err
	}

	res, err := c.Compress(ctx, chatID, messages) // messages: the whole chat, current turn last
	if err != nil {
		return err // invalid messages, the Store's Load failed, or ctx is done
	}
	if res.Err != nil {
		slog.Warn("summary not updated", "err", res.Err) // absorbed: the payload is still usable
	}
	send(res.Payload)
	// end doc:quickstart
	return nil
}

// Example_quickstart runs the README's first example on a short chat, with
// a trigger low enough to summarize it.
func Example_quickstart() {
	msgs := chat("What is the capital of France?", "Paris.", "And of Italy?", "Rome.", "Which is older?")
	if err := backend(context.Background(), "chat-1", msgs); err != nil {
		panic(err)
	}
	// Output:
	// system    You are terse.
	// user      What is the capital of France?
	// assistant Paris.
	// user      And of Italy?
	// assistant Rome.
	// user      Which is older?
}

// Example_plan shows a test of windowing logic: Plan needs no Summarizer
// and no Store.
func Example_plan() {
	// doc:plan
	c, _ := recap.New(nil, nil, recap.WithTriggerTokens(10), recap.WithWindowConversations(2))
	// An OpenAI-format chat, as a client sends it: no message IDs needed.
	var msgs []recap.Message
	_ = json.Unmarshal([]byte(`[
		{"role": "system", "content": "You are terse."},
		{"role": "user", "content": "What is the capital of France?"},
		{"role": "assistant", "content": "Paris, on the Seine."},
		{"role": "user", "content": "And of Italy?"},
		{"role": "assistant", "content": "Rome."},
		{"role": "user", "content": "Which is older?"}
	]`), &msgs)
	p, err := c.Plan(msgs, recap.Summary{}) // no summary yet
	if err != nil {
		panic(err)
	}
	fmt.Println("pinned:", len(p.Pinned), "to summarize:", len(p.Summarize), "window:", len(p.Window), "turn:", len(p.Turn))
	fmt.Println("tokens to summarize:", p.Tokens, "trigger fires:", p.Trigger)
	// end doc:plan
	// Output:
	// pinned: 1 to summarize: 2 window: 2 turn: 1
	// tokens to summarize: 24 trigger fires: true
}

// Example_background schedules summarizations off the request path.
func Example_background() {
	serverCtx, shutdownCtx := context.Background(), context.Background()
	summarizer, store := listSummarizer, recap.NewMemoryStore()
	// doc:background
	c, err := recap.New(summarizer, store,
		recap.WithMaxPayloadTokens(100_000),
		recap.WithBackground(func(task func(context.Context)) {
			go task(context.WithoutCancel(serverCtx)) // or a worker pool
		}))
	if err != nil {
		panic(err)
	}
	// ... c.Compress on each request ...

	// On shutdown, after the HTTP server stopped taking requests:
	err = c.Drain(shutdownCtx) // waits for pending and running summarizations
	// end doc:background
	fmt.Println(err)
	// Output: <nil>
}

// Example_recall looks up what a summary covers.
func Example_recall() {
	ctx := context.Background()
	c, _ := recap.New(listSummarizer, recap.NewMemoryStore(), recap.WithTriggerTokens(10), recap.WithWindowConversations(1))
	msgs := chat("My order is BW-58231, it arrived broken.", "Sorry! Ticket RMA-7741 is open.",
		"Thanks.", "You're welcome.", "What was my order number again?")
	if _, err := c.Compress(ctx, "chat-1", msgs); err != nil {
		panic(err)
	}
	chatID := "chat-1"
	// doc:recall
	found, err := c.Recall(ctx, chatID, msgs, "order number", recap.RecallResults(3)) // a cached index per chat
	if err != nil {
		panic(err)
	}
	for _, e := range found {
		fmt.Printf("%s %s: %s\n", e.MessageID, e.Role, e.Text)
	}
	// end doc:recall
	// Output:
	// m1 user: My order is BW-58231, it arrived broken.
}

// Example_estimator counts for a Claude model, tools and request overhead
// off the ceiling.
func Example_estimator() {
	summarizer, store := listSummarizer, recap.NewMemoryStore()
	toolsJSON := []byte(`[{"name":"weather","description":"The weather of a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`)
	// doc:estimator
	e, err := tokens.EstimatorForModel("claude-sonnet-4-5") // an error matching tokens.ErrUnknownEncoding for a model it does not know
	if err != nil {
		panic(err)
	}
	toolTokens, err := e.ToolTokens(toolsJSON) // the request's tool definitions, in any provider's shape
	if err != nil {
		panic(err)
	}
	c, err := recap.New(summarizer, store, recap.WithTokenCounter(e),
		recap.WithMessageOverhead(e.MessageOverhead()),
		recap.WithMaxPayloadTokens(200_000-8_192), recap.WithReservedTokens(e.RequestOverhead()+toolTokens))
	// end doc:estimator
	fmt.Println(c != nil, err, toolTokens > 0)
	// Output: true <nil> true
}

// Example_requestOverhead reserves what an OpenAI request holds besides
// the messages.
func Example_requestOverhead() {
	summarizer, store := listSummarizer, recap.NewMemoryStore()
	counter, _ := tokens.NewTiktoken(tokens.O200kBase)
	requestJSON := []byte(`{"model":"gpt-4o","tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`)
	// doc:request
	fixed, err := tokens.OpenAIRequestOverhead(counter, requestJSON) // the body you send, messages included or not
	if err != nil {
		panic(err)
	}
	c, err := recap.New(summarizer, store,
		recap.WithTokenCounter(counter),
		recap.WithMessageOverhead(tokens.OpenAIMessageOverhead),
		recap.WithMaxPayloadTokens(128_000-4_096), // the context window less the output you reserve
		recap.WithReservedTokens(fixed))
	// end doc:request
	fmt.Println(c != nil, err, fixed > 0)
	// Output: true <nil> true
}

// Example_calibrator corrects the counts from the usage a provider reports.
func Example_calibrator() {
	ctx, chatID := context.Background(), "chat-1"
	summarizer, store := listSummarizer, recap.NewMemoryStore()
	history := chat("What is the capital of France?", "Paris.", "And of Italy?")
	callTheModel := func([]recap.Message) (struct{ InputTokens int }, error) { return struct{ InputTokens int }{40}, nil }
	// doc:calibrator
	cal := recap.NewCalibrator(nil) // o200k_base as the base counter
	c, err := recap.New(summarizer, store,
		recap.WithTokenCounter(cal.Counter("claude-sonnet-4-5")),
		recap.WithMessageOverhead(4), recap.WithMaxPayloadTokens(190_000))
	if err != nil {
		panic(err)
	}
	res, err := c.Compress(ctx, chatID, history)
	if err != nil {
		panic(err)
	}
	resp, err := callTheModel(res.Payload)
	if err != nil {
		panic(err)
	}
	err = cal.Observe("claude-sonnet-4-5", recap.Usage{Payload: res.Payload, Overhead: 4, Reported: resp.InputTokens})
	// end doc:calibrator
	fmt.Println(err)
	// Output: <nil>
}
