package bpe

import (
	"strings"
	"unicode/utf8"
)

// Encode appends the tokens of s, which must be valid UTF-8, to dst: the
// ranks of the tokens, in order, as tiktoken's encode_ordinary gives them
// (and, for an Encoder of NewJS, as gpt-tokenizer's encode gives them).
func (e *Encoder) Encode(dst []int, s string) []int {
	for i := 0; i < len(s); {
		j := e.split.next(s, i)
		dst = e.appendTokens(dst, s[i:j])
		i = j
	}
	return dst
}

// appendPiece appends the tokens of piece p to toks and the end of each
// in the text to ends, where p starts at off. It merges p as appendTokens
// does, without the cache, which does not keep where tokens end.
func (e *Encoder) appendPiece(toks, ends []int, p string, off int) ([]int, []int) {
	if len(p) == 1 {
		return append(toks, int(e.byteRanks()[p[0]])), append(ends, off+1)
	}
	if r, ok := e.ranks.Rank(p); ok && !(e.js && strings.HasPrefix(p, bom)) {
		return append(toks, r), append(ends, off+len(p))
	}
	if len(p) <= smallPiece {
		var buf [smallPiece + 1]part
		parts := e.smallParts(p, &buf)
		for k, pt := range parts[:len(parts)-1] {
			toks = append(toks, int(e.tokRank(p, pt.tok, int(pt.start), int(parts[k+1].start))))
			ends = append(ends, off+int(parts[k+1].start))
		}
		return toks, ends
	}
	buf := e.getBuf()
	e.heapMerge(p, buf)
	for i := int32(0); i < int32(len(p)); i = buf.next[i] {
		toks = append(toks, int(e.tokRank(p, buf.tok[i], int(i), int(buf.next[i]))))
		ends = append(ends, off+int(buf.next[i]))
	}
	e.putBuf(buf, p)
	return toks, ends
}

// Truncate returns the length of the longest prefix of s, which must be
// valid UTF-8, that encodes to a prefix of s's encoding of at most n
// tokens: with t the tokens of s, the end of t[:k] in s for the largest
// k <= n such that the prefix of s that t[:k] spells encodes to t[:k].
// That prefix ends at a character boundary. It returns len(s) if s has at
// most n tokens, 0 if n <= 0.
//
// It encodes s only up to the piece that holds token n+1, and checks each
// candidate prefix by splitting it again: the pieces of a prefix are those
// of s but near its end, where the pattern's look-ahead (a run of spaces
// before a word, a run of capitals) can split them otherwise, and the
// tokens of a piece cut short can merge otherwise.
func (e *Encoder) Truncate(s string, n int) int {
	if n <= 0 {
		return 0
	}
	var (
		toks   = make([]int, 0, min(n, len(s))+1)
		ends   = make([]int, 0, min(n, len(s))+1) // the end of each token in s
		pieces []int                              // the start of each piece encoded, then the end of the last
		first  []int                              // the index in toks of the first token of each
	)
	end := 0
	for end < len(s) && len(toks) <= n {
		j := e.split.next(s, end)
		pieces, first = append(pieces, end), append(first, len(toks))
		toks, ends = e.appendPiece(toks, ends, s[end:j], end)
		end = j
	}
	if len(toks) <= n {
		return len(s)
	}
	pieces, first = append(pieces, end), append(first, len(toks))
	for k := n; k > 0; k-- {
		c := ends[k-1]
		if !utf8.RuneStart(s[c]) {
			continue // a token that ends inside a character
		}
		if e.prefixEncodes(s[:c], toks[:k], pieces, first) {
			return c
		}
	}
	return 0
}

// prefixEncodes reports whether prefix, a prefix of the text whose pieces
// start at pieces (first[i] the index of the first token of piece i in the
// text's tokens; the last of each is the end of the last piece), encodes
// to want.
func (e *Encoder) prefixEncodes(prefix string, want []int, pieces, first []int) bool {
	pi := 0 // the piece of the text at i, while the pieces agree
	i := 0
	for i < len(prefix) {
		j := e.split.next(prefix, i)
		if pi+1 < len(pieces) && pieces[pi+1] == j {
			i, pi = j, pi+1 // the same piece: the same tokens
			continue
		}
		break
	}
	if i == len(prefix) {
		return first[pi] == len(want)
	}
	// From the first piece that differs, encode and compare.
	got := e.Encode(make([]int, 0, len(want)-first[pi]+8), prefix[i:])
	if len(got) != len(want)-first[pi] {
		return false
	}
	for k, r := range got {
		if want[first[pi]+k] != r {
			return false
		}
	}
	return true
}
