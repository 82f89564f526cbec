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
// give the same tokens on every piece either can take, and as many as
// they count.
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
		var small, heap []int
		var buf [smallPiece + 1]part
		parts := e.smallParts(p, &buf)
		for _, pt := range parts[:len(parts)-1] {
			small = append(small, int(pt.tok))
		}
		mb := new(mergeBuf)
		if n := e.heapMerge(p, mb); n != len(small) {
			t.Fatalf("piece %q: heapMerge %d tokens, smallParts %d", p, n, len(small))
		}
		for i := int32(0); i < int32(len(p)); i = mb.next[i] {
			heap = append(heap, int(mb.tok[i]))
		}
		if diff := cmp.Diff(small, heap); diff != "" {
			t.Fatalf("piece %q: tokens mismatch (-smallParts +heapMerge):\n%s", p, diff)
		}
	})
}

// TestEncode: Encode gives as many tokens as Count, which spell the text,
// for short and long pieces, and Truncate cuts at a token boundary.
func TestEncode(t *testing.T) {
	e := testEncoder(t)
	for _, s := range []string{"", "Hello, world!", strings.Repeat("a", 10_000), "Supercalifragilisticexpialidocious" + strings.Repeat("!", 200), "日本語のテキスト 😀"} {
		ids := e.Encode(nil, s)
		if len(ids) != e.Count(s) {
			t.Errorf("%.20q: %d tokens, Count %d", s, len(ids), e.Count(s))
		}
		var b strings.Builder
		for _, id := range ids {
			tok, ok := e.ranks.Token(id)
			if !ok {
				t.Fatalf("%.20q: token %d has no bytes", s, id)
			}
			b.WriteString(tok)
		}
		if b.String() != s {
			t.Errorf("%.20q: the tokens spell %.20q", s, b.String())
		}
		for _, n := range []int{0, 1, len(ids) / 2, len(ids)} {
			c := e.Truncate(s, n)
			if got := e.Encode(nil, s[:c]); len(got) > n || len(got) > 0 && !cmp.Equal(got, ids[:len(got)]) {
				t.Errorf("%.20q: Truncate(%d) = %d bytes, encoding to %d tokens that do not begin the text's", s, n, c, len(got))
			}
		}
	}
}

// TestByteRanks: every byte is a token of every vocabulary, so that a merge
// starts from tokens.
func TestByteRanks(t *testing.T) {
	for _, file := range []string{"o200k_base.tiktoken", "cl100k_base.tiktoken", "p50k_base.tiktoken", "r50k_base.tiktoken", "claude.tiktoken"} {
		tab, err := Vocabulary(file)
		if err != nil {
			t.Fatal(err)
		}
		e := New(tab, R50k)
		for b, r := range e.byteRanks() {
			if r == noRank {
				t.Errorf("%s: byte %#x is no token", file, b)
			}
		}
	}
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
	const text = "concurrent use of the piece cache, with some unusual wordsxyz qwzjx"
	want := e.Encode(nil, text)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				if j%50 == 0 {
					e.ResetCache()
				}
				e.Count(text)
				if got := e.Encode(nil, text); !cmp.Equal(got, want) {
					t.Errorf("Encode = %v, want %v", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
