package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/recapgo/recap/tokens"
	"github.com/tiktoken-go/tokenizer"
)

// The comparison of package tokens with the two Go tokenizers most used,
// on the same texts in the same run: github.com/tiktoken-go/tokenizer
// (a regexp2 pattern compiled to Go code, vocabularies embedded) and
// github.com/pkoukk/tiktoken-go (regexp2 interpreted, tiktoken's
// rescanning merge; its offline loader's vocabularies). The root module
// cannot depend on the first, so the comparison lives here.
//
//	cd examples/startbench && go test -run '^$' -bench 'Encode|Count' -benchmem -count 5
//
// The texts are those of the token fixture (tokens/testdata/tokens) that
// are valid UTF-8: "fixture" is all of them (prose, code, JSON, CJK and
// other scripts, emoji, and long runs of one character, on which a
// rescanning merge is quadratic), "chat" the texts of up to 3,000 bytes of
// its prose, chat, code, JSON, CJK, scripts and emoji categories.

// fixturePath is the token fixture, from this module's directory in the
// repository.
var fixturePath = filepath.Join("..", "..", "tokens", "testdata", "tokens", "fixture.jsonl")

// corpora returns the benchmark's texts by name, and their size in bytes.
func corpora(b *testing.B) map[string][]string {
	f, err := os.Open(fixturePath)
	if err != nil {
		b.Skipf("no token fixture (%v): run in the repository", err)
	}
	defer f.Close()
	chat := map[string]bool{"prose": true, "chat": true, "code": true, "json": true, "cjk": true, "scripts": true, "emoji": true}
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct{ Cat, B64 string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			b.Fatal(err)
		}
		raw, err := base64.StdEncoding.DecodeString(line.B64)
		if err != nil {
			b.Fatal(err)
		}
		s := string(raw)
		if !utf8.ValidString(s) {
			continue
		}
		out["fixture"] = append(out["fixture"], s)
		if chat[line.Cat] && len(s) <= 3000 {
			out["chat"] = append(out["chat"], s)
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// peer is one tokenizer under comparison.
type peer struct {
	name   string
	encode func(string) []int
	count  func(string) int
}

func peers(b *testing.B) []peer {
	recap, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	// pkoukk/tiktoken-go's o200k_base, built as its GetEncoding builds it
	// but from the offline loader, without its global SetBpeLoader.
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken")
	if err != nil {
		b.Fatal(err)
	}
	core, err := tiktoken.NewCoreBPE(ranks, map[string]int{}, strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"))
	if err != nil {
		b.Fatal(err)
	}
	pk := tiktoken.NewTiktoken(core, nil, map[string]any{})
	return []peer{
		{"recap", recap.Encode, recap.CountTokens},
		{"tiktoken-go-tokenizer", func(s string) []int {
			ids, _, _ := codec.Encode(s)
			out := make([]int, len(ids))
			for i, id := range ids {
				out[i] = int(id)
			}
			return out
		}, func(s string) int { n, _ := codec.Count(s); return n }},
		{"pkoukk-tiktoken-go", pk.EncodeOrdinary, func(s string) int { return len(pk.EncodeOrdinary(s)) }},
	}
}

// agree logs on how many texts each peer's tokens differ from recap's.
func agree(b *testing.B, ps []peer, texts []string) {
	for _, p := range ps[1:] {
		differ := 0
		for _, s := range texts {
			want, got := ps[0].encode(s), p.encode(s)
			if len(want) != len(got) {
				differ++
				continue
			}
			for i := range want {
				if want[i] != got[i] {
					differ++
					break
				}
			}
		}
		b.Logf("%s: tokens differ from recap's on %d of %d texts", p.name, differ, len(texts))
	}
}

func size(texts []string) int {
	n := 0
	for _, s := range texts {
		n += len(s)
	}
	return n
}

// BenchmarkEncode encodes each corpus with each tokenizer: the token IDs of
// o200k_base, warm (each tokenizer has encoded the corpus once before).
func BenchmarkEncode(b *testing.B) {
	ps := peers(b)
	for _, name := range []string{"chat", "fixture"} {
		texts := corpora(b)[name]
		agree(b, ps, texts)
		for _, p := range ps {
			b.Run(name+"/"+p.name, func(b *testing.B) {
				for _, s := range texts {
					p.encode(s)
				}
				b.SetBytes(int64(size(texts)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for _, s := range texts {
						p.encode(s)
					}
				}
			})
		}
	}
}

// BenchmarkCount counts the tokens of each corpus with each tokenizer
// (pkoukk/tiktoken-go has no count: the length of its encoding).
func BenchmarkCount(b *testing.B) {
	ps := peers(b)
	for _, name := range []string{"chat", "fixture"} {
		texts := corpora(b)[name]
		for _, p := range ps {
			b.Run(name+"/"+p.name, func(b *testing.B) {
				for _, s := range texts {
					p.count(s)
				}
				b.SetBytes(int64(size(texts)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for _, s := range texts {
						p.count(s)
					}
				}
			})
		}
	}
}
