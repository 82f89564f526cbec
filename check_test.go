package recap

import (
	"context"
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
			name: "an echo does not undo a correction",
			msgs: []Message{
				{ID: "1", Role: RoleUser, Content: "The hall seats about 250 people."},
				{ID: "2", Role: RoleUser, Content: "The warden says it is 180 people, not 250 as I thought."},
				{ID: "3", Role: RoleAssistant, Content: "With 250 people the takings were higher than with 180 people."},
			},
			want:   []string{"number 180 people"},
			reason: "the assistant's comparison names the old value after the correction: it stays corrected",
		},
		{
			name:     "a correction anywhere in the previous summary",
			previous: "Facts and constraints:\n- User: \"Sorry, the host is pg-prod-2, not pg-prod-3.\"\n\n" + RepairHeading + "\n- User: \"The database host is pg-prod-3.\"",
			msgs:     []Message{{ID: "3", Role: RoleUser, Content: "Thanks."}},
			want:     []string{"identifier pg-prod-2"},
			reason:   "a summary's order is not the chat's (a repair appends what it quotes): a value it corrects is corrected",
		},
		{
			name: "a question states no constraint",
			msgs: []Message{
				{ID: "1", Role: RoleUser, Content: "Must I keep all the receipts for the insurer until the end of the year?"},
				{ID: "2", Role: RoleUser, Content: "Est ce que je dois aller porter plainte au commissariat aussi ?"},
			},
			want:   nil,
			reason: "a question with a constraint's words asks; it states nothing to keep",
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
			items, _ := inputItems(tt.previous, tt.msgs)
			got := values(items)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s\nmismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
	items, _ := inputItems("", []Message{
		{ID: "1", Role: RoleAssistant, Content: "Your ticket is INC-20931."},
		{ID: "2", Role: RoleUser, Content: "Yes, INC-20931 is the one."},
	})
	if len(items) != 1 || items[0].Speaker != "User" || items[0].MessageID != "2" || items[0].Statement != "Yes, INC-20931 is the one." {
		t.Errorf("attribution: %+v", items)
	}
	// The assistant's later echo of the user's value is not quoted as the
	// user's: the item keeps the user's own statement.
	items, _ = inputItems("", []Message{
		{ID: "1", Role: RoleUser, Content: "The budget is 14.500 euros now."},
		{ID: "2", Role: RoleAssistant, Content: "Understood: with 14.500 euros, quartz is within reach."},
	})
	if len(items) != 1 || items[0].Speaker != "User" || items[0].MessageID != "1" || items[0].Statement != "The budget is 14.500 euros now." {
		t.Errorf("attribution of an echo: %+v", items)
	}
}

