package recap

import (
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/recapgo/recap/internal/bpe"
)

// TokenCounter counts the tokens of a text. Implementations must be safe for
// concurrent use, must not panic on any input (invalid UTF-8 included) and
// must return the same count for the same text, unless they are a
// [VersionedCounter].
type TokenCounter interface {
	CountTokens(text string) int
}

// A VersionedCounter is a TokenCounter whose counts change over time, such
// as a [Calibrator]'s Counter as it learns. CountVersion returns a number
// that changes whenever its counts may have changed; for one version, the
// same text must count the same. A Compressor keeps the message counts it
// caches for one version only, and counts again after a change.
type VersionedCounter interface {
	TokenCounter
	CountVersion() uint64
}

// The TokenCounterFunc type is an adapter to allow the use of ordinary
// functions as a TokenCounter.
type TokenCounterFunc func(text string) int

// CountTokens returns f(text).
func (f TokenCounterFunc) CountTokens(text string) int { return f(text) }

// Encodings that [NewTiktokenCounter] accepts. Their vocabularies are
// embedded in the binary, as rank tables generated from the .tiktoken files
// of github.com/pkoukk/tiktoken-go-loader: recap never downloads or caches
// a BPE file.
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
// tests that it holds exactly the loader's ranks). recap never calls
// tiktoken-go's global SetBpeLoader or GetEncoding, and never downloads or
// caches a file.
func (e *encodingSpec) load() (*bpe.Encoder, error) {
	e.once.Do(func() {
		ranks, err := bpe.Vocabulary(e.file)
		if err != nil {
			e.err = fmt.Errorf("recap: load %s: %w", e.file, err)
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
	js   bool // count as gpt-tokenizer does (NewGPTTokenizerCounter)
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

// NewGPTTokenizerCounter returns a counter that reproduces, token for
// token, the counts of gpt-tokenizer 4 (the JavaScript library, with
// disallowedSpecial empty) for the named encoding: for a backend that must
// agree exactly with a JavaScript client using it, such as the seed's. It
// differs from OpenAI's tiktoken, and so from [NewTiktokenCounter], only on
// text with U+FEFF or U+0085: gpt-tokenizer's patterns use JavaScript's \s,
// which takes U+FEFF for white space and U+0085 for punctuation, and its
// merges never form a token that starts with U+FEFF. Contractions with the
// long s ('ſ) differ too. Prefer NewTiktokenCounter, which counts what the
// model is billed for.
func NewGPTTokenizerCounter(encoding string) (*TiktokenCounter, error) {
	c, err := NewTiktokenCounter(encoding)
	if err != nil {
		return nil, err
	}
	c.js = true
	return c, nil
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

// countCache remembers the token counts of messages, keyed by a 64-bit
// hash of the text, so that a long chat is not re-tokenized on every turn.
// (Two different texts share a key with a probability of about 2^-64.) The
// key is the text alone, not the message's ID, so that Measure of a chat
// sent without IDs (whose IDs Compress derives) finds the counts Compress
// made, and messages of one text share a count. It holds at most
// 2*countCacheSize entries: when the current generation is full it becomes
// the old one and the old one is dropped; a hit in the old generation
// moves the entry to the current one.
type countCache struct {
	seed maphash.Seed

	mu      sync.Mutex       // protects cur, old and version
	cur     map[uint64]int32 // the current generation
	old     map[uint64]int32 // the previous generation
	version uint64           // the counter's version the counts are of (see VersionedCounter)
}

// countCacheSize bounds a generation of a countCache: 65,536 messages.
const countCacheSize = 1 << 16

func newCountCache() *countCache {
	return &countCache{seed: maphash.MakeSeed()}
}

func (cc *countCache) key(text string) uint64 {
	return maphash.String(cc.seed, text)
}

// countAll returns the tokens of each message's text, from the cache or
// from tc, which it calls outside the lock.
func (cc *countCache) countAll(tc TokenCounter, msgs []Message) []int {
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		texts[i] = m.Text()
	}
	return cc.countTexts(tc, msgs, texts)
}

// countTexts is countAll of msgs whose texts are texts.
func (cc *countCache) countTexts(tc TokenCounter, msgs []Message, texts []string) []int {
	counts := make([]int, len(msgs))
	keys := make([]uint64, len(msgs))
	var missing []int
	for i := range msgs {
		keys[i] = cc.key(texts[i])
	}
	cc.mu.Lock()
	if vc, ok := tc.(VersionedCounter); ok {
		if v := vc.CountVersion(); v != cc.version {
			cc.cur, cc.old, cc.version = nil, nil, v
		}
	}
	for i, k := range keys {
		n, ok := cc.cur[k]
		if !ok {
			if n, ok = cc.old[k]; ok {
				cc.put(k, n)
			}
		}
		if !ok {
			missing = append(missing, i)
		}
		counts[i] = int(n)
	}
	cc.mu.Unlock()
	if len(missing) == 0 {
		return counts
	}
	for _, i := range missing {
		counts[i] = tc.CountTokens(texts[i])
	}
	cc.mu.Lock()
	for _, i := range missing {
		cc.put(keys[i], int32(counts[i]))
	}
	cc.mu.Unlock()
	return counts
}

// put adds an entry to the current generation. cc.mu must be held.
func (cc *countCache) put(k uint64, n int32) {
	if len(cc.cur) >= countCacheSize {
		cc.old, cc.cur = cc.cur, nil
	}
	if cc.cur == nil {
		cc.cur = make(map[uint64]int32)
	}
	cc.cur[k] = n
}

// sizes returns the tokens each message counts in a payload: its Text,
// the cost of its attachments (see WithMediaTokens) and the message
// overhead. Text counts come from the counts the Compressor remembers.
func (c *Compressor) sizes(msgs []Message) []int {
	texts := make([]string, len(msgs))
	media := make([]int, len(msgs))
	var types []string
	for i, m := range msgs {
		types = types[:0]
		texts[i] = m.text(&types) // the text and its media in one pass
		for _, mt := range types {
			media[i] += c.cfg.mediaCost(mt)
		}
	}
	n := c.counts.countTexts(c.cfg.counter, msgs, texts)
	for i := range n {
		n[i] += media[i] + c.cfg.overhead
	}
	return n
}

// Measure returns the size of msgs as Compress measures a payload: each
// message's Text counted by the Compressor's TokenCounter, the cost of its
// attachments (WithMediaTokens) and the message overhead
// (WithMessageOverhead). A Result's PayloadTokens is Measure of its
// Payload; Measure of the chat that went into Compress less it is what the
// call saved. Counts are remembered between calls, as Compress remembers
// them (by text: a chat sent without IDs finds them too), so measuring a
// chat right after compressing it counts little anew. It is safe for
// concurrent use.
func (c *Compressor) Measure(msgs []Message) int {
	return c.tokens(nil, msgs)
}

// tokens returns the tokens of the summary message (if any) and msgs (see
// sizes).
func (c *Compressor) tokens(summary *Message, msgs []Message) int {
	n := 0
	if summary != nil {
		n += c.sizes([]Message{*summary})[0]
	}
	for _, k := range c.sizes(msgs) {
		n += k
	}
	return n
}

// defaultCounter returns the o200k_base counter, loaded on first count.
func defaultCounter() TokenCounter {
	c, _ := NewTiktokenCounter(O200kBase) // a known encoding: cannot fail
	return c
}
