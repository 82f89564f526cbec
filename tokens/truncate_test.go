package tokens

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTiktokenTruncate(t *testing.T) {
	o200k, _ := NewTiktoken(O200kBase)
	cl100k, _ := NewTiktoken(Cl100kBase)
	tests := []struct {
		name   string
		t      *Tiktoken
		text   string
		n      int
		want   string
		reason string
	}{
		{"Zero", o200k, "Hello, world!", 0, "", "no tokens, no text"},
		{"Negative", o200k, "Hello, world!", -3, "", "no tokens, no text"},
		{"Empty", o200k, "", 5, "", "nothing to cut"},
		{"One", o200k, "Hello, world!", 1, "Hello", "the first token"},
		{"Three", o200k, "Hello, world!", 3, "Hello, world", "whole tokens: never ' wor'"},
		{"All", o200k, "Hello, world!", 4, "Hello, world!", "the text has 4 tokens"},
		{"More", o200k, "Hello, world!", 400, "Hello, world!", "n past the end"},
		{"MaxInt", o200k, "Hello, world!", math.MaxInt, "Hello, world!", "no room is made for n tokens"},
		{"SplitCharacter", cl100k, "a😀", 2, "a", "the emoji's two tokens split its bytes: the cut goes before it"},
		{"MergesOtherwise", o200k, "y'all I'M here", 3, "y'all", "the text of the first 3 tokens, \"y'all I'\", encodes into 4 (' I' and \"'\"), not a prefix of the text's"},
		{"LookAhead", cl100k, "[\n\t{\n\t\t\"a\": 1", 5, "[\n\t{\n\t", "the text of 5 tokens ends in \"\\t\\t\", which alone is one token, not the text's two"},
		{"InvalidUTF8", o200k, "a\xffb c", 2, "a\xff", "an invalid byte is a U+FFFD: the prefix holds the byte"},
		{"InvalidSequence", o200k, "a\xe2\x82 b", 2, "a\xe2\x82", "a maximal ill-formed subsequence is one U+FFFD: all of it or none"},
		{"InvalidInPlace", o200k, "\xf0\x9f\x98 b", 1, "\xf0\x9f\x98", "a 3-byte ill-formed subsequence reads as a 3-byte U+FFFD, in place"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.t.Truncate(tt.text, tt.n); got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q (%s)", tt.text, tt.n, got, tt.want, tt.reason)
			}
			checkTruncate(t, tt.t, tt.text, tt.n)
		})
	}
}

// checkTruncate checks the contract of t.Truncate(text, n): a prefix of
// text whose encoding is a prefix of text's of at most n tokens, ending at
// a character boundary; and the longest: for no larger k <= n does the
// text of the first k tokens encode to them.
func checkTruncate(tb testing.TB, t *Tiktoken, text string, n int) {
	tb.Helper()
	got := t.Truncate(text, n)
	ids, cut := t.Encode(text), t.Encode(got)
	if !strings.HasPrefix(text, got) {
		tb.Fatalf("%s: Truncate(%q, %d) = %q, not a prefix", t.Encoding(), text, n, got)
	}
	if len(cut) > max(n, 0) || len(cut) > len(ids) || !equal(cut, ids[:len(cut)]) {
		tb.Fatalf("%s: Truncate(%q, %d) = %q encodes to %v, not a prefix of at most %d of %v", t.Encoding(), text, n, got, cut, n, ids)
	}
	if utf8.ValidString(text) && !utf8.ValidString(got) {
		tb.Fatalf("%s: Truncate(%q, %d) = %q ends inside a character", t.Encoding(), text, n, got)
	}
	if len(ids) <= n && got != text {
		tb.Fatalf("%s: Truncate(%q, %d) = %q, but the text has %d tokens", t.Encoding(), text, n, got, len(ids))
	}
	for k := len(cut) + 1; k <= min(n, len(ids)); k++ {
		p, err := t.Decode(ids[:k])
		if err != nil {
			tb.Fatal(err)
		}
		if utf8.ValidString(p) && equal(t.Encode(p), ids[:k]) {
			tb.Fatalf("%s: Truncate(%q, %d) = %q (%d tokens), but %q, of %d, encodes to a prefix of the text's", t.Encoding(), text, n, got, len(cut), p, k)
		}
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTruncateFixture checks Truncate's contract on every fixture text, for
// every encoding and for gpt-tokenizer's, at several n.
func TestTruncateFixture(t *testing.T) {
	var tks []*Tiktoken
	for _, enc := range allEncodings {
		c, _ := NewTiktoken(enc)
		tks = append(tks, c)
	}
	js, _ := NewGPTTokenizer(O200kBase)
	tks = append(tks, js)
	cases := loadFixture(t)
	for _, c := range tks {
		for _, fc := range cases {
			total := c.CountTokens(fc.text)
			for _, n := range []int{1, 2, 3, 7, total / 2, total - 1, total} {
				checkTruncate(t, c, fc.text, n)
			}
		}
	}
}

// TestTruncateCounter: the package's Truncate uses a Tiktoken's own, and
// bisects any other counter's counts.
func TestTruncateCounter(t *testing.T) {
	o200k, _ := NewTiktoken(O200kBase)
	words := CounterFunc(func(s string) int { return len(strings.Fields(s)) })
	tests := []struct {
		name   string
		c      Counter
		text   string
		n      int
		want   string
		reason string
	}{
		{"Tiktoken", o200k, "y'all I'M here", 3, "y'all", "a Tiktoken truncates at a token boundary"},
		{"Words", words, "one two three four", 2, "one two ", "the longest prefix of at most 2 words"},
		{"WordsAll", words, "one two", 2, "one two", "the whole text fits"},
		{"WordsNone", words, "one two", 0, "", "no room"},
		{"WordsMaxInt", words, "one two", math.MaxInt, "one two", "no room is made for n tokens"},
		{"Characters", CounterFunc(func(s string) int { return utf8.RuneCountInString(s) }), "héllo", 2, "hé", "a character boundary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Truncate(tt.c, tt.text, tt.n); got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q (%s)", tt.text, tt.n, got, tt.want, tt.reason)
			}
		})
	}
}

// FuzzTruncate: on any bytes and for every encoding (and gpt-tokenizer's),
// Encode has CountTokens tokens and decodes to the text as read (invalid
// UTF-8 as U+FFFD), and Truncate keeps its contract.
func FuzzTruncate(f *testing.F) {
	for _, s := range []string{"Hello, world!", "y'all I'm here", "[\n\t{\n\t\t\"a\": 1", "a😀b", "a\xffb\xe2\x82 c", "\ufeff\ufeffx  \n\n  y", "<|endoftext|>", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		f.Add(s, uint16(3))
	}
	var tks []*Tiktoken
	for _, enc := range allEncodings {
		c, _ := NewTiktoken(enc)
		g, _ := NewGPTTokenizer(enc)
		tks = append(tks, c, g)
	}
	f.Fuzz(func(t *testing.T, s string, n uint16) {
		if len(s) > 2000 {
			return
		}
		for _, c := range tks {
			ids := c.Encode(s)
			if len(ids) != c.CountTokens(s) {
				t.Fatalf("%s: Encode(%q) has %d tokens, CountTokens %d", c.Encoding(), s, len(ids), c.CountTokens(s))
			}
			text, err := c.Decode(ids)
			if err != nil || text != toValidUTF8(s) && !(c.js && strings.Contains(s, "\uFEFF")) {
				t.Fatalf("%s: Decode(Encode(%q)) = %q, %v", c.Encoding(), s, text, err)
			}
			checkTruncate(t, c, s, int(n)%(len(ids)+2))
		}
	})
}
