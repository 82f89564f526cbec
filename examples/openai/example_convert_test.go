package openai_test

import (
	"context"
	"fmt"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/openai"
)

// A backend that holds its chat as the SDK's messages compresses it on
// every turn: convert, compress, convert back, send.
func ExampleFromChatCompletion() {
	history := []oai.ChatCompletionMessageParamUnion{oai.SystemMessage("You are a travel agent.")}
	for day := 1; day <= 4; day++ {
		history = append(history,
			oai.UserMessage(fmt.Sprintf("What should I see in Lisbon on day %d of my trip, in the morning and the evening?", day)),
			oai.AssistantMessage(fmt.Sprintf("Day %d: a museum in the morning, a miradouro at sunset, dinner in Alfama.", day)))
	}
	history = append(history, oai.UserMessage("And on day 5?"))

	// In a real backend: openai.New(apiKey) as the summarizer, and a
	// shared Store.
	summarizer := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		return "The user plans five days in Lisbon: museums by day, miradouros at sunset.", nil
	})
	c, _ := recap.New(summarizer, recap.NewMemoryStore(), recap.WithTriggerTokens(60), recap.WithWindowConversations(2))

	msgs, err := openai.FromChatCompletion(history)
	if err != nil {
		panic(err)
	}
	res, err := c.Compress(context.Background(), "chat-42", msgs)
	if err != nil {
		panic(err)
	}
	payload, err := openai.ToChatCompletion(res.Payload)
	if err != nil {
		panic(err)
	}
	// client.Chat.Completions.New(ctx, oai.ChatCompletionNewParams{Model: oai.ChatModelGPT4o, Messages: payload})
	for _, m := range payload {
		text := m.GetContent().AsAny().(*string)
		fmt.Printf("%s: %.50s\n", *m.GetRole(), strings.TrimSpace(*text))
	}
	// Output:
	// system: You are a travel agent.
	// system: The user plans five days in Lisbon: museums by day
	// user: What should I see in Lisbon on day 4 of my trip, i
	// assistant: Day 4: a museum in the morning, a miradouro at sun
	// user: And on day 5?
}
