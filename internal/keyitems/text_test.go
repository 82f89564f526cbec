package keyitems

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitSentences(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   []string
		reason string
	}{
		{"It's me and Dr. Ingrid Halvorsen. She reviews it.", []string{"It's me and Dr. Ingrid Halvorsen.", "She reviews it."}, "a title is not a sentence end"},
		{"Die Prüfung ist am 17. Mai in München. Gut.", []string{"Die Prüfung ist am 17. Mai in München.", "Gut."}, "a German ordinal before a month"},
		{"bakery is in Leeds. we do sourdough", []string{"bakery is in Leeds.", "we do sourdough"}, "a lower-case writer's sentences"},
		{"Use e.g. the red one. Version 4.12.3 is out!", []string{"Use e.g. the red one.", "Version 4.12.3 is out!"}, "abbreviations and version numbers"},
		{"日程は8月です。予算は40万円です。", []string{"日程は8月です。", "予算は40万円です。"}, "CJK sentence ends"},
		{"It rose to 683 ms. What now?", []string{"It rose to 683 ms.", "What now?"}, "a unit is not an abbreviation"},
	} {
		if diff := cmp.Diff(tc.want, SplitSentences(tc.in)); diff != "" {
			t.Errorf("splitSentences(%q) mismatch (-want +got):\n%s\nreason: %s", tc.in, diff, tc.reason)
		}
	}
}

func TestCleanLine(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		header   bool
		reason   string
	}{
		{"### Budget", "", true, "a markdown heading"},
		{"**Three quick rules**", "", true, "a line in bold alone"},
		{"**What I need from you:**", "", true, "a bold line ending with a colon"},
		{"Next steps:", "", true, "a short line ending with a colon"},
		{"- **Paid:** €649.00 including delivery", "Paid: €649.00 including delivery", false, "a bold label is not emphasis"},
		{"5. **Your deadline** and how much is written.", "Your deadline and how much is written.", false, "a lead-in without a number is a label"},
		{"- **3 to 5 working days** with standard delivery", "**3 to 5 working days** with standard delivery", false, "a number in bold is emphasis, kept for later merges"},
		{`So the effect size is **d ≈ 0.47**, "medium".`, "So the effect size is **d ≈ 0.47**, 'medium'.", false, "double quotes become single ones"},
		{"| Sourdough | £6 |", "Sourdough; £6", false, "table cells become clauses"},
	} {
		got, header := CleanLine(tc.in)
		if got != tc.want || header != tc.header {
			t.Errorf("cleanLine(%q) = %q, %v; want %q, %v\nreason: %s", tc.in, got, header, tc.want, tc.header, tc.reason)
		}
	}
}
