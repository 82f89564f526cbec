package sumdigest

import (
	"strings"
	"testing"

	"github.com/recapgo/recap"
)

func TestDigest(t *testing.T) {
	base := recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	if got, want := Of(base), Of(recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}); got != want {
		t.Errorf("equal summaries have digests %s and %s", got, want)
	}
	if got, want := Of(recap.Summary{Text: "t", LastMessageID: "m"}), Of(recap.Summary{Text: "t", LastMessageID: "m", Covered: []string{}}); got != want {
		t.Errorf("nil and empty Covered have digests %s and %s; Summary.Equal holds them equal", got, want)
	}
	if got := Of(base); len(got) != 64 || strings.Trim(got, "0123456789abcdef") != "" {
		t.Errorf("digest = %q, want 64 lower-case hex digits", got)
	}
	for _, tc := range []struct {
		name   string
		a, b   recap.Summary
		reason string
	}{
		{"Text", base, recap.Summary{Text: "text ", LastMessageID: "m2", Covered: base.Covered}, "a changed text"},
		{"LastMessageID", base, recap.Summary{Text: "text", LastMessageID: "m3", Covered: base.Covered}, "a changed boundary"},
		{"CoveredDropped", base, recap.Summary{Text: "text", LastMessageID: "m2"}, "Covered dropped"},
		{"CoveredReordered", base, recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m2", "m1"}}, "order counts"},
		{"CoveredJoined", base, recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1m2"}}, "ID boundaries count"},
		{"EmptyIDMore", base, recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2", ""}}, "an empty ID counts"},
		{"EmptyIDs", recap.Summary{Covered: []string{""}}, recap.Summary{Covered: []string{"", ""}}, "the number of empty IDs counts"},
		{"TextIntoID", recap.Summary{Text: "ab", LastMessageID: "c"}, recap.Summary{Text: "a", LastMessageID: "bc"}, "the text/boundary split counts"},
		{"IDIntoCovered", recap.Summary{LastMessageID: "a"}, recap.Summary{Covered: []string{"a"}}, "the boundary/Covered split counts"},
		{"LengthLikeText", recap.Summary{Text: "\x01a", LastMessageID: ""}, recap.Summary{Text: "", LastMessageID: "a"}, "text that looks like a length prefix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if Of(tc.a) == Of(tc.b) {
				t.Errorf("%+v and %+v share a digest; want different: %s", tc.a, tc.b, tc.reason)
			}
		})
	}
}

// FuzzDigest checks that two summaries share a digest exactly when they
// are Equal. Each Covered comes from splitting a string at "|" ("" for
// none), so that fuzzed IDs can be empty, reordered and joined.
func FuzzDigest(f *testing.F) {
	f.Add("t", "m2", "m1|m2", "t", "m2", "m1|m2")
	f.Add("t", "m2", "m1|m2", "t", "m2", "m1m2")
	f.Add("ab", "c", "", "a", "bc", "")
	f.Add("", "", "|", "", "", "||")
	f.Fuzz(func(t *testing.T, text1, last1, cov1, text2, last2, cov2 string) {
		a := recap.Summary{Text: text1, LastMessageID: last1, Covered: split(cov1)}
		b := recap.Summary{Text: text2, LastMessageID: last2, Covered: split(cov2)}
		if eq, same := a.Equal(b), Of(a) == Of(b); eq != same {
			t.Errorf("Equal = %v but digests equal = %v for %+v and %+v", eq, same, a, b)
		}
	})
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

// TestPinned: the digest is stored by examples/sqlstore and
// examples/redisstore, so it must never change silently.
func TestPinned(t *testing.T) {
	base := recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	if got, want := Of(base), "2804cf9365944a27c307c7df00f1e3efeaa057134dd78ead87f551099522839f"; got != want {
		t.Errorf("Of(%+v) = %s, want %s", base, got, want)
	}
}
