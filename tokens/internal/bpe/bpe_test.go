package bpe

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testEncoder(t testing.TB) *Encoder {
	tab, err := Vocabulary("o200k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	return New(tab, O200k)
}

// FuzzMergeSmallEqualsHeap: the heap merge and tiktoken's rescanning merge
// give the same count on every piece either can take.
func FuzzMergeSmallEqualsHeap(f *testing.F) {
	for _, s := range []string{"aaaaaaaa", "hello world", "\xef\xbb\xbfusing", "Supercalifragilistic", "          "} {
		f.Add(s)
	}
	e := testEncoder(f)
	f.Fuzz(func(t *testing.T, p string) {
		if len(p) < 2 || len(p) > smallPiece {
			return
		}
		if a, b := e.mergeSmall(p), e.mergeHeap(p); a != b {
			t.Fatalf("piece %q: mergeSmall %d, mergeHeap %d", p, a, b)
		}
	})
}

func TestPieces(t *testing.T) {
	e := testEncoder(t)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"Words", "Hello world", []string{"Hello", " world"}},
		{"Contractions", "they're WE'LL it'ſ", []string{"they're", " WE'LL", " it'ſ"}},
		{"CamelCase", "HTTPServer fooBar", []string{"HTTPServer", " foo", "Bar"}},
		{"Digits", "1234567", []string{"123", "456", "7"}},
		{"PunctSlash", "a/b//\n", []string{"a", "/b", "//\n"}},
		{"SpacesBeforeWord", "a    b", []string{"a", "   ", " b"}},
		{"Newlines", "a \n\n  b", []string{"a", " \n\n", " ", " b"}},
		{"TrailingSpaces", "end   ", []string{"end", "   "}},
		{"MarkPrefix", "\u0301abc", []string{"\u0301abc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, e.Pieces(tt.in)); diff != "" {
				t.Errorf("Pieces(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if got := strings.Join(e.Pieces(tt.in), ""); got != tt.in {
				t.Errorf("pieces do not join back to the input: %q", got)
			}
		})
	}
}

func TestLongPieceAndConcurrency(t *testing.T) {
	e := testEncoder(t)
	// 50 KB of one letter is one piece, merged by the heap; its exact count
	// is checked against tiktoken-go in package tokens' tests.
	long := strings.Repeat("a", 50_000)
	if n := e.Count(long); n <= 0 || n >= len(long) {
		t.Fatalf("Count(50 KB of a) = %d", n)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				e.Count("concurrent use of the piece cache, with some unusual wordsxyz")
			}
		}()
	}
	wg.Wait()
}
