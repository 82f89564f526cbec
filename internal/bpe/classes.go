package bpe

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Character classes of the pre-tokenizer patterns, as bit flags.
const (
	cLetter  = 1 << iota // \p{L}
	cUpper               // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower               // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cNumber              // \p{N}
	cSpace               // \s (Unicode White_Space)
	cNewline             // \r or \n
	cSpaceJS             // \s as JavaScript has it: White_Space - U+0085 + U+FEFF
)

// bmp holds the classes of every rune of the Basic Multilingual Plane,
// built once on first use (64 KiB); others are looked up in the tables.
var (
	bmpOnce sync.Once
	bmp     *[0x10000]uint8
)

func classOf(r rune) uint8 {
	var c uint8
	switch {
	case unicode.IsLetter(r):
		c |= cLetter
		if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) {
			c |= cUpper
		}
		if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) {
			c |= cLower
		}
	case unicode.IsMark(r):
		c |= cUpper | cLower
	case unicode.IsNumber(r):
		c |= cNumber
	}
	if unicode.Is(unicode.White_Space, r) {
		c |= cSpace
		if r != 0x85 {
			c |= cSpaceJS
		}
	}
	if r == 0xFEFF {
		c |= cSpaceJS
	}
	if r == '\r' || r == '\n' {
		c |= cNewline
	}
	return c
}

func buildBMP() {
	t := new([0x10000]uint8)
	for r := rune(0); r < 0x10000; r++ {
		t[r] = classOf(r)
	}
	bmp = t
}

// decode returns the rune at s[i], its size and its classes. s must be
// valid UTF-8.
func decode(s string, i int) (rune, int, uint8) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1, bmp[c]
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r < 0x10000 {
		return r, n, bmp[r]
	}
	return r, n, classOf(r)
}
