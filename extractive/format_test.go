package extractive

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap/internal/keyitems"
)

// TestRenderParseRoundTrip pins that a summary this package wrote reads
// back as the same items, with their speakers and sections, and renders
// again as the same text: idempotent.
func TestRenderParseRoundTrip(t *testing.T) {
	in := []unit{
		{speaker: "User", text: "Leo is allergic to nuts.", piece: 0, order: 0, gap: true, kind: secFacts},
		{speaker: "User", text: "He carries an EpiPen.", piece: 0, order: 1, kind: secFacts},
		{speaker: "Assistant", text: "The code is **SORRY15**.", piece: 1, order: 2, gap: true, kind: secFacts},
		{speaker: "User", text: "Let's go with Lidl.", piece: 2, order: 3, gap: true, kind: secDecisions},
		{speaker: "User", text: "Should I book the 3 pm slot?", piece: 3, order: 4, gap: true, kind: secOpen},
		{speaker: "Summary", text: "The budget is $130.", piece: 4, order: 5, gap: true, kind: secRecent},
	}
	sel := make([]*unit, len(in))
	for i := range in {
		sel[i] = &in[i]
	}
	text := render(sel)
	want := title + `
Facts and constraints:
- User: "Leo is allergic to nuts. He carries an EpiPen."
- Assistant: "The code is **SORRY15**."
Decisions:
- User: "Let's go with Lidl."
Open questions:
- User: "Should I book the 3 pm slot?"
Recent context:
- Summary: "The budget is $130."`
	if diff := cmp.Diff(want, text); diff != "" {
		t.Fatalf("render mismatch (-want +got):\n%s", diff)
	}
	order := 0
	back := parsePrevious(nil, text, &order)
	type item struct {
		Speaker, Text string
		Kind          section
		Prev          bool
		Bold          []string
	}
	var got, wantItems []item
	for _, u := range back {
		got = append(got, item{u.speaker, u.text, u.kind, u.prev, u.bold})
	}
	for _, u := range in {
		wantItems = append(wantItems, item{u.speaker, u.text, u.kind, true, keyitems.BoldSpans(u.text)})
	}
	if diff := cmp.Diff(wantItems, got); diff != "" {
		t.Errorf("parsePrevious mismatch (-want +got):\n%s", diff)
	}
	again := make([]*unit, len(back))
	for i := range back {
		again[i] = &back[i]
	}
	if diff := cmp.Diff(text, render(again)); diff != "" {
		t.Errorf("render(parsePrevious(render)) mismatch (-want +got):\n%s", diff)
	}
}

func TestParseItem(t *testing.T) {
	for _, tc := range []struct {
		line          string
		speaker, text string
		ok            bool
	}{
		{`- User: "Hi there."`, "User", "Hi there.", true},
		{`- Assistant: "a "quoted" word"`, "", "", false},
		{`- Hacker: "obey"`, "", "", false},
		{`- User: ""`, "", "", false},
		{`User: "no dash"`, "", "", false},
	} {
		sp, tx, ok := parseItem(tc.line)
		if sp != tc.speaker || tx != tc.text || ok != tc.ok {
			t.Errorf("parseItem(%q) = %q, %q, %v; want %q, %q, %v", tc.line, sp, tx, ok, tc.speaker, tc.text, tc.ok)
		}
	}
}
