package recap

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/recapgo/recap/internal/bpe"
)

// TokenCounter counts the tokens of a text. Implementations must be safe for
// concurrent use, must not panic on any input (invalid UTF-8 included) and
// must return the same count for the same text.
type TokenCounter interface {
	CountTokens(text string) int
}

// The TokenCounterFunc type is an adapter to allow the use of ordinary
// functions as a TokenCounter.
type TokenCounterFunc func(text string) int

// CountTokens returns f(text).
func (f TokenCounterFunc) CountTokens(text string) int { return f(text) }

// Encodings that [NewTiktokenCounter] accepts. Their vocabularies are
// embedded in the binary (github.com/pkoukk/tiktoken-go-loader): recap never
// downloads or caches a BPE file.
const (
	O200kBase  = "o200k_base"  // GPT-4o, GPT-4.1, GPT-5, o-series
	Cl100kBase = "cl100k_base" // GPT-4, GPT-3.5, text-embedding-3
	P50kBase   = "p50k_base"   // Codex, text-davinci-002/003
	R50kBase   = "r50k_base"   // GPT-3 (davinci, curie, ...)
)

// ErrUnknownEncoding is matched by the errors of [NewTiktokenCounter] and
// [CounterForModel] for a name recap has no vocabulary for.
var ErrUnknownEncoding = errors.New("recap: unknown encoding")

// encodingSpec is what builds one encoding.
type encodingSpec struct {
	file    string      // name of the embedded .tiktoken file
	pattern bpe.Pattern // its pre-tokenizer

	once sync.Once    // guards enc and err
	enc  *bpe.Encoder // built on first use
	err  error
}

// The encoders are built lazily, once per process, because loading a
// vocabulary takes about 100 ms and tens of MiB; after that they are
// immutable and shared.
var encodings = map[string]*encodingSpec{
	O200kBase:  {file: "o200k_base.tiktoken", pattern: bpe.O200k},
	Cl100kBase: {file: "cl100k_base.tiktoken", pattern: bpe.Cl100k},
	P50kBase:   {file: "p50k_base.tiktoken", pattern: bpe.R50k},
	R50kBase:   {file: "r50k_base.tiktoken", pattern: bpe.R50k},
}

// load builds the encoder on first use, from the vocabulary embedded in the
// binary by tiktoken-go-loader. recap never calls tiktoken-go's global
// SetBpeLoader or GetEncoding, and never downloads or caches a file.
func (e *encodingSpec) load() (*bpe.Encoder, error) {
	e.once.Do(func() {
		ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(e.file)
		if err != nil {
			e.err = fmt.Errorf("recap: load %s: %w", e.file, err)
			return
		}
		e.enc = bpe.New(ranks, e.pattern)
	})
	return e.enc, e.err
}

// TiktokenCounter counts tokens exactly as OpenAI's tiktoken does for one
// encoding. Text that looks like a special token, such as "<|endoftext|>",
// is counted as ordinary text, and invalid UTF-8 is first decoded the way a
// browser or Node.js decodes it: each maximal ill-formed subsequence becomes
// one U+FFFD.
//
// A TiktokenCounter is safe for concurrent use by multiple goroutines. Its
// vocabulary is built on first use and shared by all counters of the same
// encoding in the process.
type TiktokenCounter struct {
	name string
	spec *encodingSpec
}

// NewTiktokenCounter returns a counter for the named encoding, one of
// [O200kBase], [Cl100kBase], [P50kBase] or [R50kBase]. An unknown name is
// an error matching [ErrUnknownEncoding]. The vocabulary is loaded on the
// first count, not here.
func NewTiktokenCounter(encoding string) (*TiktokenCounter, error) {
	spec, ok := encodings[encoding]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownEncoding, encoding)
	}
	return &TiktokenCounter{name: encoding, spec: spec}, nil
}

// Encoding returns the name of c's encoding.
func (c *TiktokenCounter) Encoding() string { return c.name }

// CountTokens returns the number of tokens of text. The embedded
// vocabularies are tested to load; should one ever fail to, CountTokens
// returns len(text), an upper bound of any byte-level BPE count, so that
// recap summarizes early rather than overflow a context.
func (c *TiktokenCounter) CountTokens(text string) int {
	if text == "" {
		return 0
	}
	enc, err := c.spec.load()
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

// CounterForModel returns the counter for an OpenAI model name such as
// "gpt-4o", "gpt-4.1-mini", "o3" or "gpt-3.5-turbo", or for an encoding
// name. An unknown model is an error matching [ErrUnknownEncoding].
func CounterForModel(model string) (*TiktokenCounter, error) {
	if _, ok := encodings[model]; ok {
		return NewTiktokenCounter(model)
	}
	for _, p := range modelPrefixes {
		if strings.HasPrefix(model, p.prefix) {
			return NewTiktokenCounter(p.encoding)
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
