package sumdigest

import (
	"strings"
	"testing"

	"github.com/recapgo/recap"
)

func TestDigest(t *testing.T) {
	base := recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	checked := recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}, Digests: []string{"0a1b2c3d", "~4e5f6a7b"}}
	if got, want := Of(base), Of(recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}); got != want {
		t.Errorf("equal summaries have digests %s and %s", got, want)
	}
	if got, want := Of(checked), Of(recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}, Digests: []string{"0a1b2c3d", "~4e5f6a7b"}}); got != want {
		t.Errorf("equal summaries with Digests have digests %s and %s", got, want)
	}
	for _, tc := range []struct {
		name   string
		a, b   recap.Summary
		reason string
	}{
		{"NilEmptyCovered", recap.Summary{Text: "t", LastMessageID: "m"}, recap.Summary{Text: "t", LastMessageID: "m", Covered: []string{}},
			"Summary.Equal holds a nil and an empty Covered equal"},
		{"NilEmptyDigests", base, recap.Summary{Text: base.Text, LastMessageID: base.LastMessageID, Covered: base.Covered, Digests: []string{}},
			"Summary.Equal holds a nil and an empty Digests equal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if Of(tc.a) != Of(tc.b) {
				t.Errorf("%+v and %+v have different digests; want one: %s", tc.a, tc.b, tc.reason)
			}
		})
	}
	if got := Of(base); len(got) != 64 || strings.Trim(got, "0123456789abcdef") != "" {
		t.Errorf("digest = %q, want 64 lower-case hex digits", got)
	}
	withDigests := func(s recap.Summary, d ...string) recap.Summary {
		s.Digests = d
		return s
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
		{"DigestsDropped", checked, base, "a store that drops Digests must not match"},
		{"DigestChanged", checked, withDigests(base, "0a1b2c3e", "~4e5f6a7b"), "a changed digest (an edited message)"},
		{"ContextMark", checked, withDigests(base, "0a1b2c3d", "4e5f6a7b"), "the per-request context mark counts"},
		{"DigestsReordered", checked, withDigests(base, "~4e5f6a7b", "0a1b2c3d"), "order counts"},
		{"DigestsShorter", checked, withDigests(base, "0a1b2c3d"), "a digest fewer"},
		{"DigestsJoined", checked, withDigests(base, "0a1b2c3d~4e5f6a7b"), "digest boundaries count"},
		{"EmptyDigest", base, withDigests(base, ""), "one empty digest is not none"},
		{"EmptyDigests", withDigests(base, ""), withDigests(base, "", ""), "the number of empty digests counts"},
		{"IDIntoDigests", recap.Summary{Covered: []string{"a"}}, recap.Summary{Digests: []string{"a"}}, "the Covered/Digests split counts"},
		{"CoveredIntoDigests", recap.Summary{Covered: []string{"a", "b"}}, recap.Summary{Covered: []string{"a"}, Digests: []string{"b"}}, "the Covered/Digests split counts"},
		{"CountLikeDigests", recap.Summary{Covered: []string{"a", "\x01b"}}, recap.Summary{Covered: []string{"a"}, Digests: []string{"b"}},
			"an ID that looks like a count and a length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if Of(tc.a) == Of(tc.b) {
				t.Errorf("%+v and %+v share a digest; want different: %s", tc.a, tc.b, tc.reason)
			}
		})
	}
}

// FuzzDigest checks that two summaries share a digest exactly when they
// are Equal. Each Covered and Digests comes from splitting a string at "|"
// ("" for none), so that fuzzed IDs and digests can be empty, reordered and
// joined.
func FuzzDigest(f *testing.F) {
	f.Add("t", "m2", "m1|m2", "", "t", "m2", "m1|m2", "")
	f.Add("t", "m2", "m1|m2", "", "t", "m2", "m1m2", "")
	f.Add("ab", "c", "", "", "a", "bc", "", "")
	f.Add("", "", "|", "", "", "", "||", "")
	f.Add("t", "m2", "m1|m2", "0a1b2c3d|~4e5f6a7b", "t", "m2", "m1|m2", "")
	f.Add("t", "m2", "m1|m2", "0a1b2c3d|~4e5f6a7b", "t", "m2", "m1|m2", "0a1b2c3d|4e5f6a7b")
	f.Add("", "", "a|b", "", "", "", "a", "b")
	f.Fuzz(func(t *testing.T, text1, last1, cov1, dig1, text2, last2, cov2, dig2 string) {
		a := recap.Summary{Text: text1, LastMessageID: last1, Covered: split(cov1), Digests: split(dig1)}
		b := recap.Summary{Text: text2, LastMessageID: last2, Covered: split(cov2), Digests: split(dig2)}
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
// examples/redisstore, so it must never change silently. The first value
// predates Summary.Digests: a summary without Digests keeps it, which is
// what lets the stores' rows and hashes saved before Digests existed match
// without a migration.
func TestPinned(t *testing.T) {
	for _, tc := range []struct {
		sum  recap.Summary
		want string
	}{
		{recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}},
			"2804cf9365944a27c307c7df00f1e3efeaa057134dd78ead87f551099522839f"},
		{recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}, Digests: []string{}},
			"2804cf9365944a27c307c7df00f1e3efeaa057134dd78ead87f551099522839f"},
		{recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}, Digests: []string{"0a1b2c3d", "~4e5f6a7b"}},
			"04d925f284f480dd6c66237b48004706f0ccc4c6926b14c92de3094c5ffd00d7"},
	} {
		if got := Of(tc.sum); got != tc.want {
			t.Errorf("Of(%+v) = %s, want %s", tc.sum, got, tc.want)
		}
	}
}
