package tokens

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/recapgo/recap/tokens/internal/bpe"
)

// Encodings that [NewTiktoken] accepts. Their vocabularies are
// embedded in the binary, as rank tables generated from the .tiktoken files
// of github.com/pkoukk/tiktoken-go-loader: this package never downloads
// or caches a BPE file.
const (
	O200kBase  = "o200k_base"  // GPT-4o, GPT-4.1, GPT-5, o-series
	Cl100kBase = "cl100k_base" // GPT-4, GPT-3.5, text-embedding-3
	P50kBase   = "p50k_base"   // Codex, text-davinci-002/003
	R50kBase   = "r50k_base"   // GPT-3 (davinci, curie, ...)
)

// ErrUnknownEncoding is matched by the errors of [NewTiktoken] and
// [TiktokenForModel] for a name it has no vocabulary for.
var ErrUnknownEncoding = errors.New("tokens: unknown encoding")

// encodingSpec is what builds one encoding.
type encodingSpec struct {
	file    string      // the .tiktoken file its rank table is generated from
	pattern bpe.Pattern // its pre-tokenizer

	once  sync.Once    // guards ranks, enc and err
	ranks *bpe.Table   // the vocabulary, read in place on first use
	enc   *bpe.Encoder // tiktoken's encoder
	err   error

	jsOnce sync.Once    // guards js
	js     *bpe.Encoder // gpt-tokenizer's encoder, built on first use
}

// The encoders are built lazily, once per process; after that they are
// immutable and shared. Building one costs a microsecond or so: the rank
// tables are read in place from the binary, whose pages the first counts
// bring in.
var encodings = map[string]*encodingSpec{
	O200kBase:  {file: "o200k_base.tiktoken", pattern: bpe.O200k},
	Cl100kBase: {file: "cl100k_base.tiktoken", pattern: bpe.Cl100k},
	P50kBase:   {file: "p50k_base.tiktoken", pattern: bpe.R50k},
	R50kBase:   {file: "r50k_base.tiktoken", pattern: bpe.R50k},
}

// load builds the encoder on first use, from the rank table embedded in the
// binary (internal/bpe generates it from tiktoken-go-loader's file, and
// tests that it holds exactly the loader's ranks). It never calls
// tiktoken-go's global SetBpeLoader or GetEncoding, and never downloads or
// caches a file.
func (e *encodingSpec) load() (*bpe.Encoder, error) {
	e.once.Do(func() {
		ranks, err := bpe.Vocabulary(e.file)
		if err != nil {
			e.err = fmt.Errorf("tokens: load %s: %w", e.file, err)
			return
		}
		e.ranks, e.enc = ranks, bpe.New(ranks, e.pattern)
	})
	return e.enc, e.err
}

// loadJS builds the gpt-tokenizer encoder on first use, on the same ranks.
func (e *encodingSpec) loadJS() (*bpe.Encoder, error) {
	if _, err := e.load(); err != nil {
		return nil, err
	}
	e.jsOnce.Do(func() { e.js = bpe.NewJS(e.ranks, e.pattern) })
	return e.js, nil
}

// Tiktoken counts tokens exactly as OpenAI's tiktoken does for one
// encoding. Text that looks like a special token, such as "<|endoftext|>",
// is counted as ordinary text, and invalid UTF-8 is first decoded the way a
// browser or Node.js decodes it: each maximal ill-formed subsequence becomes
// one U+FFFD.
//
// A Tiktoken is safe for concurrent use by multiple goroutines. Its
// vocabulary is built on first use and shared by all counters of the same
// encoding in the process.
type Tiktoken struct {
	name string
	spec *encodingSpec
	js   bool // count as gpt-tokenizer does (NewGPTTokenizer)
}

// NewTiktoken returns a counter for the named encoding, one of
// [O200kBase], [Cl100kBase], [P50kBase] or [R50kBase]. An unknown name is
// an error matching [ErrUnknownEncoding]. The vocabulary is loaded on the
// first count, not here.
func NewTiktoken(encoding string) (*Tiktoken, error) {
	spec, ok := encodings[encoding]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownEncoding, encoding)
	}
	return &Tiktoken{name: encoding, spec: spec}, nil
}

