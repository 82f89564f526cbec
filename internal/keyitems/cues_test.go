package keyitems

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReplaced(t *testing.T) {
	for _, tc := range []struct {
		in     string
		old    []string
		reason string
	}{
		{"The order number is BW-58213, not BW-58231.", []string{"BW-58231"}, "'Y, not X'"},
		{"actually stollen is €24 not €22, I forgot.", []string{"€22"}, "values on both sides of 'not'"},
		{"Please send it there, not to Rua das Flores.", []string{"Rua das Flores"}, "articles and prepositions after the marker are skipped"},
		{"Also kein Halbmarathon, sondern ein 10-km-Lauf.", []string{"Halbmarathon"}, "'kein X, sondern Y'"},
		{"al final no granito, sino cuarzo", []string{"granito"}, "'no X, sino Y'"},
		{"on déménage le 19 juillet au lieu du 12.", []string{"12"}, "'au lieu du'"},
		{"neuer Termin ist der 24. Mai statt dem 17. Mai.", []string{"17 Mai"}, "'statt'; punctuation around words is dropped"},
		{"ci sposiamo il 21 settembre, non più il 14.", []string{"14"}, "'non più'"},
		{"夫の都合で、8月3日からではなく、8月10日からです。", []string{"8月3日から"}, "the CJK marker follows what it replaces"},
		{"Ich vertrage kein Ibuprofen, mein Magen macht nicht mit.", nil, "a negation is not a correction"},
		{"So nothing with nuts, ever, not even traces.", []string{"even traces"}, "a contrast without a replacement: features decide (see corrections)"},
	} {
		old, _ := Replaced(tc.in)
		if diff := cmp.Diff(tc.old, old); diff != "" {
			t.Errorf("replaced(%q) mismatch (-want +got):\n%s\nreason: %s", tc.in, diff, tc.reason)
		}
	}
}

func TestCues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Cue
	}{
		{"Leo is allergic to peanuts.", Constraint},
		{"Let's go with Nudges That Stick.", Decision},
		{"Queremos inducción sí o sí.", Constraint | FirstPerson},
		{"I'll think about it.", Open | FirstPerson},
		{"Can I pay later?", Question | Open | FirstPerson},
		{"夫は運転免許を持っていないので、運転は私だけです。", Constraint | FirstPerson},
		// Other languages (cues_more.go).
		{"С дилером общаемся только письменно.", Constraint},
		{"Mama Tomka choruje na celiakię.", Constraint},
		{"Wybraliśmy salę Dworek.", Decision},
		{"我们决定签这个合同。", Decision},
		{"Sorry, in plaats van 3 maart wordt het 17 maart.", Correction},
	} {
		if got := Cues(tc.in) &^ (Limit | Marker | Courtesy); got != tc.want {
			t.Errorf("cues(%q) = %b, want %b", tc.in, got, tc.want)
		}
	}
}
