package recap_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/recapgo/recap"
)

// Recall finds what a summary left out: here the ticket number, which the
// summary does not hold, in the messages it covers.
func ExampleRecall() {
	msgs := []recap.Message{
		{ID: "sys", Role: recap.RoleSystem, Content: "You help with incidents."},
		{ID: "m1", Role: recap.RoleUser, Content: "Checkout fails since 14:05. Ticket INC-20931, version 4.12.3."},
		{ID: "m2", Role: recap.RoleAssistant, Content: "Noted. Let's check the ledger service first."},
		{ID: "m3", Role: recap.RoleUser, Content: "The ledger times out after 30 s."},
		{ID: "m4", Role: recap.RoleAssistant, Content: "Then raise its pool from 20 to 40 connections."},
		{ID: "m5", Role: recap.RoleUser, Content: "Done. What was the ticket number again?"},
	}
	summary := recap.Summary{
		Text:          "A checkout incident, traced to ledger timeouts; the pool was raised.",
		LastMessageID: "m4",
		Covered:       []string{"m1", "m2", "m3", "m4"},
	}
	found, err := recap.Recall(msgs, summary, "ticket number", recap.RecallResults(1))
	if err != nil {
		panic(err)
	}
	for _, e := range found {
		fmt.Printf("%s (%s, message %d): %s\n", e.MessageID, e.Role, e.Position, e.Text)
	}
	// Output:
	// m1 (user, message 1): Checkout fails since 14:05. Ticket INC-20931, version 4.12.3.
}

// A backend gives the model the recall tool (RecallToolName,
// RecallToolDescription, RecallToolSchema) and tells it so in the summary
// (WithRecallHint); when the model calls the tool, AnswerRecall answers
// from the chat's messages.
func ExampleCompressor_AnswerRecall() {
	ctx := context.Background()
	store := recap.NewMemoryStore()
	c, err := recap.New(listSummarizer, store,
		recap.WithTriggerTokens(20),
		recap.WithWindowConversations(1),
		recap.WithRecallHint(recap.RecallHint))
	if err != nil {
		panic(err)
	}
	msgs := chat(
		"Book the Lisbon flight, booking code QX7-PLM2.", "Booked.",
		"And a hotel near Alfama, 3 nights.", "Booked the Memmo Alfama.",
		"What was the flight's booking code?")
	res, err := c.Compress(ctx, "chat-1", msgs)
	if err != nil {
		panic(err)
	}
	fmt.Println("summary message:", res.Payload[1].Text())

	// The model calls the tool with these arguments.
	call := json.RawMessage(`{"query": "flight booking code", "k": 1}`)
	answer, err := c.AnswerRecall(ctx, "chat-1", msgs, call)
	if err != nil {
		panic(err)
	}
	fmt.Println(answer)
	// Output:
	// summary message: Answers so far: Booked. Booked the Memmo Alfama.
	//
	// Details this summary leaves out (exact figures, names, identifiers, wording) can be looked up with the recall tool.
	// Found 1 passage in the earlier messages for "flight booking code", most relevant first:
	//
	// [1] user, message 2 of 6:
	// Book the Lisbon flight, booking code QX7-PLM2.
}
