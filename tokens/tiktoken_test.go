package tokens

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureCase is one line of testdata/tokens/fixture.jsonl, made by
// testdata/tokens/gen.mjs from OpenAI's tiktoken and from gpt-tokenizer.
type fixtureCase struct {
	Cat       string `json:"cat"`
	B64       string `json:"b64"`
	O200k     int    `json:"o200k"`
	O200kGPT  int    `json:"o200k_gpt"`
	Cl100k    int    `json:"cl100k"`
	Cl100kGPT int    `json:"cl100k_gpt"`
	text      string // the raw bytes, possibly invalid UTF-8
}

func loadFixture(t testing.TB) []fixtureCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "tokens", "fixture.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []fixtureCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c fixtureCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		b, err := base64.StdEncoding.DecodeString(c.B64)
		if err != nil {
			t.Fatal(err)
		}
		c.text = string(b)
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 2000 {
		t.Fatalf("fixture has %d texts, want at least 2000", len(cases))
	}
	return cases
}

func show(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return strings.ToValidUTF8(s, "\\x??")
}

// TestTiktokenParity counts every fixture text and asserts zero mismatches
// with OpenAI's tiktoken, for o200k_base and cl100k_base.
func TestTiktokenParity(t *testing.T) {
	cases := loadFixture(t)
	for _, enc := range []struct {
		name string
		want func(fixtureCase) int
	}{
		{O200kBase, func(c fixtureCase) int { return c.O200k }},
		{Cl100kBase, func(c fixtureCase) int { return c.Cl100k }},
	} {
		t.Run(enc.name, func(t *testing.T) {
			c, err := NewTiktoken(enc.name)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, fc := range cases {
				if got, want := c.CountTokens(fc.text), enc.want(fc); got != want {
					bad++
					if bad <= 20 {
						t.Errorf("case %d (%s) %q: got %d tokens, tiktoken %d", i, fc.Cat, show(fc.text), got, want)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d texts mismatch", bad, len(cases))
			}
		})
	}
}

// TestGPTTokenizerParity asserts that the compatibility counter counts
// every fixture text as gpt-tokenizer does.
func TestGPTTokenizerParity(t *testing.T) {
	cases := loadFixture(t)
	for _, enc := range []struct {
		name string
		want func(fixtureCase) int
	}{
		{O200kBase, func(c fixtureCase) int { return c.O200kGPT }},
		{Cl100kBase, func(c fixtureCase) int { return c.Cl100kGPT }},
	} {
		t.Run(enc.name, func(t *testing.T) {
			c, err := NewGPTTokenizer(enc.name)
			if err != nil {
				t.Fatal(err)
			}
			bad, differ := 0, 0
			for i, fc := range cases {
				want := enc.want(fc)
				if got := c.CountTokens(fc.text); got != want {
					if bad++; bad <= 20 {
						t.Errorf("case %d (%s) %q: got %d tokens, gpt-tokenizer %d", i, fc.Cat, show(fc.text), got, want)
					}
				}
				if fc.O200k != fc.O200kGPT {
					differ++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d texts mismatch", bad, len(cases))
			}
			if differ < 50 {
				t.Errorf("only %d fixture texts tell gpt-tokenizer from tiktoken; the fixture must exercise the differences", differ)
			}
		})
	}
}

// TestGPTTokenizerDifferences pins down where gpt-tokenizer (the seed's
// counter) and tiktoken differ: only in texts with U+FEFF or U+0085.
func TestGPTTokenizerDifferences(t *testing.T) {
	for i, fc := range loadFixture(t) {
		if fc.O200k == fc.O200kGPT && fc.Cl100k == fc.Cl100kGPT {
			continue
		}
		s := toValidUTF8(fc.text)
		if !strings.ContainsAny(s, "\uFEFF\u0085") {
			t.Errorf("case %d (%s) %q: gpt-tokenizer differs from tiktoken without U+FEFF or U+0085", i, fc.Cat, show(s))
		}
	}
}

func TestTiktokenForModel(t *testing.T) {
	tests := []struct {
		model, want string
	}{
		{"gpt-4o", O200kBase},
		{"gpt-4o-mini-2024-07-18", O200kBase},
		{"chatgpt-4o-latest", O200kBase},
		{"gpt-4.1-nano", O200kBase},
		{"gpt-4.5-preview", O200kBase},
		{"gpt-5", O200kBase},
		{"o1-mini", O200kBase},
		{"o3", O200kBase},
		{"o4-mini", O200kBase},
		{"gpt-4", Cl100kBase},
		{"gpt-4-turbo", Cl100kBase},
		{"gpt-4-0314", Cl100kBase},
		{"gpt-3.5-turbo-0125", Cl100kBase},
		{"gpt-35-turbo", Cl100kBase},
		{"text-embedding-3-small", Cl100kBase},
		{"text-davinci-003", P50kBase},
		{"code-davinci-002", P50kBase},
		{"davinci", R50kBase},
		{"cl100k_base", Cl100kBase},
		{"o200k_base", O200kBase},
	}
	for _, tt := range tests {
		c, err := TiktokenForModel(tt.model)
		if err != nil || c.Encoding() != tt.want {
			t.Errorf("TiktokenForModel(%q) = %v, %v; want %s", tt.model, c, err, tt.want)
		}
	}
	for _, bad := range []string{"", "llama-3", "claude-3-opus", "GPT-4O"} {
		if _, err := TiktokenForModel(bad); !errors.Is(err, ErrUnknownEncoding) {
			t.Errorf("TiktokenForModel(%q) error = %v, want ErrUnknownEncoding", bad, err)
		}
	}
	if _, err := NewTiktoken("o300k_base"); !errors.Is(err, ErrUnknownEncoding) {
		t.Errorf("NewTiktoken(unknown) error = %v, want ErrUnknownEncoding", err)
	}
	if _, err := NewGPTTokenizer("nope"); !errors.Is(err, ErrUnknownEncoding) {
		t.Errorf("NewGPTTokenizer(unknown) error = %v, want ErrUnknownEncoding", err)
	}
}

// FuzzCountTokensAnyBytes: any bytes at all, invalid UTF-8 and special
// token text included, are counted without a panic, the same way twice,
// and with at least one and at most one token per byte of the text as a
// JavaScript client decodes it.
func FuzzCountTokensAnyBytes(f *testing.F) {
	for _, s := range []string{"", "\xff\xfe", "<|endoftext|><|im_start|>", "a\xe2\x82b", "\xef\xbb\xbf\xc2\x85"} {
		f.Add(s)
	}
	counters := []*Tiktoken{}
	for _, enc := range allEncodings {
		c, _ := NewTiktoken(enc)
		g, _ := NewGPTTokenizer(enc)
		counters = append(counters, c, g)
	}
	f.Fuzz(func(t *testing.T, s string) {
		js := toValidUTF8(s)
		for _, c := range counters {
			n := c.CountTokens(s)
			if n != c.CountTokens(s) {
				t.Fatalf("%s: two counts of %q differ", c.Encoding(), s)
			}
			if (s == "") != (n == 0) || n > len(js) {
				t.Fatalf("%s: CountTokens(%q) = %d", c.Encoding(), s, n)
			}
		}
	})
}
