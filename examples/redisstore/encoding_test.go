package redisstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
)

func TestEncodeRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sum    recap.Summary
		field  string // the summary field, if it is worth pinning
		reason string
	}{
		{"NilCovered", recap.Summary{Text: "t", LastMessageID: "m1"}, `{"text":"t","lastMessageId":"m1","covered":[]}`,
			"no covered IDs is an empty array, never null"},
		{"EmptyCovered", recap.Summary{Text: "t", LastMessageID: "m1", Covered: []string{}}, `{"text":"t","lastMessageId":"m1","covered":[]}`,
			"an empty Covered is stored like a nil one"},
		{"EmptyID", recap.Summary{Text: "t", LastMessageID: "", Covered: []string{""}}, `{"text":"t","lastMessageId":"","covered":[""]}`,
			"an empty ID is an ID"},
		{"Odd", recap.Summary{Text: "<b>&\"\n", LastMessageID: "a\x00b", Covered: []string{"a,b", "c\nd", `"q"`, "[x]", "<&>", "ünï/中", "a\x00b", "\u2028"}},
			`{"text":"<b>&\"\n","lastMessageId":"a\u0000b","covered":["a,b","c\nd","\"q\"","[x]","<&>","ünï/中","a\u0000b","\u2028"]}`,
			"separators, quotes and brackets are escaped by JSON, NUL as \\u0000, HTML is not escaped"},
		{"Many", recap.Summary{Text: strings.Repeat("long ", 1000), LastMessageID: "id-999", Covered: many(1000)}, "", "a long text and many IDs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			field, err := encode(tc.sum)
			if err != nil {
				t.Fatal(err)
			}
			if tc.field != "" && field != tc.field {
				t.Errorf("encode = %s, want %s (%s)", field, tc.field, tc.reason)
			}
			got, err := decode(field)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.sum.Covered) == 0 && got.Covered != nil {
				t.Errorf("decode(%s).Covered = %#v, want nil", field, got.Covered)
			}
			if !got.Equal(tc.sum) {
				t.Errorf("round trip mismatch (-want +got):\n%s", cmp.Diff(tc.sum, got))
			}
		})
	}
}

func many(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("id-%d", i)
	}
	return ids
}

func TestEncodeRejectsInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		name string
		sum  recap.Summary
		want string // in the error
	}{
		{"Text", recap.Summary{Text: "bad\xff", LastMessageID: "m1"}, "summary text"},
		{"LastMessageID", recap.Summary{Text: "t", LastMessageID: "m\xc3"}, "boundary ID"},
		{"CoveredID", recap.Summary{Text: "t", LastMessageID: "m2", Covered: []string{"m1", "\xed\xa0\x80"}}, "covered ID 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			field, err := encode(tc.sum)
			if err == nil {
				t.Fatalf("encode = %s, want an error (JSON would replace the invalid bytes with U+FFFD)", field)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "UTF-8") {
				t.Errorf("encode error = %q, want it to name the %s and UTF-8", err, tc.want)
			}
		})
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	for _, field := range []string{"", "[]", `{"text":1}`, `{"covered":"m1"}`, `{"text":"t"`} {
		if got, err := decode(field); err == nil {
			t.Errorf("decode(%q) = %+v, want an error", field, got)
		}
	}
}

// digestOfSQLStore is what examples/sqlstore's digest returns for
// TestDigest's base summary.
const digestOfSQLStore = "2804cf9365944a27c307c7df00f1e3efeaa057134dd78ead87f551099522839f"

func TestDigest(t *testing.T) {
	base := recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	// Pinned: the digest is examples/sqlstore's, and the stored hashes
	// depend on it.
	if got, want := digest(base), digestOfSQLStore; got != want {
		t.Errorf("digest(%+v) = %s, want %s", base, got, want)
	}
	if got, want := digest(recap.Summary{Text: "t", LastMessageID: "m"}), digest(recap.Summary{Text: "t", LastMessageID: "m", Covered: []string{}}); got != want {
		t.Errorf("nil and empty Covered have digests %s and %s; Summary.Equal holds them equal", got, want)
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
		{"EmptyIDs", recap.Summary{Covered: []string{""}}, recap.Summary{Covered: []string{"", ""}}, "the number of empty IDs counts"},
		{"TextIntoID", recap.Summary{Text: "ab", LastMessageID: "c"}, recap.Summary{Text: "a", LastMessageID: "bc"}, "the text/boundary split counts"},
		{"IDIntoCovered", recap.Summary{LastMessageID: "a"}, recap.Summary{Covered: []string{"a"}}, "the boundary/Covered split counts"},
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

// FuzzEncode checks that what encode accepts decodes to an Equal summary.
func FuzzEncode(f *testing.F) {
	f.Add("t", "m2", "m1|m2")
	f.Add("a\x00b", "\u2028", "|")
	f.Add("bad\xff", "m1", "")
	f.Fuzz(func(t *testing.T, text, last, cov string) {
		sum := recap.Summary{Text: text, LastMessageID: last, Covered: split(cov)}
		field, err := encode(sum)
		if err != nil {
			return // invalid UTF-8, rejected
		}
		got, err := decode(field)
		if err != nil {
			t.Fatalf("decode(encode(%+v)) = %v", sum, err)
		}
		if !got.Equal(sum) || digest(got) != digest(sum) {
			t.Errorf("round trip mismatch (-want +got):\n%s", cmp.Diff(sum, got))
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
	sum := recap.Summary{Text: strings.Repeat("summary text ", 200), LastMessageID: "msg-000999", Covered: many(1000)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encode(sum); err != nil {
			b.Fatal(err)
		}
		digest(sum)
		digest(sum) // prev and next
	}
}
