package bpe

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"sync"
)

// A Table is a vocabulary, the ranks of its tokens, laid out as a
// read-only hash table in one string. It is read in place: a Table made
// from data embedded in the binary (see Vocabulary) costs no decoding and
// no allocation beyond the Table itself, and its pages are read from the
// binary only when a lookup touches them.
//
// The layout, all integers little-endian:
//
//	header   8-byte magic "rcpbpe2\n", then uint32 n (tokens), uint32
//	         home (slots a hash maps to), uint32 slots (home plus the
//	         overflow at the end), uint32 maxLen (longest token), uint64
//	         seed (of the hash), uint32 blob length
//	slots    slots × uint64: run | len<<6 | offset<<14 | rank<<35 |
//	         fingerprint<<54, len 0 for an empty slot
//	blob     the tokens' bytes, in the order of their ranks
//
// A token t has the home slot (hash(t)>>32 × home)>>32 and lives in the
// first slot at or after it that was free when t was placed (linear
// probing). The tokens are placed in the order of their ranks, which is
// about that of their frequency (the order of the merges that made the
// vocabulary): most of the frequent ones are in their home slots, and
// their bytes are near each other in the blob. The run of slot i is 0 if no token has the home
// slot i, else 1 plus the distance from i of the farthest one that has, at
// most 63: a lookup reads the run of its home slot, then at most that many
// slots, most often one or two, in one cache line. Overflow slots at the
// end take the tokens placed past the last home slot, so probing never
// wraps around. The fingerprint is the low 10 bits of the hash: a lookup
// reads a token's bytes only when its length and fingerprint match.
//
// A Table is immutable and safe for concurrent use by multiple goroutines.
type Table struct {
	slots  string // the slot array, 8 bytes per slot
	blob   string // the tokens' bytes
	home   uint64 // number of home slots
	seed   uint64
	maxLen int // no token is longer
	n      int // number of tokens below limit
	limit  int // ranks at or above limit are not in the vocabulary
	tokens *tokenIndex
}

// tokenIndex finds a token by its rank: at[r] is the offset of the token
// of rank r in the blob, shifted left 8 bits, or'd with its length; 0 for
// a rank with no token. It is built on the first lookup.
type tokenIndex struct {
	once sync.Once // guards at
	at   []uint32
}

const (
	tableMagic  = "rcpbpe2\n"
	tableHeader = len(tableMagic) + 4*4 + 8 + 4

	slotRunBits    = 6
	slotLenBits    = 8
	slotOffsetBits = 21
	slotRankBits   = 19
	slotFPBits     = 64 - slotRunBits - slotLenBits - slotOffsetBits - slotRankBits

	slotLenShift    = slotRunBits
	slotOffsetShift = slotLenShift + slotLenBits
	slotRankShift   = slotOffsetShift + slotOffsetBits
	slotFPShift     = slotRankShift + slotRankBits

	maxRun      = 1<<slotRunBits - 1
	maxTokenLen = 1<<slotLenBits - 1
	maxBlob     = 1 << slotOffsetBits
	maxRank     = 1<<slotRankBits - 1

	// slotMatch selects the fields a lookup compares before reading a
	// token's bytes: length and fingerprint.
	slotMatch = maxTokenLen<<slotLenShift | (1<<slotFPBits-1)<<slotFPShift
)

// ParseTable returns the Table laid out in data by BuildTable, read in
// place: the Table keeps slices of data and copies nothing. It checks the
// header and the sizes, not the slots: lookups in a table that BuildTable
// did not make may panic.
func ParseTable(data string) (*Table, error) {
	if len(data) < tableHeader || data[:len(tableMagic)] != tableMagic {
		return nil, errors.New("bpe: not a rank table")
	}
	h := data[len(tableMagic):]
	n, home, slots, maxLen := le32(h, 0), le32(h, 4), le32(h, 8), le32(h, 12)
	seed, blob := le64(h, 16), le32(h, 24)
	if want := uint64(tableHeader) + 8*uint64(slots) + uint64(blob); uint64(len(data)) != want {
		return nil, fmt.Errorf("bpe: rank table of %d bytes, want %d", len(data), want)
	}
	if home == 0 || home > slots || maxLen > maxTokenLen {
		return nil, errors.New("bpe: corrupt rank table header")
	}
	end := tableHeader + 8*int(slots)
	return &Table{
		slots:  data[tableHeader:end],
		blob:   data[end:],
		home:   uint64(home),
		seed:   seed,
		maxLen: int(maxLen),
		n:      int(n),
		limit:  maxRank + 1,
		tokens: new(tokenIndex),
	}, nil
}

