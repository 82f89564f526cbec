package redisstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/sumdigest"
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
		{"Digests", recap.Summary{Text: "t", LastMessageID: "m3", Covered: []string{"m1", "m2", "m3"}, Digests: []string{"0a1b2c3d", "~4e5f6a7b", ""}},
			`{"text":"t","lastMessageId":"m3","covered":["m1","m2","m3"],"digests":["0a1b2c3d","~4e5f6a7b",""]}`,
			"Digests follow Covered, an empty digest included"},
		{"EmptyDigests", recap.Summary{Text: "t", LastMessageID: "m1", Covered: []string{"m1"}, Digests: []string{}}, `{"text":"t","lastMessageId":"m1","covered":["m1"]}`,
			"no Digests are left out, as the redisstore before Digests wrote the field"},
		{"Many", recap.Summary{Text: strings.Repeat("long ", 1000), LastMessageID: "id-999", Covered: many(1000), Digests: many(1000)}, "", "a long text and many IDs and digests"},
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
			if len(tc.sum.Digests) == 0 && got.Digests != nil {
				t.Errorf("decode(%s).Digests = %#v, want nil", field, got.Digests)
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
		{"Digest", recap.Summary{Text: "t", LastMessageID: "m2", Covered: []string{"m1", "m2"}, Digests: []string{"0a1b2c3d", "\xff"}}, "digest 1"},
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

// TestDecodeWithoutDigests: a summary field written by the redisstore
// before Summary.Digests has no digests, and decodes with none, nil.
func TestDecodeWithoutDigests(t *testing.T) {
	got, err := decode(`{"text":"t","lastMessageId":"m2","covered":["m1","m2"]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := recap.Summary{Text: "t", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decode mismatch (-want +got):\n%s", diff)
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	for _, field := range []string{"", "[]", `{"text":1}`, `{"covered":"m1"}`, `{"text":"t"`, `{"digests":"d1"}`, `{"digests":[1]}`} {
		if got, err := decode(field); err == nil {
			t.Errorf("decode(%q) = %+v, want an error", field, got)
		}
	}
}

// FuzzEncode checks that what encode accepts decodes to an Equal summary.
func FuzzEncode(f *testing.F) {
	f.Add("t", "m2", "m1|m2", "0a1b2c3d|~4e5f6a7b")
	f.Add("a\x00b", "\u2028", "|", "|")
	f.Add("bad\xff", "m1", "", "")
	f.Add("t", "m1", "m1", "\xff")
	f.Fuzz(func(t *testing.T, text, last, cov, digests string) {
		sum := recap.Summary{Text: text, LastMessageID: last, Covered: split(cov), Digests: split(digests)}
		field, err := encode(sum)
		if err != nil {
			return // invalid UTF-8, rejected
		}
		got, err := decode(field)
		if err != nil {
			t.Fatalf("decode(encode(%+v)) = %v", sum, err)
		}
		if !got.Equal(sum) || sumdigest.Of(got) != sumdigest.Of(sum) {
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
	sum := recap.Summary{Text: strings.Repeat("summary text ", 200), LastMessageID: "msg-000999", Covered: many(1000), Digests: many(1000)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encode(sum); err != nil {
			b.Fatal(err)
		}
		sumdigest.Of(sum)
		sumdigest.Of(sum) // prev and next
	}
}
