package tokens

import (
	"strings"
	"unicode/utf8"
)

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
		size, ok := unit(s, i)
		if ok {
			b.WriteString(s[i : i+size])
		} else {
			b.WriteRune(utf8.RuneError)
		}
		i += size
	}
	return b.String()
}

// unit returns the length of what starts at s[i]: a character, and true,
// or the maximal subpart of an ill-formed sequence, which toValidUTF8
// makes one U+FFFD, and false.
func unit(s string, i int) (int, bool) {
	c := s[i]
	if c < utf8.RuneSelf {
		return 1, true
	}
	if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
		return size, true
	}
	// Invalid at i: the lead byte and as many following bytes as still
	// form a prefix of a well-formed sequence.
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
	k := i + 1
	for ; need > 0 && k < len(s) && s[k] >= lo && s[k] <= hi; need-- {
		k++
		lo, hi = 0x80, 0xBF
	}
	return k - i, false
}

// validPrefix returns the length of the longest prefix of s that
// toValidUTF8 makes into the first n bytes of toValidUTF8(s), where n is at
// a character boundary of toValidUTF8(s): a maximal ill-formed subsequence
// counts with the three bytes of its U+FFFD.
func validPrefix(s string, n int) int {
	out := 0
	for i := 0; i < len(s); {
		size, ok := unit(s, i)
		w := size
		if !ok {
			w = utf8.RuneLen(utf8.RuneError)
		}
		if out+w > n {
			return i
		}
		out += w
		i += size
	}
	return len(s)
}
