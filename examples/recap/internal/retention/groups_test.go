package retention

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGroups: facts are summed by language (sorted, "?" for none), then
// by speaker (user, assistant, others by name), then the corrected ones;
// a chat counts once per group; a dropped fact without a question is not
// asked; chats without facts (the proxy) count nowhere.
func TestGroups(t *testing.T) {
	fact := func(by, question, stale string) Fact {
		return Fact{By: by, Question: question, Stale: stale, Proof: []string{"x"}}
	}
	os := []Outcome{
		{
			Chat: Chat{Name: "a", Language: "fr", Facts: []Fact{
				fact("user", "q?", ""), fact("assistant", "q?", ""), fact("user", "", "old"),
			}},
			Kept:     []bool{true, false, false},
			Recent:   []bool{true, false, false},
			Recalled: []bool{false, true, false},
		},
		{
			Chat: Chat{Name: "b", Language: "de", Facts: []Fact{
				fact("user", "q?", "old"), fact("tool", "q?", ""),
			}},
			Kept:     []bool{false, true},
			Recent:   []bool{false, true},
			Recalled: []bool{false, false},
		},
		{Chat: Chat{Name: "c"}, Kept: []bool{true, true}, Recent: []bool{true, false}}, // proxy: no facts
		{
			Chat:     Chat{Name: "d", Facts: []Fact{fact("user", "q?", "")}},
			Kept:     []bool{false},
			Recent:   []bool{false},
			Recalled: []bool{true},
		},
	}
	want := []Group{
		{Name: "language ?", Chats: 1, Facts: 1, Asked: 1, Recalled: 1},
		{Name: "language de", Chats: 1, Facts: 2, Kept: 1, Recent: 1, Asked: 1},
		{Name: "language fr", Chats: 1, Facts: 3, Kept: 1, Recent: 1, Asked: 1, Recalled: 1},
		{Name: "stated by the user", Chats: 3, Facts: 4, Kept: 1, Recent: 1, Asked: 2, Recalled: 1},
		{Name: "stated by the assistant", Chats: 1, Facts: 1, Asked: 1, Recalled: 1},
		{Name: "stated by the tool", Chats: 1, Facts: 1, Kept: 1, Recent: 1},
		{Name: "corrected (the newer value)", Chats: 2, Facts: 2, Asked: 1},
	}
	if diff := cmp.Diff(want, Groups(os)); diff != "" {
		t.Errorf("Groups mismatch (-want +got):\n%s", diff)
	}
	if got := Groups(os[2:3]); len(got) != 0 {
		t.Errorf("Groups of proxy outcomes = %v, want none", got)
	}

	var b bytes.Buffer
	WriteGroupTable(&b, os)
	for _, row := range []string{
		"| language fr | 1 | 3 | 33% (1/3) | 33% | 1/1 | 67% (2/3) |",
		"| stated by the user | 3 | 4 | 25% (1/4) | 25% | 1/2 | 50% (2/4) |",
		"| corrected (the newer value) | 2 | 2 | 0% (0/2) | 0% | 0/1 | 0% (0/2) |",
	} {
		if !strings.Contains(b.String(), row+"\n") {
			t.Errorf("table lacks %q:\n%s", row, b.String())
		}
	}
}
