package sqlstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/sumdigest"
)

func TestStringsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ids    []string
		col    string // the column, if it is worth pinning
		reason string
	}{
		{"Nil", nil, "[]", "no IDs is an empty array, as the column's default"},
		{"Empty", []string{}, "[]", "an empty Covered or Digests is stored like a nil one"},
		{"EmptyID", []string{""}, `[""]`, "an empty ID is an ID"},
		{"Odd", []string{"a,b", "c\nd", `"q"`, "[x]", "<&>", "ünï/中", "a\x00b", "\u2028"}, `["a,b","c\nd","\"q\"","[x]","<&>","ünï/中","a\u0000b","\u2028"]`,
			"separators, quotes and brackets are escaped by JSON, NUL as \\u0000 (PostgreSQL TEXT cannot hold a raw NUL), HTML is not escaped"},
		{"Digests", []string{"0a1b2c3d", "~4e5f6a7b", ""}, `["0a1b2c3d","~4e5f6a7b",""]`, "digests as recap makes them, the context mark and an empty one included"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			col, err := encodeStrings("covered ID", tc.ids)
			if err != nil {
				t.Fatal(err)
			}
			if col != tc.col {
				t.Errorf("encodeStrings = %s, want %s (%s)", col, tc.col, tc.reason)
			}
			got, err := decodeStrings("covered", col)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.ids) == 0 && got != nil {
				t.Errorf("decodeStrings(%s) = %#v, want nil", col, got)
			}
			if diff := cmp.Diff(tc.ids, got, cmpEmpty); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty makes nil and empty slices equal, as recap.Summary.Equal does.
var cmpEmpty = cmp.FilterValues(func(x, y []string) bool { return len(x) == 0 && len(y) == 0 }, cmp.Comparer(func(_, _ []string) bool { return true }))

func TestStringsRejectInvalidUTF8(t *testing.T) {
	col, err := encodeStrings("digest", []string{"ok", "bad\xff"})
	if err == nil {
		t.Fatalf("encodeStrings of invalid UTF-8 = %s, want an error (JSON would replace the byte)", col)
	}
	if want := "digest 1"; !strings.Contains(err.Error(), want) {
		t.Errorf("encodeStrings error = %q, want it to name %q", err, want)
	}
}

func TestDecodeStringsRejectsGarbage(t *testing.T) {
	for _, col := range []string{"", "null x", `{"a":1}`, `[1]`, `["a"`} {
		if got, err := decodeStrings("digests", col); err == nil || !strings.Contains(err.Error(), "digests column") {
			t.Errorf("decodeStrings(%q) = %q, %v; want an error naming the column", col, got, err)
		}
	}
}

func BenchmarkSaveEncoding(b *testing.B) {
	sum := recap.Summary{Text: strings.Repeat("summary text ", 200), LastMessageID: "msg-000999", Covered: make([]string, 1000), Digests: make([]string, 1000)}
	for i := range sum.Covered {
		sum.Covered[i] = fmt.Sprintf("msg-%06d", i)
		sum.Digests[i] = fmt.Sprintf("%08x", uint32(i)*2654435761)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := encodeStrings("covered ID", sum.Covered); err != nil {
			b.Fatal(err)
		}
		if _, err := encodeStrings("digest", sum.Digests); err != nil {
			b.Fatal(err)
		}
		sumdigest.Of(sum)
		sumdigest.Of(sum) // prev and next
	}
}
