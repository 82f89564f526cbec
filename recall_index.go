package recap

import (
	"hash/maphash"
	"math"
	"sync"
)

// BM25's parameters: how fast a term's weight saturates with its count in
// a message (k1), and how much a message's length discounts it (b). The
// usual values, from Robertson and Zaragoza, "The Probabilistic Relevance
// Framework: BM25 and Beyond" (2009).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// contextWeight is the part of the score of the message before it that a
// message adds to its own: a chat's facts are mostly in the answers to
// the questions that name them (an assistant's estimate after the user's
// question, the user's reply to the assistant's question), and a query
// for a fact reads like its question.
const contextWeight = 0.5

// recallIndex is a BM25 index of a chat's messages, in order, each
// message a document. It grows by appending as the chat grows, and is cut
// back to the first message that differs when the chat was edited or is
// an older snapshot.
type recallIndex struct {
	keys     []uint64         // each message's key: a hash of its ID and Text
	lens     []int32          // each message's length, in primary terms (see scan)
	total    int64            // the sum of lens
	terms    map[string]int32 // each term's number
	postings [][]posting      // by term number: the messages that have it, in order
	counts   []uint16         // by term number: its count in the message being added (scratch)
	bytes    int              // an estimate of the memory ix holds
}

// posting is a message that has a term, and how often.
type posting struct {
	doc int32  // the message's position
	tf  uint16 // the term's count in it, at most math.MaxUint16
}

// Estimated costs, in bytes, of the parts of an index, for the cache's
// budget: a map entry with its string and slice headers, a posting, a
// message.
const (
	termBytes    = 80
	postingBytes = 8
	docBytes     = 12
)

// sync makes ix the index of the messages whose keys are keys and whose
// texts text returns: it keeps the leading messages whose keys match,
// drops the others, and adds the rest.
func (ix *recallIndex) sync(keys []uint64, text func(i int) string) {
	same := 0
	for same < len(keys) && same < len(ix.keys) && ix.keys[same] == keys[same] {
		same++
	}
	if same < len(ix.keys) {
		ix.truncate(same)
	}
	if ix.terms == nil {
		ix.terms = make(map[string]int32)
	}
	var sc termScanner
	for i := same; i < len(keys); i++ {
		ix.add(&sc, keys[i], text(i))
	}
}

// truncate drops the messages from position n on.
func (ix *recallIndex) truncate(n int) {
	for t, ps := range ix.postings {
		k := len(ps)
		for k > 0 && int(ps[k-1].doc) >= n {
			k--
		}
		ix.bytes -= (len(ps) - k) * postingBytes
		ix.postings[t] = ps[:k]
	}
	for _, l := range ix.lens[n:] {
		ix.total -= int64(l)
	}
	ix.bytes -= (len(ix.keys) - n) * docBytes
	ix.keys, ix.lens = ix.keys[:n], ix.lens[:n]
}

// add indexes a message with key and text as the next document.
func (ix *recallIndex) add(sc *termScanner, key uint64, text string) {
	doc := int32(len(ix.keys))
	var touched []int32
	length := int32(0)
	sc.scan(text, func(t []byte, kind termKind, _, _ int) {
		id, ok := ix.terms[string(t)]
		if !ok {
			id = int32(len(ix.postings))
			ix.terms[string(t)] = id
			ix.postings = append(ix.postings, nil)
			ix.counts = append(ix.counts, 0)
			ix.bytes += termBytes + len(t)
		}
		if ix.counts[id] == 0 {
			touched = append(touched, id)
		}
		if ix.counts[id] < math.MaxUint16 {
			ix.counts[id]++
		}
		if kind == kindWord {
			length++
		}
	})
	for _, id := range touched {
		ix.postings[id] = append(ix.postings[id], posting{doc: doc, tf: ix.counts[id]})
		ix.counts[id] = 0
	}
	ix.bytes += len(touched)*postingBytes + docBytes
	ix.keys = append(ix.keys, key)
	ix.lens = append(ix.lens, length)
	ix.total += int64(length)
}

// scored is a message and its score for a query.
type scored struct {
	pos   int
	score float64
}