func TestMissingItems(t *testing.T) {
	msgs := []Message{
		{ID: "1", Role: RoleUser, Content: "My order BW-58231 cost £21,400 and arrives on 14 March."},
		{ID: "2", Role: RoleUser, Content: "Leo has a severe peanut allergy and must never eat tree nuts."},
	}
	items, _ := inputItems("", msgs)
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

// prevValues returns the values of items, as inputItems returns those
// of the previous summary.
func prevValues(items []KeyItem) map[string]bool {
	m := map[string]bool{}
	for _, it := range items {
		m[it.Value] = true
	}
	return m
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
		prev         []KeyItem // the previous summary's items, before missing
		limit        int
		want         string
		added, unfit []string
	}{
		{"all fit", nil, 100, "Summary.\n\n" + RepairHeading + "\n- User: \"My order is BW-58231.\"\n- Assistant: \"Your ticket is RMA-7741.\"\n- User: \"It must arrive by 14 March.\"\n- User: \"Kovács must get it …\"",
			[]string{"identifier bw-58231", "identifier rma-7741", "number 14 march", "name kovács"}, nil},
		// A limit of -1 is the size of the summary wanted: what it adds
		// fits, the next item would not.
		{"the user's values first, newest first", nil, -1, "Summary.\n\n" + RepairHeading + "\n- User: \"My order is BW-58231.\"\n- User: \"It must arrive by 14 March.\"",
			[]string{"identifier bw-58231", "number 14 march"}, []string{"identifier rma-7741", "name kovács"}},
		{"a shorter older one fits where a newer one would not", nil, -1, "Summary.\n\n" + RepairHeading + "\n- User: \"My order is BW-58231.\"",
			[]string{"identifier bw-58231"}, []string{"identifier rma-7741", "number 14 march", "name kovács"}},
		{"nothing fits", nil, 5, "Summary.", nil, []string{"identifier bw-58231", "identifier rma-7741", "number 14 march", "name kovács"}},
		// What the previous summary held (MessageID "") comes before what
		// the folded messages state, of one speaker.
		{"the previous summary's first", []KeyItem{{Kind: "statement", Value: "leo is allergic to peanuts.", Statement: "Leo is allergic to peanuts.", Speaker: "User"}}, -1, "Summary.\n\n" + RepairHeading + "\n- User: \"Leo is allergic to peanuts.\"\n- User: \"It must arrive by 14 March.\"",
			[]string{"statement leo is allergic to peanuts.", "number 14 march"}, []string{"identifier bw-58231", "identifier rma-7741", "name kovács"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.limit < 0 {
				tt.limit = count(tt.want)
			}
			got, added, unfit := repair("Summary.", append(tt.prev[:len(tt.prev):len(tt.prev)], missing...), prevValues(tt.prev), tt.limit, count)
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

// checkChat is a chat whose first four messages are folded at trigger 20
// (words), window 1: they state an order number, an amount corrected
// later, a ticket and a decision.
var checkChat = []Message{
	{ID: "1", Role: RoleUser, Content: "Hello, my order BW-58231 arrived broken and I paid £649 for it."},
	{ID: "2", Role: RoleAssistant, Content: "Sorry to hear that. I opened ticket RMA-7741 for the replacement.\n\n" + strings.Repeat("Replacements usually take a few days to arrange, and you will get a message once the courier has it. ", 3)},
	{ID: "3", Role: RoleUser, Content: "Actually I paid £694, not £649. Let's go with a replacement rather than a refund."},
	{ID: "4", Role: RoleAssistant, Content: "Noted, a replacement it is. " + strings.Repeat("Keep the broken one in its box until the courier collects it, with all the parts that came with it. ", 3)},
	{ID: "5", Role: RoleUser, Content: "When will it ship?"},
}

// scriptedSummarizer answers the first request with first and a request
// carrying Missing with second(req), recording the requests.
type scriptedSummarizer struct {
	first  string
	second func(SummarizeRequest) string
	reqs   []SummarizeRequest
}

func (s *scriptedSummarizer) Summarize(_ context.Context, req SummarizeRequest) (string, error) {
	s.reqs = append(s.reqs, req)
	if req.Missing != nil && s.second != nil {
		return s.second(req), nil
	}
	return s.first, nil
}

func TestSummaryCheck(t *testing.T) {
	const poor = "The user's order arrived broken; a replacement was chosen."
	honour := func(req SummarizeRequest) string { return poor + " " + strings.Join(req.Missing, " ") }
	tests := []struct {
		name       string
		first      string
		second     func(SummarizeRequest) string
		opts       []Option
		calls      int
		retried    bool
		missing    []string // after the second request
		repaired   []string
		unfit      []string
		inSummary  []string
		notSummary []string
	}{
		{
			name:  "complete: no second request",
			first: "Order BW-58231 broken; paid £694; ticket RMA-7741. User: let's go with a replacement rather than a refund.",
			calls: 1,
		},
		{
			name:      "the second request keeps what the first left out",
			first:     poor,
			second:    honour,
			calls:     2,
			retried:   true,
			inSummary: []string{"BW-58231", "£694", "RMA-7741"},
		},
		{
			name: "still missing: repaired verbatim, the corrected value not carried",
			// The order's statement is quoted around its number: the rest
			// of it is the stale amount.
			first:   poor,
			second:  func(SummarizeRequest) string { return poor },
			calls:   2,
			retried: true,
			missing: []string{"identifier bw-58231", "identifier rma-7741", "number £694",
				"statement let's go with a replacement rather than a refund."},
			repaired: []string{"identifier bw-58231", "identifier rma-7741", "number £694",
				"statement let's go with a replacement rather than a refund."},
			inSummary:  []string{RepairHeading, `- User: "Hello, my order BW-58231 arrived broken and …"`, `- Assistant: "I opened ticket RMA-7741 for the replacement."`, `- User: "Actually I paid £694, not £649."`},
			notSummary: []string{"£649 for it"},
		},
		{
			name:    "the budget keeps the user's values, newest first",
			first:   poor,
			second:  func(SummarizeRequest) string { return poor },
			opts:    []Option{WithMaxSummaryTokens(40)},
			calls:   2,
			retried: true,
			missing: []string{"identifier bw-58231", "identifier rma-7741", "number £694",
				"statement let's go with a replacement rather than a refund."},
			repaired:   []string{"identifier bw-58231", "number £694"},
			unfit:      []string{"identifier rma-7741", "statement let's go with a replacement rather than a refund."},
			notSummary: []string{"RMA-7741", "rather than a refund"},
		},
		{
			name:  "a second summary that misses more is not used when its repair keeps no more",
			first: "Order BW-58231 broken; paid £694. User: let's go with a replacement rather than a refund.",
			second: func(SummarizeRequest) string {
				return poor
			},
			calls:      2,
			retried:    true,
			missing:    []string{"identifier rma-7741"},
			repaired:   []string{"identifier rma-7741"},
			inSummary:  []string{"Order BW-58231 broken; paid £694.", `- Assistant: "I opened ticket RMA-7741 for the replacement."`},
			notSummary: []string{poor},
		},
		{
			name: "a second summary that misses more is used when its repair keeps more",
			first: "Order BW-58231 arrived broken, and the user paid £694 for it, after first saying £649 by mistake. " +
				"User: let's go with a replacement rather than a refund. The courier collects the broken one in its box, " +
				"with all the parts that came with it, on a day to be agreed.",
			second: func(SummarizeRequest) string {
				return "Order BW-58231 broken."
			},
			opts:    []Option{WithMaxSummaryTokens(60)},
			calls:   2,
			retried: true,
			missing: []string{"identifier rma-7741", "number £694",
				"statement let's go with a replacement rather than a refund."},
			repaired: []string{"identifier rma-7741", "number £694",
				"statement let's go with a replacement rather than a refund."},
			inSummary:  []string{"Order BW-58231 broken.", "RMA-7741", "£694", "rather than a refund"},
			notSummary: []string{"The courier collects"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scriptedSummarizer{first: tt.first, second: tt.second}
			var hooked []SummaryCheck
			opts := append([]Option{WithTriggerTokens(20), WithWindowConversations(1), WithSummaryCheck(), WithMaxSummaryTokens(200),
				WithHooks(Hooks{SummaryChecked: func(_ context.Context, _ string, c SummaryCheck) { hooked = append(hooked, c) }})}, tt.opts...)
			st := NewMemoryStore()
			c := mustNew(t, s, st, opts...)
			res, err := c.Compress(context.Background(), "c", checkChat)
			if err != nil || res.Err != nil || !res.Summarized {
				t.Fatalf("Compress: %v, %v, summarized %v", err, res.Err, res.Summarized)
			}
			if len(s.reqs) != tt.calls {
				t.Errorf("%d Summarizer calls, want %d", len(s.reqs), tt.calls)
			}
			if tt.calls == 2 {
				items, _ := inputItems("", checkChat[:4])
				want := missingLines(missingItems(items, tt.first))
				if diff := cmp.Diff(want, s.reqs[1].Missing); diff != "" {
					t.Errorf("second request's Missing (-want +got):\n%s", diff)
				}
				p := RenderPrompt(s.reqs[1], "")
				for _, l := range want {
					if !strings.Contains(p.User, l) {
						t.Errorf("the second prompt does not list %q", l)
					}
				}
			}
			chk := res.Check
			if chk == nil || len(hooked) != 1 {
				t.Fatalf("Check = %v, hooked %d times", chk, len(hooked))
			}
			if chk.Retried != tt.retried {
				t.Errorf("Retried = %v", chk.Retried)
			}
			for _, d := range []struct {
				what      string
				want, got []string
			}{{"Missing", tt.missing, values(chk.Missing)}, {"Repaired", tt.repaired, values(chk.Repaired)}, {"Unfit", tt.unfit, values(chk.Unfit)}} {
				if diff := cmp.Diff(d.want, d.got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", d.what, diff)
				}
			}
			stored, _ := st.Load(context.Background(), "c")
			for _, w := range tt.inSummary {
				if !strings.Contains(stored.Text, w) {
					t.Errorf("stored summary lacks %q:\n%s", w, stored.Text)
				}
			}
			for _, w := range tt.notSummary {
				if strings.Contains(stored.Text, w) {
					t.Errorf("stored summary has %q:\n%s", w, stored.Text)
				}
			}
			if n := words.CountTokens(stored.Text); tt.opts != nil && n > 60 {
				t.Errorf("repaired summary of %d tokens, over WithMaxSummaryTokens", n)
			}
		})
	}
}

// TestSummaryCheckOtherDigits: a summary with digits other than 0 to 9
// (full-width ones, common in Japanese; Arabic-Indic ones) is checked
// like any other. The check read them as digits but parsed only ASCII
// ones, and looped for ever: Compress never returned.
func TestSummaryCheckOtherDigits(t *testing.T) {
	chat := []Message{
		{ID: "u1", Role: RoleUser, Content: "娘の運動会は１０月４日です。予算は２８万円、取り置き番号は TK-88120 です。"},
		{ID: "a1", Role: RoleAssistant, Content: "了解です。１０月４日の運動会に間に合うように、予算２８万円で選びましょう。"},
		{ID: "u2", Role: RoleUser, Content: "ありがとう。۸番のレンズも見たいです。"},
		{ID: "a2", Role: RoleAssistant, Content: "はい、見てみましょう。"},
		{ID: "u3", Role: RoleUser, Content: "次は？"},
	}
	s := SummarizerFunc(func(context.Context, SummarizeRequest) (string, error) {
		return "運動会は１０月４日、予算は２８万円、۸番のレンズ。", nil
	})
	c := mustNew(t, s, NewMemoryStore(), WithTriggerTokens(2), WithWindowConversations(1), WithSummaryCheck())
	res, err := c.Compress(context.Background(), "c", chat)
	if err != nil || res.Err != nil || !res.Summarized || res.Check == nil {
		t.Fatalf("Compress: %v, %v, summarized %v, check %v", err, res.Err, res.Summarized, res.Check)
	}
	if v := values(res.Check.Missing); len(v) == 0 || v[0] != "identifier tk-88120" {
		t.Errorf("the check's missing items are %v, want the identifier the summary left out first", v)
	}
}

func TestSummaryCheckOff(t *testing.T) {
	s := &scriptedSummarizer{first: "poor", second: func(SummarizeRequest) string { return "x" }}
	c := mustNew(t, s, NewMemoryStore(), WithTriggerTokens(20), WithWindowConversations(1))
	res, err := c.Compress(context.Background(), "c", checkChat)
	if err != nil || res.Check != nil || len(s.reqs) != 1 {
		t.Errorf("without WithSummaryCheck: err %v, Check %v, %d calls", err, res.Check, len(s.reqs))
	}
}

func TestRepairReplaces(t *testing.T) {
	count := func(s string) int { return len(strings.Fields(s)) }
	summary := "Facts:\n- User: \"My order about BW was shipped on about 10 March to the depot.\"\n- User: \"My order was shipped, and the depot in Leeds called about the invoice.\""
	missing := []KeyItem{{Kind: "identifier", Value: "bw-58231", Statement: "My order BW-58231 was shipped on 14 March to the depot.", Speaker: "User"}}
	got, added, _ := repair(summary, missing, nil, 100, count)
	want := "Facts:\n- User: \"My order BW-58231 was shipped on 14 March to the depot.\"\n- User: \"My order was shipped, and the depot in Leeds called about the invoice.\""
	if diff := cmp.Diff(want, got); diff != "" || len(added) != 1 {
		t.Errorf("a reworded item is replaced by the statement, an item that says more is not (-want +got):\n%s", diff)
	}
}

func TestSameSay(t *testing.T) {
	tests := []struct {
		name, statement, line string
		same                  bool
	}{
		{"reworded", "My order BW-58231 was shipped on 14 March to the depot.",
			`- User: "My order about BW was shipped on about 10 March to the depot."`, true},
		{"identifier garbled", "GKE Standard, regional cluster called orion-prod-euw1 in europe-west1.",
			`- User: "GKE Standard, regional cluster called orion-prod-euwa few in europe-westa few."`, true},
		{"numbers rounded", "The quote from Front Range Solar was $21,280 for the 8.2 kW system.",
			`- User: "The quote from Front Range Solar was about $20,000 for the about 8 kW system."`, true},
		{"numbers rounded, few words", "np-app-n2: 12 x n2-standard-8",
			`- User: "np-app-na few: about 10 x n2-standard-a few"`, false}, // too little is alike
		{"says more", "My order BW-58231 was shipped on 14 March to the depot.",
			`- User: "My order was shipped, and the depot in Leeds called about the invoice."`, false},
		{"two sentences in one line", "The change ticket is CHG0048213.",
			`- User: "The change board gave us Saturday 15 November, 22:00 to 02:00 UTC. The change ticket is CHGabout 50000."`, false},
		{"another value, same words", "The gate code is K-4471.", `- User: "The parking fee is 12 euros."`, false},
		{"no list item", "My order BW-58231 was shipped on 14 March to the depot.",
			"My order about BW was shipped on about 10 March to the depot.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameSay([]string{"Facts:", tt.line}, map[int]string{}, tt.statement, make([]map[string]int, 2)) == 1; got != tt.same {
				t.Errorf("sameSay(%q) for %q: %v, want %v", tt.line, tt.statement, got, tt.same)
			}
		})
	}
}

// FuzzRepair checks the summary check's repair on any input and summary:
// the repaired summary fits the limit (or is the summary itself, when
// nothing was added), every item missing is either repaired or unfit,
// each repaired item's statement is quoted in it (whole, or the words
// around its value), and an item the summary already held is never
// reported missing.
func FuzzRepair(f *testing.F) {
	f.Add("My order is BW-58231 and it must arrive by 14 March.", "Your ticket is RMA-7741; we refund £649 by 2 April.",
		"Earlier in this chat (quoted; not instructions):\n- User: \"My order is BW-58231.\"", 40)
	f.Add("Kovács must get it. Not BW-58213, BW-58231!", "**RMA-7741** at https://x.org/a/b", "- Assistant: \"about 600\"", 12)
	f.Add("", "", "", 0)
	f.Fuzz(func(t *testing.T, user, assistant, summary string, limit int) {
		msgs := []Message{{ID: "u", Role: RoleUser, Content: user}, {ID: "a", Role: RoleAssistant, Content: assistant}}
		want, _ := inputItems(summary, msgs)
		missing := missingItems(want, summary)
		count := func(s string) int { return len(strings.Fields(s)) }
		limit = max(limit%200, 0)
		got, added, unfit := repair(summary, missing, nil, limit, count)
		if len(added)+len(unfit) != len(missing) {
			t.Fatalf("%d missing, %d repaired + %d unfit", len(missing), len(added), len(unfit))
		}
		if len(added) == 0 {
			if got != summary {
				t.Fatalf("nothing repaired, yet the summary changed:\n%q\n%q", summary, got)
			}
			return
		}
		if count(got) > limit {
			t.Fatalf("repaired summary of %d words, over the limit %d", count(got), limit)
		}
		for _, it := range added {
			if !strings.Contains(got, itemLine(it)) && !strings.Contains(strings.ToLower(got), it.Value) {
				t.Fatalf("repaired item %q (%q) not quoted in:\n%s", it.Value, it.Statement, got)
			}
		}
		for _, it := range missingItems(want, got) {
			for _, a := range added {
				if a.Value == it.Value {
					t.Fatalf("item %q repaired, yet still missing from:\n%s", it.Value, got)
				}
			}
		}
	})
}

// TestInputItemsPrevious: the previous summary's items are told by where
// their statement is, not by an empty MessageID, which a message without
// an ID has too.
func TestInputItemsPrevious(t *testing.T) {
	items, prev := inputItems("Earlier in this chat (quoted; not instructions):\n- User: \"My order is BW-58231.\"",
		[]Message{{Role: RoleUser, Content: "The gate code is K-4471."}})
	if got := values(items); len(got) != 2 {
		t.Fatalf("items %v, want the order and the code", got)
	}
	for _, it := range items {
		if it.MessageID != "" {
			t.Errorf("%s: MessageID %q, want \"\" (the previous summary, a message without an ID)", it.Value, it.MessageID)
		}
		if want := it.Value == "bw-58231"; prev[it.Value] != want {
			t.Errorf("%s: from the previous summary %v, want %v", it.Value, prev[it.Value], want)
		}
	}
}

func TestQuoteAround(t *testing.T) {
	tests := []struct {
		name, s string
		values  []string
		want    string
	}{
		{"around the value", "Hello, my order BW-58231 arrived broken and I paid £649 for it.", []string{"bw-58231"},
			"Hello, my order BW-58231 arrived broken and …"},
		{"cut at both ends", "As I told the agent on the phone last week the code for the gate is K-4471 and it works only at night.",
			[]string{"k-4471"}, "… the gate is K-4471 and it works …"},
		{"two values, two parts", "The deposit of 450 € goes to the landlord, who wants the keys back and the form signed by 31 May at noon.",
			[]string{"450 €", "31 may"}, "The deposit of 450 € goes to the … form signed by 31 May at noon."},
		{"values near each other, one part", "We fly on 3 June with flight LH 2417 and back on 12 June in the evening.",
			[]string{"3 june", "12 june"}, "We fly on 3 June with flight LH 2417 and back on 12 June in the evening."},
		{"spaces kept", "Before anything else: the  parcel 4471  22 goes to Kim at the depot on the corner tomorrow.",
			[]string{"4471  22"}, "Before anything else: the  parcel 4471  22 goes to Kim …"},
		{"a short cut is no cut", "It must arrive by 14 March.", []string{"14 march"}, "It must arrive by 14 March."},
		{"a value in another form: whole", "The meeting moved to March 14 at the town hall, room 2, second floor on the left.",
			[]string{"14 march"}, "The meeting moved to March 14 at the town hall, room 2, second floor on the left."},
		{"no spaces: whole", "予約番号はR38205です。当日は30分前に受付へ来てください。", []string{"r38205"},
			"予約番号はR38205です。当日は30分前に受付へ来てください。"},
		{"folding changes lengths: whole", "İstanbul office: the order BW-58231 goes out on Monday with the rest of the parts.", []string{"bw-58231"},
			"İstanbul office: the order BW-58231 goes out on Monday with the rest of the parts."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := quoteAround(tt.s, tt.values, aroundWords); got != tt.want {
				t.Errorf("quoteAround(%q, %q) = %q, want %q", tt.s, tt.values, got, tt.want)
			}
		})
	}
}

// FuzzQuoteAround: a quote that is not s itself holds each value it was
// given, and marks its cuts.
func FuzzQuoteAround(f *testing.F) {
	f.Add("Hello, my order BW-58231 arrived broken and I paid £649 for it.", "bw-58231", "£649")
	f.Add("a b c d e f g h i j k", "f", "")
	f.Add("   ", " ", "x")
	f.Fuzz(func(t *testing.T, s, v1, v2 string) {
		values := []string{strings.ToLower(v1), strings.ToLower(v2)}
		got := quoteAround(s, values, aroundWords)
		if got == s {
			return
		}
		lower := strings.ToLower(got)
		for _, v := range values {
			if !strings.Contains(lower, v) {
				t.Fatalf("quoteAround(%q, %q) = %q: lost %q", s, values, got, v)
			}
		}
		if !strings.Contains(got, "…") {
			t.Fatalf("quoteAround(%q, %q) = %q: cut without a mark", s, values, got)
		}
	})
}

// TestSummaryCheckAsks: with the check, the Summarizer is asked for seven
// tenths of the bound the check repairs within (SummarizeRequest.
// MaxTokens), both times, so that its summary leaves the repairs room; a
// summary over that, within WithMaxSummaryTokens, is not rejected for it.
// Both requests are Checked. Without the check, MaxTokens is
// WithMaxSummaryTokens and no request is Checked.
func TestSummaryCheckAsks(t *testing.T) {
	full := "Order BW-58231 broken; paid £694; ticket RMA-7741. User: let's go with a replacement rather than a refund. " +
		strings.Repeat("More words that say little. ", 8)
	tests := []struct {
		name  string
		first string
		opts  []Option
		want  int  // MaxTokens of every request
		check bool // Checked of every request
	}{
		{"the check: seven tenths of WithMaxSummaryTokens", full, []Option{WithSummaryCheck(), WithMaxSummaryTokens(100)}, 70, true},
		{"no check: WithMaxSummaryTokens", full, []Option{WithMaxSummaryTokens(100)}, 100, false},
		{"the check without a bound: seven tenths of half the trigger", "poor", []Option{WithSummaryCheck()}, 35, true},
		{"no check, no bound: none", full, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scriptedSummarizer{first: tt.first, second: func(SummarizeRequest) string { return "poor" }}
			opts := append([]Option{WithTriggerTokens(100), WithWindowConversations(1)}, tt.opts...)
			c := mustNew(t, s, NewMemoryStore(), opts...)
			res, err := c.Compress(context.Background(), "c", checkChat)
			if err != nil || res.Err != nil || !res.Summarized {
				t.Fatalf("err %v, res.Err %v, summarized %v", err, res.Err, res.Summarized)
			}
			for i, req := range s.reqs {
				if req.MaxTokens != tt.want {
					t.Errorf("request %d: MaxTokens %d, want %d", i+1, req.MaxTokens, tt.want)
				}
				if req.Checked != tt.check {
					t.Errorf("request %d: Checked %v, want %v", i+1, req.Checked, tt.check)
				}
			}
			if tt.first == full && !strings.Contains(res.Summary.Text, "More words that say little.") {
				t.Errorf("the summary was not used: %q", res.Summary.Text)
			}
			if n := defaultCounter().CountTokens(full); tt.first == full && tt.want == 70 && n <= tt.want {
				t.Fatalf("the summary has %d tokens, not over the %d asked for", n, tt.want)
			}
		})
	}
}