// Rank returns the rank of token s, and whether s is a token.
func (t *Table) Rank(s string) (int, bool) {
	if len(s) > t.maxLen || len(s) == 0 {
		return 0, false // no hashing of what cannot be a token
	}
	// hashString(s, t.seed), written out: the call costs as much as the
	// hash of a short token.
	n := len(s)
	seed := t.seed ^ hashP0
	var a, b uint64
	switch {
	case n <= 3:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	case n <= 8:
		a, b = uint64(le32(s, 0)), uint64(le32(s, n-4))
	case n <= 16:
		a, b = le64(s, 0), le64(s, n-8)
	default:
		for i := 0; n-i > 16; i += 16 {
			seed = mix(le64(s, i)^hashP1, le64(s, i+8)^seed)
		}
		a, b = le64(s, n-16), le64(s, n-8)
	}
	h := mix(a^hashP1, b^seed^uint64(n))
	want := uint64(n)<<slotLenShift | h<<slotFPShift
	i := int(((h>>32)*t.home)>>32) * 8
	for end := i + 8*int(le64(t.slots, i)&maxRun); i < end; i += 8 {
		if e := le64(t.slots, i); e&slotMatch == want {
			off := int(e>>slotOffsetShift) & (maxBlob - 1)
			if t.blob[off:off+n] == s {
				if r := int(e >> slotRankShift & maxRank); r < t.limit {
					return r, true
				}
				return 0, false
			}
		}
	}
	return 0, false
}

// Token returns the token of rank r, and whether there is one. The first
// call builds an index of 4 bytes per token, in a millisecond or so.
func (t *Table) Token(r int) (string, bool) {
	if r < 0 || r >= t.limit {
		return "", false
	}
	idx := t.tokens
	idx.once.Do(func() {
		top := -1
		t.eachSlot(func(off, n, r int) { top = max(top, r) })
		idx.at = make([]uint32, top+1)
		t.eachSlot(func(off, n, r int) { idx.at[r] = uint32(off)<<slotLenBits | uint32(n) })
	})
	if r >= len(idx.at) || idx.at[r] == 0 {
		return "", false
	}
	e := idx.at[r]
	off, n := int(e>>slotLenBits), int(e&maxTokenLen)
	return t.blob[off : off+n], true
}

// eachSlot calls f with the offset, length and rank of every token in the
// slots, the ranks at or above limit included.
func (t *Table) eachSlot(f func(off, n, rank int)) {
	for i := 0; i < len(t.slots); i += 8 {
		e := le64(t.slots, i)
		if n := int(e >> slotLenShift & maxTokenLen); n > 0 {
			f(int(e>>slotOffsetShift)&(maxBlob-1), n, int(e>>slotRankShift&maxRank))
		}
	}
}

// Len returns the number of tokens.
func (t *Table) Len() int { return t.n }

// MaxLen returns the length of the longest token.
func (t *Table) MaxLen() int { return t.maxLen }

// Each calls f with every token and its rank, in no particular order.
func (t *Table) Each(f func(token string, rank int)) {
	t.eachSlot(func(off, n, r int) {
		if r < t.limit {
			f(t.blob[off:off+n], r)
		}
	})
}

// below returns t restricted to the ranks below limit, whose number is n:
// r50k_base is p50k_base without its 24 tokens of runs of spaces.
func (t *Table) below(limit, n int) *Table {
	u := *t
	u.limit, u.n = limit, n
	return &u
}

// NewTable returns a Table, built in memory, of the byte-sequence ranks of
// a vocabulary (as loaded from a .tiktoken file).
func NewTable(ranks map[string]int) (*Table, error) {
	data, err := BuildTable(ranks)
	if err != nil {
		return nil, err
	}
	return ParseTable(string(data))
}

