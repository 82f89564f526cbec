package recap

import (
	"unicode"
	"unicode/utf8"
)

// Recall's terms. A text is split into terms the same way for the
// messages and for the query, so the rules below only need to be
// consistent, not linguistically exact:
//
//   - In spaced scripts, a word is a run of letters, digits and combining
//     marks, case-folded, with the diacritics of Latin letters removed
//     ("Prüfung" and "prufung" match) and full-width forms made ASCII.
//   - An identifier is a run of words joined by connectors (- _ . @ / : #
//     + ~ \ ' and ’), such as "INC-20931", "4.12.3", "user@example.com"
//     or "/etc/hosts" (its leading and trailing connectors trimmed): it is
//     a term of its own besides its words, so that a query for the whole
//     identifier ranks the message that has it above one with its parts
//     scattered.
//   - A word of five letters or more also gives its first five letters as
//     a prefix term: a crude stemmer that works alike for English, German
//     or Spanish ("deployed" and "deploy", "Rechnung" and "Rechnungen"),
//     where a word-list stemmer would need one language per chat. A word
//     found whole thus counts twice what it counts when found by its
//     prefix alone, and long words, which are rarely function words,
//     count more than short ones.
//   - Scripts written without spaces (Han, Hiragana, Katakana, Hangul,
//     Thai, Lao, Khmer, Myanmar) give overlapping character bigrams, and
//     each Han character a unigram of a third of a word's weight: a Han
//     character alone carries meaning, a kana alone does not.

// termKind is what a term stands for, which sets its weight in a score.
type termKind uint8

const (
	kindWord     termKind = iota // a word or a character bigram
	kindCompound                 // an identifier: words joined by connectors
	kindPrefix                   // the first letters of a long word
	kindHan                      // a Han character alone
)

// Term texts of the kinds that could collide with words start with a
// byte no folded word starts with.
const (
	prefixMark = "\x01"
	hanMark    = "\x02"
)

// prefixRunes is how many letters a prefix term has.
const prefixRunes = 5

// weight returns how much a match of a term of kind counts, relative to a
// word.
func (k termKind) weight() float64 {
	if k == kindHan {
		return 1.0 / 3
	}
	return 1
}

// A termScanner splits texts into terms. Its buffer is reused from one
// term to the next: the bytes passed to emit are valid until emit returns.
type termScanner struct {
	buf []byte // the current term
	pre []byte // the current prefix term
}

// rune classes of the scanner.
const (
	classOther     = iota // white space, punctuation, symbols
	classWord             // letters, digits and marks of spaced scripts
	classConnector        // joins the words of an identifier
	classBigram           // a letter of a script written without spaces
)

// classify returns the class of r, already normalized by width.
func classify(r rune) int {
	switch {
	case r < 0x80:
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			return classWord
		}
		switch r {
		case '-', '_', '.', '@', '/', ':', '#', '+', '~', '\\', '\'':
			return classConnector
		}
		return classOther
	case r == '’':
		return classConnector
	case unspaced(r):
		return classBigram
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		return classWord
	}
	return classOther
}

// unspaced reports whether r is a letter of a script written without
// spaces between words.
func unspaced(r rune) bool {
	switch {
	case r < 0x0E00:
		return false
	case r <= 0x0EFF: // Thai, Lao
		return unicode.IsLetter(r) || unicode.IsMark(r)
	case 0x1000 <= r && r <= 0x109F, 0x1780 <= r && r <= 0x17FF: // Myanmar, Khmer
		return unicode.IsLetter(r) || unicode.IsMark(r)
	case 0x3040 <= r && r <= 0x30FF, 0x31F0 <= r && r <= 0x31FF, r == 0x3005: // kana (with ー), 々
		return true
	case 0xFF66 <= r && r <= 0xFF9F: // half-width katakana
		return true
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hangul, r)
}

// normalize makes a full-width ASCII form ("Ｉ", "０") its ASCII letter.
func normalize(r rune) rune {
	if 0xFF01 <= r && r <= 0xFF5E {
		return r - 0xFEE0
	}
	return r
}

// latinBase holds the base letter of U+00C0 to U+017F, lower case, or '.'
// for a letter kept as it is (after lower-casing): Æ, Þ, ß, Ĳ, Ŋ, Œ and
// the signs × and ÷.
const latinBase = "" +
	"aaaaaa.ceeeeiiii" + // U+00C0
	"dnooooo.ouuuuy.." + // U+00D0
	"aaaaaa.ceeeeiiii" + // U+00E0
	"dnooooo.ouuuuy.y" + // U+00F0
	"aaaaaaccccccccdd" + // U+0100
	"ddeeeeeeeeeegggg" + // U+0110
	"gggghhhhiiiiiiii" + // U+0120
	"ii..jjkkklllllll" + // U+0130
	"lllnnnnnnn..oooo" + // U+0140
	"oo..rrrrrrssssss" + // U+0150
	"ssttttttuuuuuuuu" + // U+0160
	"uuuuwwyyyzzzzzzs" //   U+0170

