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
		recap.WithTriggerTokens(4000),     // summarize when the older part exceeds 4000 tokens
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
