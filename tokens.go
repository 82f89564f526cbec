package recap

import (
	"hash/maphash"
	"sync"

	"github.com/recapgo/recap/tokens"
)

// TokenCounter counts the tokens of a text: the interface of package
// [tokens], whose doc says what an implementation must guarantee. A
// Compressor counts with the exact o200k_base counter of GPT-4o unless
// [WithTokenCounter] says otherwise; package tokens has the counters of
// the other OpenAI encodings and models ([tokens.NewTiktoken],
// [tokens.TiktokenForModel]) and the estimates of Claude and Gemini
// ([tokens.EstimatorForModel]), and a [Calibrator] corrects any of them
// from the usage a provider reports.
type TokenCounter = tokens.Counter

// The TokenCounterFunc type is an adapter to allow the use of ordinary
// functions as a TokenCounter.
type TokenCounterFunc = tokens.CounterFunc

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
	version uint64           // the counter's version the counts are of (see tokens.VersionedCounter)
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
	if vc, ok := tc.(tokens.VersionedCounter); ok {
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

// defaultCounter returns the o200k_base counter, whose vocabulary is read
// once per process.
func defaultCounter() TokenCounter {
	c, _ := tokens.NewTiktoken(tokens.O200kBase) // a known, embedded encoding: tested to read
	return c
}
