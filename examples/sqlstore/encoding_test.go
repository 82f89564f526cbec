package sqlstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
)

func TestCoveredRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ids    []string
		col    string // the column, if it is worth pinning
		reason string
	}{
		{"Nil", nil, "[]", "no IDs is an empty array, as the column's default"},
		{"Empty", []string{}, "[]", "an empty Covered is stored like a nil one"},
		{"EmptyID", []string{""}, `[""]`, "an empty ID is an ID"},
		{"Odd", []string{"a,b", "c\nd", `"q"`, "[x]", "<&>", "ünï/中", "a\x00b", "\u2028"}, `["a,b","c\nd","\"q\"","[x]","<&>","ünï/中","a\u0000b","\u2028"]`,
			"separators, quotes and brackets are escaped by JSON, NUL as \\u0000 (PostgreSQL TEXT cannot hold a raw NUL), HTML is not escaped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			col, err := encodeCovered(tc.ids)
			if err != nil {
				t.Fatal(err)
			}
			if col != tc.col {
				t.Errorf("encodeCovered = %s, want %s (%s)", col, tc.col, tc.reason)
			}
			got, err := decodeCovered(col)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.ids) == 0 && got != nil {
				t.Errorf("decodeCovered(%s) = %#v, want nil", col, got)
			}
			if diff := cmp.Diff(tc.ids, got, cmpEmpty); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty makes nil and empty slices equal, as recap.Summary.Equal does.
var cmpEmpty = cmp.FilterValues(func(x, y []string) bool { return len(x) == 0 && len(y) == 0 }, cmp.Comparer(func(_, _ []string) bool { return true }))

func TestCoveredRejectsInvalidUTF8(t *testing.T) {
	if col, err := encodeCovered([]string{"ok", "bad\xff"}); err == nil {
		t.Fatalf("encodeCovered of invalid UTF-8 = %s, want an error (JSON would replace the byte)", col)
	}
}

func TestDigest(t *testing.T) {
	base := recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	if got, want := digest(base), digest(recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}); got != want {
		t.Errorf("equal summaries have digests %s and %s", got, want)
	}
	if got, want := digest(recap.Summary{Text: "t", LastMessageID: "m"}), digest(recap.Summary{Text: "t", LastMessageID: "m", Covered: []string{}}); got != want {
		t.Errorf("nil and empty Covered have digests %s and %s; Summary.Equal holds them equal", got, want)
	}
	if got := digest(base); len(got) != 64 || strings.Trim(got, "0123456789abcdef") != "" {
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
			if digest(tc.a) == digest(tc.b) {
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
		if eq, same := a.Equal(b), digest(a) == digest(b); eq != same {
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

func BenchmarkSaveEncoding(b *testing.B) {
	sum := recap.Summary{Text: strings.Repeat("summary text ", 200), LastMessageID: "msg-000999", Covered: make([]string, 1000)}
	for i := range sum.Covered {
		sum.Covered[i] = fmt.Sprintf("msg-%06d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeCovered(sum.Covered); err != nil {
			b.Fatal(err)
		}
		digest(sum)
		digest(sum) // prev and next
	}
}
