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
	enc, _ := c.spec.load()
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
		c := &Tiktoken{name: O200kBase, spec: spec}
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
