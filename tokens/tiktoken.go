package tokens

import (
	"errors"
	"fmt"
	"strings"
	"sync"

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

// ErrUnknownEncoding is matched by the errors of [NewTiktoken],
// [NewGPTTokenizer], [TiktokenForModel] and [EstimatorForModel] for a name
// the package has no vocabulary for.
var ErrUnknownEncoding = errors.New("tokens: unknown encoding")

// ErrUnknownToken is matched by the errors of [Tiktoken.Decode] for a
// token ID its encoding does not have.
var ErrUnknownToken = errors.New("tokens: unknown token")

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
// immutable and shared. Building one costs a few microseconds: the rank
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

// Tiktoken is a tokenizer of one encoding, exactly as OpenAI's tiktoken:
// it counts, encodes, decodes and truncates text. Text that looks like a
// special token, such as "<|endoftext|>", is ordinary text, and invalid
// UTF-8 is first decoded the way a browser or Node.js decodes it: each
// maximal ill-formed subsequence becomes one U+FFFD.
//
// Make one with [NewTiktoken], [NewGPTTokenizer] or [TiktokenForModel]; the
// zero Tiktoken is not usable. A Tiktoken is safe for concurrent use by
// multiple goroutines. Its vocabulary is read in place from the binary and
// shared by all Tiktokens of the same encoding in the process, as is a
// bounded cache of the tokens of the pieces of text it merged.
type Tiktoken struct {
	name  string
	enc   *bpe.Encoder
	ranks *bpe.Table
	js    bool // count as gpt-tokenizer does (NewGPTTokenizer)
}

// NewTiktoken returns the tokenizer of the named encoding, one of
// [O200kBase], [Cl100kBase], [P50kBase] or [R50kBase]. An unknown name is
// an error matching [ErrUnknownEncoding]. The first call for an encoding
// in a process reads its vocabulary in place from the binary, in a few
// microseconds; the embedded vocabularies are tested to read.
func NewTiktoken(encoding string) (*Tiktoken, error) {
	spec, ok := encodings[encoding]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownEncoding, encoding)
	}
	enc, err := spec.load()
	if err != nil {
		return nil, err
	}
	return &Tiktoken{name: encoding, enc: enc, ranks: spec.ranks}, nil
}

// NewGPTTokenizer returns a tokenizer that reproduces, token for token,
// the counts of gpt-tokenizer 4 (the JavaScript library, with
// disallowedSpecial empty) for the named encoding: for a backend that must
// agree exactly with a JavaScript client using it, such as the seed's. It
// differs from OpenAI's tiktoken, and so from [NewTiktoken], only on
// text with U+FEFF or U+0085: gpt-tokenizer's patterns use JavaScript's \s,
// which takes U+FEFF for white space and U+0085 for punctuation, and its
// merges never form a token that starts with U+FEFF. Contractions with the
// long s ('ſ) differ too. Prefer NewTiktoken, which counts what the model
// is billed for.
//
// Its Encode splits and merges as gpt-tokenizer does (its counts are
// tested against gpt-tokenizer's, not its token IDs). Where a merge of
// gpt-tokenizer joins a U+FEFF to what follows, it looks the bytes up
// without the U+FEFF: that token is the ID of what follows, and Decode of
// it lacks the U+FEFF.
func NewGPTTokenizer(encoding string) (*Tiktoken, error) {
	spec, ok := encodings[encoding]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownEncoding, encoding)
	}
	enc, err := spec.loadJS()
	if err != nil {
		return nil, err
	}
	return &Tiktoken{name: encoding, enc: enc, ranks: spec.ranks, js: true}, nil
}

// o200k returns the o200k_base tokenizer.
func o200k() *Tiktoken {
	t, _ := NewTiktoken(O200kBase) // a known, embedded encoding: tested to read
	return t
}

// Encoding returns the name of t's encoding.
func (t *Tiktoken) Encoding() string { return t.name }

// CountTokens returns the number of tokens of text: len(t.Encode(text)),
// without making the tokens.
func (t *Tiktoken) CountTokens(text string) int {
	if text == "" {
		return 0
	}
	return t.enc.Count(toValidUTF8(text))
}

// Encode returns the tokens of text: the token IDs that tiktoken's
// encode_ordinary gives for it (Python's enc.encode_ordinary(text), which
// reads special-token text such as "<|endoftext|>" as ordinary text), in
// a new slice; nil for "". Invalid UTF-8 is read as CountTokens reads it,
// so len(t.Encode(text)) is t.CountTokens(text) on any text.
func (t *Tiktoken) Encode(text string) []int {
	if text == "" {
		return nil
	}
	// About 4 bytes a token for English, fewer for other scripts: room
	// for most texts in one allocation, without the cost of counting first.
	return t.enc.Encode(make([]int, 0, len(text)/3+4), toValidUTF8(text))
}

// Decode returns the text of tokens, the concatenation of the bytes of
// each. For a text that is valid UTF-8, t.Decode(t.Encode(text)) is text;
// for any other, it is text with each maximal ill-formed subsequence
// replaced by U+FFFD. The bytes of a slice of tokens that ends (or starts)
// inside a character are not valid UTF-8. A token ID that t's encoding does
// not have, special tokens included, is an error matching [ErrUnknownToken].
func (t *Tiktoken) Decode(tokens []int) (string, error) {
	n := 0
	for _, id := range tokens {
		tok, ok := t.ranks.Token(id)
		if !ok {
			return "", fmt.Errorf("%w %d for %s", ErrUnknownToken, id, t.name)
		}
		n += len(tok)
	}
	var b strings.Builder
	b.Grow(n)
	for _, id := range tokens {
		tok, _ := t.ranks.Token(id)
		b.WriteString(tok)
	}
	return b.String(), nil
}

// Truncate returns the longest prefix of text that ends at a token boundary
// and holds at most n tokens: with ids = t.Encode(text), the text of ids[:k]
// for the largest k <= n such that the text of ids[:k] encodes to ids[:k].
// So t.Encode(t.Truncate(text, n)) is a prefix of t.Encode(text), and
// t.CountTokens(t.Truncate(text, n)) <= n. (The text of ids[:n] alone may
// encode otherwise, into more tokens: a piece of the text that the cut
// shortens can merge otherwise, and the split into pieces looks ahead, so
// Truncate takes the largest k for which it does not.) The result is a
// prefix of text that ends at a character boundary: text itself if it has
// at most n tokens, "" if n <= 0. For a text that is not valid UTF-8, it is
// the longest prefix of text that reads as that prefix of the text.
//
// It costs about one encoding of the prefix it returns, and one more split
// into pieces for each k it tries; it reads text only up to the end of the
// piece that holds token n+1.
func (t *Tiktoken) Truncate(text string, n int) string {
	if n <= 0 || text == "" {
		return ""
	}
	v := toValidUTF8(text)
	c := t.enc.Truncate(v, n)
	if len(v) == len(text) {
		// Valid UTF-8 (v is text), or ill-formed only in subsequences of 3
		// bytes, each read in place as the 3 bytes of a U+FFFD: either way
		// an offset in v is the same offset in text.
		return text[:c]
	}
	return text[:validPrefix(text, c)]
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
