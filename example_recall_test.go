package recap_test

import (
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