// search scores the messages for the terms of q, by BM25 over all the
// indexed messages, and returns the best k of those that searchable
// marks, best first, ties broken by position; and the weight of each term
// of q found (its inverse document frequency times its weight in q),
// which the excerpts use. A message where inherit is true also scores
// contextWeight of the score of the message before it, whose question it
// answers, or whose answer it replies to; but only a message that has a
// term of q itself is returned.
func (ix *recallIndex) search(q []queryTerm, searchable, inherit []bool, k int) ([]scored, map[string]float64) {
	n := len(ix.keys)
	if n == 0 {
		return nil, nil
	}
	avg := float64(ix.total) / float64(n)
	if avg == 0 {
		avg = 1
	}
	scores := make([]float64, n)
	weights := make(map[string]float64, len(q))
	for _, t := range q {
		id, ok := ix.terms[t.text]
		if !ok || len(ix.postings[id]) == 0 {
			continue
		}
		ps := ix.postings[id]
		df := float64(len(ps))
		w := t.weight * math.Log(1+(float64(n)-df+0.5)/(df+0.5))
		weights[t.text] = w
		for _, p := range ps {
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.lens[p.doc])/avg)
			scores[p.doc] += w * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	// The best k, kept sorted by insertion: k is small.
	var top []scored
	for pos, own := range scores {
		if !searchable[pos] || own == 0 {
			continue
		}
		s := own
		if pos > 0 && inherit[pos] {
			s += contextWeight * scores[pos-1]
		}
		if s <= 0 || (len(top) == k && s <= top[k-1].score) {
			continue
		}
		i := len(top)
		for i > 0 && top[i-1].score < s {
			i--
		}
		if len(top) < k {
			top = append(top, scored{})
		}
		copy(top[i+1:], top[i:len(top)-1])
		top[i] = scored{pos: pos, score: s}
	}
	return top, weights
}

// indexCache keeps the indexes of the chats searched recently, as the
// count cache keeps counts: in two generations of at most
// recallGenerationBytes each (estimated), the current one becoming the
// old one, and the old one dropped, when the current one is full; a chat
// found in the old generation moves to the current one. An index larger
// than a generation is not kept.
type indexCache struct {
	seed maphash.Seed

	mu       sync.Mutex            // protects cur, old, curBytes and every entry's bytes
	cur      map[string]*chatIndex // the current generation, by chat
	old      map[string]*chatIndex // the previous generation
	curBytes int                   // the sum of the bytes of cur's entries
}

// recallGenerationBytes bounds a generation of an indexCache: 16 MiB, so
// that the indexes kept take at most about 32 MiB: some 40 chats like
// BenchmarkCompress's, of 2,000 messages and 780 KiB of index each.
const recallGenerationBytes = 16 << 20

// chatIndex is the index of one chat.
type chatIndex struct {
	mu    sync.Mutex // protects ix; held while a query syncs and searches it
	ix    recallIndex
	bytes int // ix.bytes when last accounted; guarded by indexCache.mu
}

func newIndexCache() *indexCache {
	return &indexCache{seed: maphash.MakeSeed()}
}

// key returns the key of a message of ID id and text text.
func (rc *indexCache) key(id, text string) uint64 {
	var h maphash.Hash
	h.SetSeed(rc.seed)
	h.WriteString(id)
	h.WriteByte(0)
	h.WriteString(text)
	return h.Sum64()
}

// get returns the index of chatID, new and empty if the cache has none.
func (rc *indexCache) get(chatID string) *chatIndex {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if e, ok := rc.cur[chatID]; ok {
		return e
	}
	e, ok := rc.old[chatID]
	if ok {
		delete(rc.old, chatID)
	} else {
		e = &chatIndex{}
	}
	rc.put(chatID, e)
	return e
}

// put adds e to the current generation. rc.mu must be held.
func (rc *indexCache) put(chatID string, e *chatIndex) {
	if rc.curBytes+e.bytes > recallGenerationBytes && len(rc.cur) > 0 {
		rc.old, rc.cur, rc.curBytes = rc.cur, nil, 0
	}
	if rc.cur == nil {
		rc.cur = make(map[string]*chatIndex)
	}
	rc.cur[chatID] = e
	rc.curBytes += e.bytes
}

// account records that e, the index of chatID, now holds bytes, and drops
// it if it alone exceeds a generation.
func (rc *indexCache) account(chatID string, e *chatIndex, bytes int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	inCur := rc.cur[chatID] == e
	if inCur {
		rc.curBytes += bytes - e.bytes
	}
	e.bytes = bytes
	switch {
	case !inCur:
	case bytes > recallGenerationBytes:
		delete(rc.cur, chatID)
		rc.curBytes -= bytes
	case rc.curBytes > recallGenerationBytes:
		// Full: this chat starts the next generation.
		delete(rc.cur, chatID)
		rc.curBytes -= bytes
		rc.old, rc.cur, rc.curBytes = rc.cur, nil, 0
		rc.put(chatID, e)
	}
}
