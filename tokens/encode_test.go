package tokens

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// tiktokenIDs reads testdata/tokens/ids.jsonl (see gen_ids.mjs): for each
// fixture text, the digest of the token IDs that OpenAI's tiktoken gives
// it, by encoding.
func tiktokenIDs(t *testing.T) []map[string]string {
	var out []map[string]string
	readLines(t, "testdata/tokens/ids.jsonl", func(line []byte) {
		var m map[string]string
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	})
	return out
}

// idsDigest is gen_ids.mjs's digest of a list of token IDs.
func idsDigest(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	sum := sha256.Sum256([]byte(strings.Join(s, ",")))
	return hex.EncodeToString(sum[:8])
}

// fixtureKeys are the keys of the encodings in ids.jsonl.
var fixtureKeys = map[string]string{O200kBase: "o200k", Cl100kBase: "cl100k", P50kBase: "p50k", R50kBase: "r50k"}

// TestEncodeParity encodes every fixture text with every encoding and
// asserts that the token IDs are OpenAI's tiktoken's, and that they decode
// to the text.
func TestEncodeParity(t *testing.T) {
	cases, ids := loadFixture(t), tiktokenIDs(t)
	if len(ids) != len(cases) {
		t.Fatalf("%d digests for %d texts: run gen_ids.mjs", len(ids), len(cases))
	}
	for _, enc := range allEncodings {
		t.Run(enc, func(t *testing.T) {
			c, err := NewTiktoken(enc)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, fc := range cases {
				got := c.Encode(fc.text)
				if d := idsDigest(got); d != ids[i][fixtureKeys[enc]] {
					if bad++; bad <= 10 {
						t.Errorf("case %d (%s) %q: tokens %v are not tiktoken's", i, fc.Cat, show(fc.text), got)
					}
				}
				if text, err := c.Decode(got); err != nil || text != toValidUTF8(fc.text) {
					if bad++; bad <= 10 {
						t.Errorf("case %d (%s) %q: Decode(Encode) = %q, %v", i, fc.Cat, show(fc.text), show(text), err)
					}
				}
				if len(got) != c.CountTokens(fc.text) {
					t.Errorf("case %d (%s): %d tokens, CountTokens %d", i, fc.Cat, len(got), c.CountTokens(fc.text))
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d texts mismatch", bad, len(cases))
			}
		})
	}
}

// TestEncodeOracleParity compares both ways with tiktoken-go's
// EncodeOrdinary on every fixture text of up to 3,000 bytes (the oracle is
// quadratic on long pieces): Encode gives the oracle's IDs, and the
// oracle's IDs decode to the text. Where the oracle's IDs are not OpenAI's
// tiktoken's (its regular expressions fold the case of 'ſ otherwise: one
// text of the fixture, whose count they get right), Encode gives
// tiktoken's, which TestEncodeParity checks.
func TestEncodeOracleParity(t *testing.T) {
	cases, ids := loadFixture(t), tiktokenIDs(t)
	for _, enc := range allEncodings {
		t.Run(enc, func(t *testing.T) {
			c, err := NewTiktoken(enc)
			if err != nil {
				t.Fatal(err)
			}
			o := oracle(t, enc)
			bad, compared, oracleWrong := 0, 0, 0
			for i, fc := range cases {
				s := toValidUTF8(fc.text)
				if len(s) > 3000 {
					continue
				}
				compared++
				want, got := o.EncodeOrdinary(s), c.Encode(s)
				if text, err := c.Decode(want); err != nil || text != s {
					if bad++; bad <= 10 {
						t.Errorf("case %d (%s) %q: Decode(tiktoken-go's tokens) = %q, %v", i, fc.Cat, show(s), show(text), err)
					}
				}
				if idsDigest(want) != ids[i][fixtureKeys[enc]] {
					oracleWrong++
					t.Logf("case %d (%s) %q: tiktoken-go's tokens are not tiktoken's (tiktoken-go %v, recap %v)", i, fc.Cat, show(s), want, got)
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					if bad++; bad <= 10 {
						t.Errorf("case %d (%s) %q: Encode mismatch (-tiktoken-go +recap):\n%s", i, fc.Cat, show(s), diff)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d mismatches", bad)
			}
			if compared < 2000 || oracleWrong > 2 {
				t.Errorf("%d texts compared with the oracle, %d on which it is not tiktoken", compared, oracleWrong)
			}
		})
	}
}

// TestEncodeGPTTokenizer: the gpt-tokenizer tokenizer encodes to as many
// tokens as it counts, and decodes back to the text where the text has no
// U+FEFF.
func TestEncodeGPTTokenizer(t *testing.T) {
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, err := NewGPTTokenizer(enc)
		if err != nil {
			t.Fatal(err)
		}
		for i, fc := range loadFixture(t) {
			s := toValidUTF8(fc.text)
			ids := c.Encode(fc.text)
			if len(ids) != c.CountTokens(fc.text) {
				t.Errorf("%s, case %d: %d tokens, CountTokens %d", enc, i, len(ids), c.CountTokens(fc.text))
			}
			if text, err := c.Decode(ids); err != nil || text != s && !strings.Contains(s, "\uFEFF") {
				t.Errorf("%s, case %d %q: Decode(Encode) = %q, %v", enc, i, show(s), show(text), err)
			}
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	o200k, _ := NewTiktoken(O200kBase)
	cl100k, _ := NewTiktoken(Cl100kBase)
	r50k, _ := NewTiktoken(R50kBase)
	tests := []struct {
		name   string
		t      *Tiktoken
		text   string
		want   []int
		reason string
	}{
		{"Empty", o200k, "", nil, "no text, no tokens"},
		{"Hello", o200k, "Hello, world!", []int{13225, 11, 2375, 0}, "tiktoken's IDs"},
		{"HelloCl100k", cl100k, "Hello, world!", []int{9906, 11, 1917, 0}, "each encoding its own IDs"},
		{"SpecialIsText", cl100k, "<|endoftext|>", []int{27, 91, 8862, 728, 428, 91, 29}, "a special token's text is ordinary text, not 100257"},
		{"InvalidUTF8", o200k, "a\xffb", []int{64, 3251, 65}, "an invalid byte reads as U+FFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.t.Encode(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Encode(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
			if text, err := tt.t.Decode(got); err != nil || text != toValidUTF8(tt.text) {
				t.Errorf("Decode(Encode(%q)) = %q, %v (%s)", tt.text, text, err, tt.reason)
			}
		})
	}
	for _, bad := range []struct {
		t  *Tiktoken
		id int
	}{{o200k, -1}, {o200k, 199998}, {o200k, 1 << 40}, {cl100k, 100257}, {r50k, 50256}, {r50k, 50260}} {
		if _, err := bad.t.Decode([]int{11, bad.id}); !errors.Is(err, ErrUnknownToken) {
			t.Errorf("%s: Decode(%d) error = %v, want ErrUnknownToken", bad.t.Encoding(), bad.id, err)
		}
	}
}

// FuzzEncode asserts that Encode gives tiktoken-go's token IDs on every
// valid UTF-8 input, for every encoding, and that those decode to the
// input; but for inputs with the long s (ſ), where tiktoken-go's regular
// expressions, which do not fold 'ſ to 's as tiktoken's do, split
// otherwise (see TestEncodeOracleParity).
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"Hello, world!", "it's THEY'RE we'LL", "  \n\n\t x", "1234567 ١٢٣", "é\u0301a\u0300", "<|endoftext|>", "👩‍👩‍👧 🇫🇷", "a/b//c\r\n/", "ǅungla ʰi", "y'all I'M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 1000 || strings.ContainsRune(s, 'ſ') {
			return
		}
		for _, enc := range allEncodings {
			c, _ := NewTiktoken(enc)
			want := oracle(t, enc).EncodeOrdinary(s)
			if got := c.Encode(s); !equal(got, want) {
				t.Fatalf("%s: Encode(%q) = %v, tiktoken-go says %v", enc, s, got, want)
			}
			if text, err := c.Decode(want); err != nil || text != s {
				t.Fatalf("%s: Decode(tiktoken-go's tokens of %q) = %q, %v", enc, s, text, err)
			}
		}
	})
}
