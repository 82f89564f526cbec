// Package bpe counts and encodes the tokens of a text exactly as OpenAI's
// tiktoken encodes it, in time linear (pre-tokenizing) and n·log n
// (merging) in the length of the text.
//
// tiktoken splits a text into pieces with a regular expression, then
// merges each piece's bytes pair by pair, always the pair of lowest rank,
// leftmost first. The regular expression is written out by hand here (see
// Pattern), and the merge of a long piece uses a heap instead of tiktoken's
// quadratic rescans; both give the very same pieces and merges.
package bpe

import (
	"math"
	"strings"
	"sync"
	"unicode/utf8"
)

// Encoder counts and encodes tokens for one vocabulary and pattern. It is
// safe for concurrent use: its only mutable state is a bounded cache of the
// tokens of pieces that needed merging, and scratch memory for merges.
type Encoder struct {
	ranks    *Table
	split    splitter
	js       bool        // reproduce gpt-tokenizer's lookups (see NewJS)
	byteOnce sync.Once   // guards byteRank, made by the first merge
	byteRank *[256]int32 // the rank of each byte as a token, noRank for none
	cache    [cacheShards]cacheShard
	bufs     sync.Pool // of *mergeBuf, heapMerge's scratch memory
}

// mergeBuf is heapMerge's scratch memory, kept for the next long piece
// rather than left to the garbage collector: about 24 bytes per byte of
// the piece, for every piece of more than smallPiece bytes.
type mergeBuf struct {
	next, prev, rank, tok []int32
	heap                  minHeap
	out                   []int32 // the tokens of a piece too long to cache
}

// maxMergeBuf is the length of the longest piece whose scratch memory is
// kept (about 6 MB of it).
const maxMergeBuf = 1 << 18

