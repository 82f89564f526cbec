package tokens

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// benchCorpus is the fixture's texts as JavaScript sees them: a fixed
// multi-language corpus (prose, code, JSON, CJK, scripts, emoji, ...).
func benchCorpus(b *testing.B) []string {
	var texts []string
	for _, fc := range loadFixture(b) {
		texts = append(texts, toValidUTF8(fc.text))
	}
	return texts
}

// chatCorpus is the texts of up to 3,000 bytes of the fixture's prose,
// chat, code, JSON, CJK, scripts and emoji: chat messages, without the
// fixture's long runs of one character (as examples/startbench's "chat").
func chatCorpus(b *testing.B) []string {
	var texts []string
	for _, fc := range loadFixture(b) {
		switch fc.Cat {
		case "prose", "chat", "code", "json", "cjk", "scripts", "emoji":
			if len(fc.text) <= 3000 {
				texts = append(texts, fc.text) // valid UTF-8 in these categories
			}
		}
	}
	return texts
}

// BenchmarkEncode measures encoding throughput on the corpora, with the
// piece cache warm and cold (emptied before each pass), beside tiktoken-go
// (examples/startbench compares with github.com/tiktoken-go/tokenizer too).
func BenchmarkEncode(b *testing.B) {
	for _, corpus := range []struct {
		name  string
		texts []string
	}{{"chat", chatCorpus(b)}, {"fixture", benchCorpus(b)}} {
		texts := corpus.texts
		size := 0
		for _, s := range texts {
			size += len(s)
		}
		c, _ := NewTiktoken(O200kBase)
		for _, mode := range []string{"warm", "cold", "tiktoken-go"} {
			b.Run(corpus.name+"/"+mode, func(b *testing.B) {
				o := oracle(b, O200kBase)
				encode := c.Encode
				if mode == "tiktoken-go" {
					encode = o.EncodeOrdinary
				}
				for _, s := range texts {
					encode(s)
				}
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if mode == "cold" {
						c.enc.ResetCache()
					}
					for _, s := range texts {
						encode(s)
					}
				}
			})
		}
	}
}

// BenchmarkCountTokens measures counting throughput on the corpus; compare
// with gpt-tokenizer by running testdata/tokens/bench.sh.
func BenchmarkCountTokens(b *testing.B) {
	texts := benchCorpus(b)
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	for _, enc := range []string{O200kBase, Cl100kBase} {
		b.Run(enc, func(b *testing.B) {
			c, _ := NewTiktoken(enc)
			c.CountTokens("warm up") // load the vocabulary outside the timer
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			tokens := 0
			for i := 0; i < b.N; i++ {
				for _, s := range texts {
					tokens += c.CountTokens(s)
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkCountTokensColdCache is BenchmarkCountTokens with the piece
// cache emptied before each pass over the corpus.
func BenchmarkCountTokensColdCache(b *testing.B) {
	texts := benchCorpus(b)
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	c, _ := NewTiktoken(O200kBase)
	enc := c.enc
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		enc.ResetCache()
		for _, s := range texts {
			c.CountTokens(s)
		}
	}
}

// BenchmarkCountTokensOracle is tiktoken-go on the same corpus, for
// comparison.
func BenchmarkCountTokensOracle(b *testing.B) {
	texts := benchCorpus(b)
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	o := oracle(b, O200kBase)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range texts {
			o.EncodeOrdinary(s)
		}
	}
}

// BenchmarkColdStart measures loading a vocabulary and the first count.
func BenchmarkColdStart(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		spec := &encodingSpec{file: "o200k_base.tiktoken", pattern: encodings[O200kBase].pattern}
		enc, err := spec.load()
		if err != nil {
			b.Fatal(err)
		}
		c := &Tiktoken{name: O200kBase, enc: enc, ranks: spec.ranks}
		if c.CountTokens("Hello, world!") != 4 {
			b.Fatal("wrong count")
		}
	}
}

// pathological returns 50 KB texts that are one long pre-token each, on
// which regex-and-rescan tokenizers are quadratic.
func pathological() map[string]string {
	r := rand.New(rand.NewSource(1))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var sb strings.Builder
	for sb.Len() < 50_000 {
		sb.WriteByte(b64[r.Intn(len(b64))])
	}
	return map[string]string{
		"letter": strings.Repeat("a", 50_000),
		"spaces": strings.Repeat(" ", 50_000),
		"base64": sb.String(),
		"digits": strings.Repeat("7", 50_000),
		"punct":  strings.Repeat("!", 50_000),
	}
}

func BenchmarkPathological(b *testing.B) {
	c, _ := NewTiktoken(O200kBase)
	c.CountTokens("warm up")
	for _, name := range []string{"letter", "spaces", "base64", "digits", "punct"} {
		s := pathological()[name]
		b.Run(fmt.Sprintf("%s-50KB", name), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.CountTokens(s)
			}
		})
	}
}
