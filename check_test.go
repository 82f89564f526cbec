package recap

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func values(items []KeyItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Kind+" "+it.Value)
	}
	return out
}

func TestInputItems(t *testing.T) {
	tests := []struct {
		name     string
		previous string
		msgs     []Message
		want     []string
		reason   string
	}{
		{
			name: "specific items",
			msgs: []Message{
				{ID: "1", Role: RoleUser, Content: "My order BW-58231 cost £21,400 and was shipped on 14 March to Kovács at 14:05."},
				{ID: "2", Role: RoleAssistant, Content: "I opened ticket RMA-7741. See https://example.com/t/7741 or write to help@example.com."},
			},
			want: []string{"identifier bw-58231", "number £21,400", "number 14 march", "name kovács", "number 14:05",
				"identifier rma-7741", "identifier https://example.com/t/7741", "identifier help@example.com"},
			reason: "identifiers, money, dates, names, times, URLs and e-mail addresses are key items",
		},
		{
			name:   "bare small numbers are not",
			msgs:   []Message{{ID: "1", Role: RoleUser, Content: "I have 2 kids and 3 questions about the 12 options."}},
			want:   []string{"number 2 kids", "number 3 questions", "number 12 options"},
			reason: "a number with a unit word is one; a bare one- or two-digit number is not",
		},
		{
			name: "a correction drops the old value",
			msgs: []Message{
				{ID: "1", Role: RoleUser, Content: "The database host is pg-prod-3."},
				{ID: "2", Role: RoleUser, Content: "Sorry, it is pg-prod-2, not pg-prod-3."},
			},
			want:   []string{"identifier pg-prod-2"},
			reason: "the newer value wins: the corrected one is no item, neither where it was stated nor in the correction",
		},
		{
			name:     "the previous summary's items",
			previous: "Facts and constraints:\n- User: \"My order is BW-58213.\"\n- Assistant: \"The replacement ticket is RMA-7741.\"",
			msgs:     []Message{{ID: "3", Role: RoleUser, Content: "Thanks, that helps."}},
			want:     []string{"identifier bw-58213", "identifier rma-7741"},
			reason:   "what the previous summary held, the next one must hold",
		},
		{
			name: "constraints and decisions are statement items",
			msgs: []Message{
				{ID: "1", Role: RoleUser, Content: "Leo has a severe peanut allergy and must never eat tree nuts."},
				{ID: "2", Role: RoleUser, Content: "Let's go with the blue sofa from the second shop."},
			},
			want: []string{"statement leo has a severe peanut allergy and must never eat tree nuts.",
				"statement let's go with the blue sofa from the second shop."},
			reason: "statements of constraints and decisions must be kept as statements",
		},
		{
			name: "a value stated twice is one item, the user's",
			msgs: []Message{
				{ID: "1", Role: RoleAssistant, Content: "Your ticket is INC-20931."},
				{ID: "2", Role: RoleUser, Content: "Yes, INC-20931 is the one."},
			},
			want:   []string{"identifier inc-20931"},
			reason: "one item per value, attributed to the user when the user stated it",
		},
		{
			name:   "tool outputs are not read",
			msgs:   []Message{{ID: "1", Role: RoleTool, Content: `{"tracking":"ZX-99812"}`}},
			want:   nil,
			reason: "tool results are data; the assistant's words about them carry what matters",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := values(inputItems(tt.previous, tt.msgs))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s\nmismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
	items := inputItems("", []Message{
		{ID: "1", Role: RoleAssistant, Content: "Your ticket is INC-20931."},
		{ID: "2", Role: RoleUser, Content: "Yes, INC-20931 is the one."},
	})
	if len(items) != 1 || items[0].Speaker != "User" || items[0].MessageID != "2" || items[0].Statement != "Yes, INC-20931 is the one." {
		t.Errorf("attribution: %+v", items)
	}
}

func TestMissingItems(t *testing.T) {
	msgs := []Message{
		{ID: "1", Role: RoleUser, Content: "My order BW-58231 cost £21,400 and arrives on 14 March."},
		{ID: "2", Role: RoleUser, Content: "Leo has a severe peanut allergy and must never eat tree nuts."},
	}
	items := inputItems("", msgs)
	tests := []struct {
		summary string
		missing []string
		reason  string
	}{
		{"- User: order BW-58231, £21,400, arrives 14 March; Leo: severe peanut allergy, never eat tree nuts.", nil,
			"everything held, the statement by most of its words"},
		{"Order bw-58231 (21400 £), due March 14. Leo must never eat tree nuts: severe peanut allergy.", nil,
			"case, separators and order of a number and its unit or month do not matter"},
		{"Order BW-58213 cost about £20,000, arriving in March.", []string{"identifier bw-58231", "number £21,400", "number 14 march",
			"statement leo has a severe peanut allergy and must never eat tree nuts."},
			"a near identifier, a rounded amount and a month without its day are missing"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.missing, values(missingItems(items, tt.summary))); diff != "" {
			t.Errorf("%s\nsummary %q\nmismatch (-want +got):\n%s", tt.reason, tt.summary, diff)
		}
	}
}

func TestNumberCore(t *testing.T) {
	for in, want := range map[string]string{
		"£21,400": "21400", "21.400 €": "21400", "2 450 €": "2450", "3.5": "35", "14:05": "14",
		"3, 4 and 5": "3", "no digit": "", "v4.12.3": "4123",
	} {
		if got := numberCore(in); got != want {
			t.Errorf("numberCore(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRepair(t *testing.T) {
	count := func(s string) int { return len(strings.Fields(s)) }
	missing := []KeyItem{
		{Kind: "identifier", Value: "bw-58231", Statement: "My order is BW-58231.", Speaker: "User", MessageID: "1"},
		{Kind: "identifier", Value: "rma-7741", Statement: "Your ticket is RMA-7741.", Speaker: "Assistant", MessageID: "2"},
		{Kind: "number", Value: "14 march", Statement: "It must arrive by 14 March.", Speaker: "User", MessageID: "3"},
		{Kind: "name", Value: "kovács", Statement: "Kovács must get it by 14 March.", Speaker: "User", MessageID: "4"},
	}
	tests := []struct {
		name         string
		limit        int
		want         string
		added, unfit []string
	}{
		{"all fit", 100, "Summary.\n\n" + RepairHeading + "\n- User: \"My order is BW-58231.\"\n- Assistant: \"Your ticket is RMA-7741.\"\n- User: \"It must arrive by 14 March.\"\n- User: \"Kovács must get it by 14 March.\"",
			[]string{"identifier bw-58231", "identifier rma-7741", "number 14 march", "name kovács"}, nil},
		// A limit of -1 is the size of the summary wanted: what it adds
		// fits, the next item would not.
		{"the user's first, newest first", -1, "Summary.\n\n" + RepairHeading + "\n- User: \"It must arrive by 14 March.\"\n- User: \"Kovács must get it by 14 March.\"",
			[]string{"number 14 march", "name kovács"}, []string{"identifier bw-58231", "identifier rma-7741"}},
		{"a shorter older one fits where a newer one would not", -1, "Summary.\n\n" + RepairHeading + "\n- User: \"My order is BW-58231.\"\n- User: \"Kovács must get it by 14 March.\"",
			[]string{"identifier bw-58231", "name kovács"}, []string{"identifier rma-7741", "number 14 march"}},
		{"nothing fits", 5, "Summary.", nil, []string{"identifier bw-58231", "identifier rma-7741", "number 14 march", "name kovács"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.limit < 0 {
				tt.limit = count(tt.want)
			}
			got, added, unfit := repair("Summary.", missing, tt.limit, count)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("summary mismatch (-want +got):\n%s", diff)
			}
			if n := count(got); n > tt.limit && got != "Summary." {
				t.Errorf("%d tokens, over the limit %d", n, tt.limit)
			}
			if diff := cmp.Diff(tt.added, values(added)); diff != "" {
				t.Errorf("added mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.unfit, values(unfit)); diff != "" {
				t.Errorf("unfit mismatch (-want +got):\n%s", diff)
			}
			if len(added) > 0 && len(missingItems(added, got)) != 0 {
				t.Errorf("a repaired summary still misses %v", values(missingItems(added, got)))
			}
		})
	}
}