// int32s returns b resized to n, zeroed.
func int32s(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// The piece cache holds the tokens of pieces of up to cachePieceMax
// bytes that needed merging: at most cacheShardSize pieces,
// cacheShardBytes bytes of them and cacheShardTokens of their tokens per
// shard (about 12 MiB in all). A full shard is cleared.
const (
	cacheShards      = 16
	cacheShardSize   = 4096
	cacheShardBytes  = 256 << 10
	cacheShardTokens = 64 << 10
	cachePieceMax    = 4096
)

type cacheShard struct {
	mu    sync.RWMutex      // protects m, toks and bytes
	m     map[string]uint64 // piece to where its tokens are in toks: start<<16 | count
	toks  []int32           // the tokens of the pieces of m
	bytes int               // total length of the keys of m
}

func shardOf(p string) int {
	return (len(p) + int(p[0])*7 + int(p[len(p)-1])*31) % cacheShards
}

// New returns an Encoder for the ranks of a vocabulary and the pattern of
// its encoding.
func New(ranks *Table, p Pattern) *Encoder {
	return newEncoder(ranks, splitter{pattern: p, space: cSpace}, false)
}

func newEncoder(ranks *Table, split splitter, js bool) *Encoder {
	return &Encoder{ranks: ranks, split: split, js: js}
}

// byteRanks returns the rank of each byte as a token, looked up on the
// first call (a few microseconds) rather than when the Encoder is made:
// a text whose pieces are all tokens needs none.
func (e *Encoder) byteRanks() *[256]int32 {
	e.byteOnce.Do(func() {
		e.byteRank = new([256]int32)
		for b := range e.byteRank {
			e.byteRank[b] = int32(e.rank(string([]byte{byte(b)})))
		}
	})
	return e.byteRank
}

// NewJS returns an Encoder that reproduces gpt-tokenizer 4, the JavaScript
// library, on the same vocabulary. It differs from tiktoken in three ways:
// its regular expressions use JavaScript's \s, which includes U+FEFF and
// excludes U+0085; its contractions match 's and 'S but not 'ſ; and it
// looks a byte sequence up as the string TextDecoder makes of it, which
// drops a leading byte order mark, so that no merge can form a token that
// starts with U+FEFF.
func NewJS(ranks *Table, p Pattern) *Encoder {
	return newEncoder(ranks, splitter{pattern: p, space: cSpaceJS, asciiCase: true}, true)
}

// NewJSPattern returns an Encoder that splits text as a JavaScript regular
// expression of p does (\s with U+FEFF and without U+0085, contractions of
// ASCII case) and looks pieces up as tiktoken does: what coder's
// ai-tokenizer does.
func NewJSPattern(ranks *Table, p Pattern) *Encoder {
	return newEncoder(ranks, splitter{pattern: p, space: cSpaceJS, asciiCase: true}, false)
}

// Count returns the number of tokens of s, which must be valid UTF-8.
func (e *Encoder) Count(s string) int {
	n := 0
	for i := 0; i < len(s); {
		j := e.split.next(s, i)
		n += e.pieceCount(s[i:j])
		i = j
	}
	return n
}

// ResetCache empties the piece cache, for benchmarks of a cold cache.
func (e *Encoder) ResetCache() {
	for i := range e.cache {
		sh := &e.cache[i]
		sh.mu.Lock()
		sh.m, sh.toks, sh.bytes = nil, nil, 0
		sh.mu.Unlock()
	}
}

// Pieces returns the pre-tokenizer's pieces of s, for tests.
func (e *Encoder) Pieces(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := e.split.next(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

const noRank = math.MaxInt32

// bom is U+FEFF, the byte order mark, in UTF-8.
const bom = "\uFEFF"

// rank returns the rank of b as a token, or noRank.
func (e *Encoder) rank(b string) int {
	if len(b) > e.ranks.maxLen {
		return noRank // no hashing of what cannot be a token
	}
	if e.js && strings.HasPrefix(b, bom) && utf8.ValidString(b) {
		// gpt-tokenizer decodes the bytes with TextDecoder, which drops
		// the BOM, and looks the rest up among the tokens it keeps as
		// strings, which are those that do not start with a BOM.
		b = b[len(bom):]
		if b == "" || strings.HasPrefix(b, bom) {
			return noRank
		}
	}
	if r, ok := e.ranks.Rank(b); ok {
		return r
	}
	return noRank
}

// smallPiece is the length up to which the quadratic merge, on the stack,
// beats the heap.
const smallPiece = 64

// pieceCount returns the number of tokens of one piece.
func (e *Encoder) pieceCount(p string) int {
	if len(p) <= 1 {
		return len(p)
	}
	if _, ok := e.ranks.Rank(p); ok && !(e.js && strings.HasPrefix(p, bom)) {
		return 1
	}
	if len(p) > cachePieceMax {
		return e.mergeHeap(p)
	}
	sh := &e.cache[shardOf(p)]
	sh.mu.RLock()
	at, ok := sh.m[p]
	sh.mu.RUnlock()
	if ok {
		return int(at & 0xffff)
	}
	var buf [smallPiece]int32
	toks := e.merge(buf[:0], p)
	sh.put(p, toks)
	return len(toks)
}

// appendTokens appends the tokens of one piece to dst.
func (e *Encoder) appendTokens(dst []int, p string) []int {
	if len(p) == 1 {
		return append(dst, int(e.byteRanks()[p[0]]))
	}
	if r, ok := e.ranks.Rank(p); ok && !(e.js && strings.HasPrefix(p, bom)) {
		return append(dst, r)
	}
	if len(p) > cachePieceMax {
		buf := e.getBuf()
		buf.out = e.merge(buf.out[:0], p)
		for _, r := range buf.out {
			dst = append(dst, int(r))
		}
		e.putBuf(buf, p)
		return dst
	}
	sh := &e.cache[shardOf(p)]
	sh.mu.RLock()
	if at, ok := sh.m[p]; ok {
		for _, r := range sh.toks[at>>16 : at>>16+at&0xffff] {
			dst = append(dst, int(r))
		}
		sh.mu.RUnlock()
		return dst
	}
	sh.mu.RUnlock()
	var buf [smallPiece]int32
	toks := e.merge(buf[:0], p)
	for _, r := range toks {
		dst = append(dst, int(r))
	}
	sh.put(p, toks)
	return dst
}

// put adds the tokens of piece p to the cache shard.
func (sh *cacheShard) put(p string, toks []int32) {
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= cacheShardSize || sh.bytes+len(p) > cacheShardBytes || len(sh.toks)+len(toks) > cacheShardTokens {
		sh.m, sh.toks, sh.bytes = make(map[string]uint64), sh.toks[:0], 0
	}
	sh.m[strings.Clone(p)] = uint64(len(sh.toks))<<16 | uint64(len(toks)) // a copy: p is the caller's text
	sh.toks = append(sh.toks, toks...)
	sh.bytes += len(p)
	sh.mu.Unlock()
}

// merge appends the tokens of p, of 2 bytes or more, to out, merging its
// bytes.
func (e *Encoder) merge(out []int32, p string) []int32 {
	if len(p) <= smallPiece {
		var buf [smallPiece + 1]part
		parts := e.smallParts(p, &buf)
		for k, pt := range parts[:len(parts)-1] {
			out = append(out, e.tokRank(p, pt.tok, int(pt.start), int(parts[k+1].start)))
		}
		return out
	}
	buf := e.getBuf()
	e.heapMerge(p, buf)
	for i := int32(0); i < int32(len(p)); i = buf.next[i] {
		out = append(out, e.tokRank(p, buf.tok[i], int(i), int(buf.next[i])))
	}
	e.putBuf(buf, p)
	return out
}

// tokRank returns r, the rank of the token p[start:end] as a merge found
// it; where a merge could not (a byte that is no token of the vocabulary,
// which the embedded ones do not have), it looks the token up.
func (e *Encoder) tokRank(p string, r int32, start, end int) int32 {
	if r != noRank {
		return r
	}
	return int32(e.rank(p[start:end]))
}

// part is a token of a piece being merged by mergeSmall: its start, its
// rank, and the rank of it merged with the next token.
type part struct{ start, tok, pair int32 }

// smallParts is tiktoken's byte_pair_merge of p, 2 to smallPiece bytes,
// in buf: it returns the tokens of p, each with its start and rank,
// followed by a part that starts at len(p).
func (e *Encoder) smallParts(p string, buf *[smallPiece + 1]part) []part {
	br := e.byteRanks()
	parts := buf[:0]
	for i := 0; i < len(p)-1; i++ {
		parts = append(parts, part{int32(i), br[p[i]], int32(e.rank(p[i : i+2]))})
	}
	parts = append(parts, part{int32(len(p) - 1), br[p[len(p)-1]], noRank}, part{int32(len(p)), noRank, noRank})
	pairRank := func(i int) int32 {
		if i+3 < len(parts) {
			return int32(e.rank(p[parts[i].start:parts[i+3].start]))
		}
		return noRank
	}
	for {
		min, at := int32(noRank), -1
		for i, pt := range parts[:len(parts)-1] {
			if pt.pair < min {
				min, at = pt.pair, i
			}
		}
		if at < 0 {
			break
		}
		parts[at].tok = min
		if at > 0 {
			parts[at-1].pair = pairRank(at - 1)
		}
		parts[at].pair = pairRank(at)
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return parts
}

// mergeSmall returns the number of tokens of p, 2 to smallPiece bytes.
func (e *Encoder) mergeSmall(p string) int {
	var buf [smallPiece + 1]part
	return len(e.smallParts(p, &buf)) - 1
}

// heapMerge merges like smallParts, with the candidate pairs in a min-heap
// keyed by (rank, start) so that it pops the lowest rank, leftmost first,
// exactly as the rescans do. Tokens form a linked list over their start
// offsets; a heap entry is stale once its token died or its pair's rank
// changed. It returns the number of tokens, and leaves the list in buf:
// from 0, buf.next[i] is the start of the token after the one at i, and
// buf.tok[i] the rank of the token at i.
func (e *Encoder) heapMerge(p string, buf *mergeBuf) int {
	n := len(p)
	buf.next, buf.prev, buf.rank, buf.tok = int32s(buf.next, n+1), int32s(buf.prev, n+1), int32s(buf.rank, n+1), int32s(buf.tok, n+1)
	if cap(buf.heap) < n {
		buf.heap = make(minHeap, 0, n)
	}
	next := buf.next // start of the next token; n ends the list
	prev := buf.prev
	rank := buf.rank // rank of the token at i merged with the next one
	tok := buf.tok
	h := buf.heap[:0]
	br := e.byteRanks()
	for i := 0; i < n; i++ {
		next[i], prev[i], tok[i] = int32(i+1), int32(i-1), br[p[i]]
	}
	pair := func(i int32) int32 {
		j := next[i]
		if j >= int32(n) {
			return noRank
		}
		return int32(e.rank(p[i:next[j]]))
	}
	for i := int32(0); i < int32(n); i++ {
		if rank[i] = pair(i); rank[i] != noRank {
			h = append(h, uint64(rank[i])<<32|uint64(i))
		}
	}
	h.init()
	count := n
	for len(h) > 0 {
		top := h.pop()
		r, i := int32(top>>32), int32(top&0xffffffff)
		if rank[i] != r {
			continue // stale: the token died (noRank) or its pair grew
		}
		// Merge the token at i with the next one, j.
		j := next[i]
		next[i] = next[j]
		if next[j] < int32(n) {
			prev[next[j]] = i
		}
		rank[j] = noRank // dead
		tok[i] = r
		count--
		if rank[i] = pair(i); rank[i] != noRank {
			h.push(uint64(rank[i])<<32 | uint64(i))
		}
		if i > 0 {
			q := prev[i]
			if rank[q] = pair(q); rank[q] != noRank {
				h.push(uint64(rank[q])<<32 | uint64(q))
			}
		}
	}
	buf.heap = h[:0] // push may have grown it
	return count
}

// getBuf returns scratch memory for heapMerge; putBuf keeps it for the
// next long piece unless p was longer than maxMergeBuf.
func (e *Encoder) getBuf() *mergeBuf {
	if buf, _ := e.bufs.Get().(*mergeBuf); buf != nil {
		return buf
	}
	return new(mergeBuf)
}

func (e *Encoder) putBuf(buf *mergeBuf, p string) {
	if len(p) <= maxMergeBuf {
		e.bufs.Put(buf)
	}
}

// mergeHeap returns the number of tokens of p, of any length.
func (e *Encoder) mergeHeap(p string) int {
	buf := e.getBuf()
	n := e.heapMerge(p, buf)
	e.putBuf(buf, p)
	return n
}

// minHeap is a 4-ary min-heap of (rank<<32 | start) keys: shallower than
// a binary heap, which makes its pops cheaper.
type minHeap []uint64

func (h *minHeap) push(x uint64) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 4
		if s[parent] <= x {
			break
		}
		s[i] = s[parent]
		i = parent
	}
	s[i] = x
}

// init orders the heap in place, in linear time.
func (h minHeap) init() {
	if len(h) < 2 {
		return
	}
	for i := (len(h) - 2) / 4; i >= 0; i-- {
		h.down(i)
	}
}

func (h minHeap) down(i int) {
	x := h[i]
	for {
		c := 4*i + 1
		if c >= len(h) {
			break
		}
		m := c
		end := c + 4
		if end > len(h) {
			end = len(h)
		}
		for k := c + 1; k < end; k++ {
			if h[k] < h[m] {
				m = k
			}
		}
		if h[m] >= x {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

func (h *minHeap) pop() uint64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	if len(s) > 0 {
		s.down(0)
	}
	*h = s
	return top
}