// fold appends the folded form of r (a word or bigram letter) to b: lower
// case, without the diacritics of Latin letters; combining diacritics
// (U+0300 to U+036F, as in decomposed text) are dropped.
func fold(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	case 0x300 <= r && r <= 0x36F:
		return b
	case 0xC0 <= r && r <= 0x17F:
		if c := latinBase[r-0xC0]; c != '.' {
			return append(b, c)
		}
	case r == 'ς':
		r = 'σ'
	}
	return utf8.AppendRune(b, unicode.ToLower(r))
}

// scan calls emit for each term of text, with its kind and the span of
// text it comes from, in the order of the text (an identifier after its
// words, a prefix after its word). A word counts toward a message's
// length (primary), as does a bigram; identifiers, prefixes and unigrams,
// which repeat what words and bigrams say, do not.
func (sc *termScanner) scan(text string, emit func(term []byte, kind termKind, start, end int)) {
	var (
		wordStart  = -1 // the current word's start, or -1
		compStart  = -1 // the current identifier's first word's start, or -1
		compEnd    = -1 // the end of its last word
		compWords  = 0  // its words
		prevBigram rune // the bigram letter before, or 0
		prevAt     = 0  // where it starts
	)
	endWord := func(end int) {
		if wordStart < 0 {
			return
		}
		sc.word(text[wordStart:end], wordStart, end, emit)
		if compStart < 0 {
			compStart = wordStart
		}
		compEnd, compWords = end, compWords+1
		wordStart = -1
	}
	endCompound := func() {
		if compWords > 1 {
			sc.buf = sc.buf[:0]
			for _, r := range text[compStart:compEnd] {
				r = normalize(r)
				if classify(r) == classConnector {
					if r == '’' {
						r = '\''
					}
					sc.buf = append(sc.buf, byte(r))
					continue
				}
				sc.buf = fold(sc.buf, r)
			}
			emit(sc.buf, kindCompound, compStart, compEnd)
		}
		compStart, compEnd, compWords = -1, -1, 0
	}
	for i, r := range text {
		switch classify(normalize(r)) {
		case classWord:
			prevBigram = 0
			if wordStart < 0 {
				wordStart = i
			}
		case classConnector:
			prevBigram = 0
			endWord(i) // an identifier goes on; its last connectors are trimmed
		case classBigram:
			endWord(i)
			endCompound()
			size := utf8.RuneLen(r)
			if prevBigram != 0 {
				sc.buf = fold(fold(sc.buf[:0], prevBigram), r)
				emit(sc.buf, kindWord, prevAt, i+size)
			}
			if unicode.Is(unicode.Han, r) {
				sc.buf = fold(append(sc.buf[:0], hanMark...), r)
				emit(sc.buf, kindHan, i, i+size)
			}
			prevBigram, prevAt = r, i
		default:
			prevBigram = 0
			endWord(i)
			endCompound()
		}
	}
	endWord(len(text))
	endCompound()
}

// word emits the word text[start:end] and, if it has prefixRunes letters
// or more and no digit, its prefix.
func (sc *termScanner) word(w string, start, end int, emit func([]byte, termKind, int, int)) {
	sc.buf = sc.buf[:0]
	letters, prefixLen, digits := 0, 0, false
	for _, r := range w {
		r = normalize(r)
		if unicode.IsDigit(r) {
			digits = true
		}
		n := len(sc.buf)
		sc.buf = fold(sc.buf, r)
		if len(sc.buf) > n {
			letters++
			if letters == prefixRunes {
				prefixLen = len(sc.buf)
			}
		}
	}
	if len(sc.buf) == 0 {
		return // only combining marks
	}
	emit(sc.buf, kindWord, start, end)
	if prefixLen > 0 && !digits {
		sc.pre = append(append(sc.pre[:0], prefixMark...), sc.buf[:prefixLen]...)
		emit(sc.pre, kindPrefix, start, end)
	}
}

// queryTerms returns the distinct terms of query, each with its weight,
// in the order they first appear; those of the words of stopWords, and of
// their prefixes, are marked.
func queryTerms(query string) []queryTerm {
	var sc termScanner
	var out []queryTerm
	seen := map[string]bool{}
	stop := false // the last word is a stop word
	sc.scan(query, func(t []byte, kind termKind, _, _ int) {
		switch kind {
		case kindWord:
			stop = stopWords[string(t)]
		case kindCompound, kindHan:
			stop = false
		}
		if !seen[string(t)] {
			seen[string(t)] = true
			out = append(out, queryTerm{text: string(t), weight: kind.weight(), stop: stop})
		}
	})
	return out
}

// queryTerm is a term of a query.
type queryTerm struct {
	text   string
	weight float64 // relative to a word's (see termKind.weight)
	stop   bool    // a stop word, or its prefix
}
