package retention

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
)

func TestKeyItems(t *testing.T) {
	tests := []struct {
		name, reason string
		msgs         []recap.Message
		want         []string
	}{
		{"Values", "identifiers, amounts, dates, times, URLs and e-mail addresses, each once, in order",
			[]recap.Message{
				{Role: recap.RoleUser, Content: "Order BW-58213 cost £412; deliver on 14 March after 15:30."},
				{Role: recap.RoleAssistant, Content: "Ticket RMA-7741 is open: https://example.com/t/7741, or mail kim@example.com. Order BW-58213 again."},
			},
			[]string{"bw-58213", "£412", "14 march", "15:30", "https://example.com/t/7741", "kim@example.com", "rma-7741"}},
		{"NotData", "the system prompt, tool outputs and lines of JSON are left out",
			[]recap.Message{
				{Role: recap.RoleSystem, Content: "You are agent X-100."},
				{Role: recap.RoleTool, Content: "INC-20931"},
				{Role: recap.RoleAssistant, Content: "Looked it up:\n{\"id\": \"INC-11111\", \"count\": 3}\nIt is INC-20931."},
			},
			[]string{"inc-20931"}},
		{"Plain", "words without a specific value are no item", []recap.Message{{Role: recap.RoleUser, Content: "Thanks, that helps a lot."}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, KeyItems(tt.msgs)); diff != "" {
				t.Errorf("KeyItems mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}

func TestItemsHeld(t *testing.T) {
	items := []string{"bw-58213", "£412", "14 march", "rma-7741"}
	payload := []recap.Message{{Role: recap.RoleSystem, Content: `- User: "order BW-58213, £412, on March 14"`}}
	// "March 14" reads as the key "march 14", not "14 march": a proxy
	// compares values as the text writes them.
	want := []bool{true, true, false, false}
	if diff := cmp.Diff(want, itemsHeld(items, payload)); diff != "" {
		t.Errorf("itemsHeld mismatch (-want +got):\n%s", diff)
	}
}
