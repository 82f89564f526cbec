package bpe

import (
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

// classOf returns the classes of r. The classes of the runes of the Basic
// Multilingual Plane are in bmp (classes_table.go), generated with it by
// TestGeneratedClasses; decode looks the others up in package unicode.
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
