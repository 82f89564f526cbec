package gemini_test

import (
	"context"
	"fmt"

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
