package tokens

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// The oracle is tiktoken-go, which runs the encodings' regular expressions
// with a backtracking engine and merges with tiktoken's own algorithm:
// slow (quadratic on long pieces) but a faithful port of OpenAI's code.
var oraclePatterns = map[string]string{
	O200kBase: strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"),
	Cl100kBase: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	P50kBase:   `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
	R50kBase:   `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
}

var (
	oracleMu sync.Mutex
	oracles  = map[string]*tiktoken.Tiktoken{}
)

func oracle(t testing.TB, encoding string) *tiktoken.Tiktoken {
	oracleMu.Lock()
	defer oracleMu.Unlock()
	if o, ok := oracles[encoding]; ok {
		return o
	}
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(encodings[encoding].file)
	if err != nil {
		t.Fatal(err)
	}
	core, err := tiktoken.NewCoreBPE(ranks, map[string]int{}, oraclePatterns[encoding])
	if err != nil {
		t.Fatal(err)
	}
	o := tiktoken.NewTiktoken(core, nil, map[string]any{})
	oracles[encoding] = o
	return o
}

var allEncodings = []string{O200kBase, Cl100kBase, P50kBase, R50kBase}

// TestOracleParity counts every fixture text with every encoding and
// compares with tiktoken-go.
func TestOracleParity(t *testing.T) {
	cases := loadFixture(t)
	for _, enc := range allEncodings {
		t.Run(enc, func(t *testing.T) {
			c, _ := NewTiktoken(enc)
			o := oracle(t, enc)
			bad := 0
			for i, fc := range cases {
				s := toValidUTF8(fc.text)
				if len(s) > 3000 {
					continue // the oracle is quadratic; TestTiktokenParity covers these
				}
				if got, want := c.CountTokens(s), len(o.EncodeOrdinary(s)); got != want {
					if bad++; bad <= 10 {
						t.Errorf("case %d (%s) %q: got %d, tiktoken-go %d", i, fc.Cat, show(s), got, want)
					}
				}
			}
		})
	}
}

// FuzzCountTokens asserts that recap's counter equals tiktoken-go's on
// every valid UTF-8 input, for every encoding.
func FuzzCountTokens(f *testing.F) {
	for _, s := range []string{"Hello, world!", "it's THEY'RE we'LL", "  \n\n\t x", "1234567 ١٢٣", "é\u0301a\u0300", "<|endoftext|>", "👩‍👩‍👧 🇫🇷", "a/b//c\r\n/", "ǅungla ʰi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 1000 {
			return
		}
		for _, enc := range allEncodings {
			c, _ := NewTiktoken(enc)
			if got, want := c.CountTokens(s), len(oracle(t, enc).EncodeOrdinary(s)); got != want {
				t.Fatalf("%s: CountTokens(%q) = %d, tiktoken-go says %d", enc, s, got, want)
			}
		}
	})
}

// TestLongInputsMatchOracle counts long single-piece texts, where the heap
// merge does the work, and compares with tiktoken-go (quadratic on them, so
// the texts are cut to 12 KB).
func TestLongInputsMatchOracle(t *testing.T) {
	c, _ := NewTiktoken(O200kBase)
	o := oracle(t, O200kBase)
	for name, s := range pathological() {
		s = s[:12_000]
		if got, want := c.CountTokens(s), len(o.EncodeOrdinary(s)); got != want {
			t.Errorf("%s: got %d tokens, tiktoken-go %d", name, got, want)
		}
	}
}