// BuildTable lays ranks out as a Table (see ParseTable). The result
// depends only on ranks. Five home slots for every three tokens keep the
// runs short: more than half of the home slots are the home of no token,
// so that most lookups of a string that is not a token read one slot, and
// 99% of the thousand tokens of lowest rank are in their home slots.
func BuildTable(ranks map[string]int) ([]byte, error) {
	toks := make([]string, 0, len(ranks))
	maxLen := 0
	for tok, r := range ranks {
		if tok == "" || len(tok) > maxTokenLen || r < 0 || r > maxRank {
			return nil, fmt.Errorf("bpe: token %q of rank %d does not fit a rank table", tok, r)
		}
		toks = append(toks, tok)
		maxLen = max(maxLen, len(tok))
	}
	sort.Slice(toks, func(i, j int) bool {
		if ri, rj := ranks[toks[i]], ranks[toks[j]]; ri != rj {
			return ri < rj
		}
		return toks[i] < toks[j]
	})
	offset := make([]int, len(toks))
	var blob []byte
	for i, tok := range toks {
		offset[i] = len(blob)
		blob = append(blob, tok...)
	}
	if len(blob) > maxBlob {
		return nil, fmt.Errorf("bpe: %d bytes of tokens do not fit a rank table", len(blob))
	}

	home := uint64(len(toks))*5/3 + 1
	// The first seed whose runs are at most maxRun; the first one is, for
	// these vocabularies.
	for seed := uint64(0); seed < 64; seed++ {
		if slots, ok := placeTokens(toks, offset, ranks, home, seed); ok {
			out := make([]byte, 0, tableHeader+8*len(slots)+len(blob))
			out = append(out, tableMagic...)
			out = appendLE(out, uint64(len(toks)), 4)
			out = appendLE(out, home, 4)
			out = appendLE(out, uint64(len(slots)), 4)
			out = appendLE(out, uint64(maxLen), 4)
			out = appendLE(out, seed, 8)
			out = appendLE(out, uint64(len(blob)), 4)
			for _, s := range slots {
				out = appendLE(out, s, 8)
			}
			return append(out, blob...), nil
		}
	}
	return nil, errors.New("bpe: no seed keeps the rank table's runs short")
}

// placeTokens returns the slots of a table with the hash seed seed, the
// tokens placed in the order of toks, or false if a run would be longer
// than maxRun.
func placeTokens(toks []string, offset []int, ranks map[string]int, home, seed uint64) ([]uint64, bool) {
	slots := make([]uint64, home, home+64)
	run := make([]uint64, home)
	for i, tok := range toks {
		h := hashString(tok, seed)
		at := ((h >> 32) * home) >> 32
		d := uint64(0) // the distance to the first free slot
		for at+d < uint64(len(slots)) && slots[at+d] != 0 {
			d++
		}
		if d+1 > maxRun {
			return nil, false
		}
		if at+d == uint64(len(slots)) {
			slots = append(slots, 0)
		}
		slots[at+d] = uint64(len(tok))<<slotLenShift | uint64(offset[i])<<slotOffsetShift |
			uint64(ranks[tok])<<slotRankShift | h<<slotFPShift
		run[at] = max(run[at], d+1)
	}
	for i, r := range run {
		slots[i] |= r
	}
	return slots, true
}

func appendLE(b []byte, v uint64, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func le32(s string, i int) uint32 {
	_ = s[i+3]
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func le64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// hashString is a hash of s in the manner of wyhash: fast on the short
// strings that tokens are. It is part of the table format: changing it
// requires generating the tables again (TestGeneratedTables says so), and
// changing Table.Rank's copy of it (TestVocabularies says so).
func hashString(s string, seed uint64) uint64 {
	n := len(s)
	seed ^= hashP0
	var a, b uint64
	switch {
	case n == 0:
	case n <= 3:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	case n <= 8:
		a, b = uint64(le32(s, 0)), uint64(le32(s, n-4))
	case n <= 16:
		a, b = le64(s, 0), le64(s, n-8)
	default:
		for i := 0; n-i > 16; i += 16 {
			seed = mix(le64(s, i)^hashP1, le64(s, i+8)^seed)
		}
		a, b = le64(s, n-16), le64(s, n-8)
	}
	return mix(a^hashP1, b^seed^uint64(n))
}

// The constants of wyhash.
const (
	hashP0 = 0xa0761d6478bd642f
	hashP1 = 0xe7037ed1a0b428db
)

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
