package recap_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recapgo/recap"
)

// A Summarizer that a real program would back with an LLM; this one keeps
// the assistant's answers, so the example's output is deterministic.
var listSummarizer = recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	var b strings.Builder
	b.WriteString("Answers so far:")
	if req.Previous != "" {
		b.WriteString(" " + strings.TrimPrefix(req.Previous, "Answers so far: "))
	}
	for _, m := range req.Messages {
		if m.Role == recap.RoleAssistant {
			b.WriteString(" " + m.Text())
		}
	}
	return b.String(), nil
})

func chat(texts ...string) []recap.Message {
	msgs := []recap.Message{{ID: "sys", Role: recap.RoleSystem, Content: "You are terse."}}
	for i, t := range texts {
		role := recap.RoleUser
		if i%2 == 1 {
			role = recap.RoleAssistant
		}
		msgs = append(msgs, recap.Message{ID: fmt.Sprint("m", i+1), Role: role, Content: t})
	}
	return msgs
}

func Example() {
	c, err := recap.New(listSummarizer, recap.NewMemoryStore(),
		recap.WithTriggerTokens(10),
		recap.WithWindowConversations(2))
	if err != nil {
		panic(err)
	}
	msgs := chat(
		"What is the capital of France?", "Paris.",
		"And of Italy?", "Rome.",
		"And of Spain?", "Madrid.",
		"Which is the largest?")
	res, err := c.Compress(context.Background(), "chat-1", msgs)
	if err != nil {
		panic(err)
	}
	for _, m := range res.Payload {
		fmt.Printf("%-9s %s\n", m.Role, m.Text())
	}
	fmt.Println("boundary:", res.Summary.LastMessageID)
	// Output:
	// system    You are terse.
	// system    Answers so far: Paris. Rome.
	// user      And of Spain?
	// assistant Madrid.
	// user      Which is the largest?
	// boundary: m4
}

// An OpenAI Chat Completions chat has no message IDs. Compress derives
// them as ChainIDs does, from each message's content and the messages
// before it, so that the next turn (the chat grown, or this payload sent
// back) finds the summary's boundary again; the payload carries none.
func ExampleCompressor_Compress_withoutIDs() {
	var msgs []recap.Message
	err := json.Unmarshal([]byte(`[
		{"role": "system", "content": "You are terse."},
		{"role": "user", "content": "What is the capital of France?"},
		{"role": "assistant", "content": "Paris."},
		{"role": "user", "content": "And of Italy?"},
		{"role": "assistant", "content": "Rome."},
		{"role": "user", "content": "And of Spain?"},
		{"role": "assistant", "content": "Madrid."},
		{"role": "user", "content": "Which is the largest?"}
	]`), &msgs)
	if err != nil {
		panic(err)
	}
	c, err := recap.New(listSummarizer, recap.NewMemoryStore(),
		recap.WithTriggerTokens(10),
		recap.WithWindowConversations(2))
	if err != nil {
		panic(err)
	}
	res, err := c.Compress(context.Background(), "chat-1", msgs)
	if err != nil {
		panic(err)
	}
	payload, err := json.MarshalIndent(res.Payload, "", "  ")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(payload))
	fmt.Println("boundary:", res.Summary.LastMessageID)
	// Output:
	// [
	//   {
	//     "role": "system",
	//     "content": "You are terse."
	//   },
	//   {
	//     "role": "system",
	//     "content": "Answers so far: Paris. Rome."
	//   },
	//   {
	//     "role": "user",
	//     "content": "And of Spain?"
	//   },
	//   {
	//     "role": "assistant",
	//     "content": "Madrid."
	//   },
	//   {
	//     "role": "user",
	//     "content": "Which is the largest?"
	//   }
	// ]
	// boundary: h-7e8e0557788e.af4bd837
}

// Plan shows how a chat splits without calling a Summarizer or a Store.
func ExampleCompressor_Plan() {
	c, err := recap.New(nil, nil, recap.WithTriggerTokens(1000), recap.WithWindowConversations(2))
	if err != nil {
		panic(err)
	}
	existing := recap.Summary{Text: "The user asked for capitals.", LastMessageID: "m2"}
	p, err := c.Plan(chat("Capital of France?", "Paris.", "Of Italy?", "Rome.", "Of Spain?", "Madrid.", "Largest?"), existing)
	if err != nil {
		panic(err)
	}
	show := func(name string, msgs []recap.Message) {
		fmt.Printf("%-10s", name)
		for _, m := range msgs {
			fmt.Print(" ", m.ID)
		}
		fmt.Println()
	}
	show("pinned", p.Pinned)
	show("covered", p.Covered)
	show("summarize", p.Summarize)
	show("window", p.Window)
	show("turn", p.Turn)
	fmt.Println("tokens:", p.Tokens, "trigger:", p.Trigger)
	// Output:
	// pinned     sys
	// covered    m1 m2
	// summarize  m3 m4
	// window     m5 m6
	// turn       m7
	// tokens: 11 trigger: false
}

func ExampleOptionsFromEnv() {
	env := map[string]string{"VITE_SUMMARY_TRIGGER_TOKENS": "2500"}
	opts, err := recap.OptionsFromEnv("VITE_", func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(opts), "option")

	env["VITE_SUMMARY_TRIGGER_TOKENS"] = "lots"
	_, err = recap.OptionsFromEnv("VITE_", func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	})
	fmt.Println(err)
	// Output:
	// 1 option
	// recap: invalid option: VITE_SUMMARY_TRIGGER_TOKENS="lots": not an integer
}