// NewGPTTokenizer returns a counter that reproduces, token for
// token, the counts of gpt-tokenizer 4 (the JavaScript library, with
// disallowedSpecial empty) for the named encoding: for a backend that must
// agree exactly with a JavaScript client using it, such as the seed's. It
// differs from OpenAI's tiktoken, and so from [NewTiktoken], only on
// text with U+FEFF or U+0085: gpt-tokenizer's patterns use JavaScript's \s,
// which takes U+FEFF for white space and U+0085 for punctuation, and its
// merges never form a token that starts with U+FEFF. Contractions with the
// long s ('ſ) differ too. Prefer NewTiktoken, which counts what the
// model is billed for.
func NewGPTTokenizer(encoding string) (*Tiktoken, error) {
	c, err := NewTiktoken(encoding)
	if err != nil {
		return nil, err
	}
	c.js = true
	return c, nil
}

// o200k returns the o200k_base counter.
func o200k() *Tiktoken {
	c, _ := NewTiktoken(O200kBase) // a known encoding: cannot fail
	return c
}

// Encoding returns the name of c's encoding.
func (c *Tiktoken) Encoding() string { return c.name }

// CountTokens returns the number of tokens of text. The embedded
// vocabularies are tested to load; should one ever fail to, CountTokens
// returns len(text), an upper bound of any byte-level BPE count, so that
// a caller such as recap summarizes early rather than overflow a context.
func (c *Tiktoken) CountTokens(text string) int {
	if text == "" {
		return 0
	}
	load := c.spec.load
	if c.js {
		load = c.spec.loadJS
	}
	enc, err := load()
	if err != nil {
		return len(text)
	}
	return enc.Count(toValidUTF8(text))
}

// modelPrefixes maps model name prefixes to encodings, longest first
// where one prefix extends another.
var modelPrefixes = []struct{ prefix, encoding string }{
	{"gpt-4o", O200kBase},
	{"chatgpt-4o", O200kBase},
	{"gpt-4.1", O200kBase},
	{"gpt-4.5", O200kBase},
	{"gpt-5", O200kBase},
	{"gpt-oss", O200kBase},
	{"o1", O200kBase},
	{"o3", O200kBase},
	{"o4", O200kBase},
	{"gpt-4", Cl100kBase},
	{"gpt-3.5", Cl100kBase},
	{"gpt-35", Cl100kBase},
	{"text-embedding-", Cl100kBase},
	{"text-davinci-003", P50kBase},
	{"text-davinci-002", P50kBase},
	{"code-", P50kBase},
	{"text-davinci-001", R50kBase},
	{"text-curie", R50kBase},
	{"text-babbage", R50kBase},
	{"text-ada", R50kBase},
	{"davinci", R50kBase},
	{"curie", R50kBase},
	{"babbage", R50kBase},
	{"ada", R50kBase},
}

// TiktokenForModel returns the counter for an OpenAI model name such as
// "gpt-4o", "gpt-4.1-mini", "o3" or "gpt-3.5-turbo", or for an encoding
// name. An unknown model is an error matching [ErrUnknownEncoding].
func TiktokenForModel(model string) (*Tiktoken, error) {
	if _, ok := encodings[model]; ok {
		return NewTiktoken(model)
	}
	for _, p := range modelPrefixes {
		if strings.HasPrefix(model, p.prefix) {
			return NewTiktoken(p.encoding)
		}
	}
	return nil, fmt.Errorf("%w for model %q", ErrUnknownEncoding, model)
}

// toValidUTF8 replaces each maximal subpart of an ill-formed UTF-8 sequence
// in s by one U+FFFD, as the WHATWG Encoding Standard's UTF-8 decoder does
// (JavaScript's TextDecoder, Node's Buffer.toString). Go's []rune(s) instead
// makes one U+FFFD per invalid byte, which changes token counts.
func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		// Invalid at i: consume the lead byte and as many following bytes
		// as still form a prefix of a well-formed sequence.
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c == 0xE0:
			need, lo = 2, 0xA0
		case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
			need = 2
		case c == 0xED:
			need, hi = 2, 0x9F
		case c == 0xF0:
			need, lo = 3, 0x90
		case c >= 0xF1 && c <= 0xF3:
			need = 3
		case c == 0xF4:
			need, hi = 3, 0x8F
		}
		i++
		for ; need > 0 && i < len(s) && s[i] >= lo && s[i] <= hi; need-- {
			i++
			lo, hi = 0x80, 0xBF
		}
		b.WriteRune(utf8.RuneError)
	}
	return b.String()
}
