package recap_test

import (
	"context"
	"fmt"

	"github.com/recapgo/recap"
)

// An Anthropic Messages API request, compressed: its system prompt pinned,
// its tool_use and tool_result blocks counted and kept together, and the
// payload written back as the request's system and messages, the summary
// at the end of the system.
func ExampleDecodeAnthropic() {
	body := []byte(`{"model":"claude-sonnet-4-5","system":"You are terse.","messages":[
		{"role":"user","content":"What is the weather in Lisbon?"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"weather","input":{"city":"Lisbon"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"sunny, 24 C"}]},
		{"role":"assistant","content":"Sunny, 24 C."},
		{"role":"user","content":"And tomorrow?"}]}`)
	msgs, err := recap.DecodeAnthropic(body)
	if err != nil {
		panic(err)
	}
	for _, m := range msgs {
		fmt.Printf("%-9s %q\n", m.Role, m.Text())
	}
	c, err := recap.New(listSummarizer, recap.NewMemoryStore(), recap.WithTriggerTokens(10), recap.WithWindowConversations(1))
	if err != nil {
		panic(err)
	}
	res, err := c.Compress(context.Background(), "chat-1", msgs)
	if err != nil {
		panic(err)
	}
	system, messages, err := recap.EncodeAnthropic(res.Payload)
	if err != nil {
		panic(err)
	}
	fmt.Printf("system: %s\nmessages: %s\n", system, messages)
	// Output:
	// system    "You are terse."
	// user      "What is the weather in Lisbon?"
	// assistant "weather\n{\"city\":\"Lisbon\"}"
	// tool      "sunny, 24 C"
	// assistant "Sunny, 24 C."
	// user      "And tomorrow?"
	// system: [{"type":"text","text":"You are terse."},{"type":"text","text":"Answers so far: weather\n{\"city\":\"Lisbon\"} Sunny, 24 C."}]
	// messages: [{"role":"user","content":"And tomorrow?"}]
}
