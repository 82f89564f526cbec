package bpe

// Pattern names a pre-tokenizer: the regular expression that tiktoken uses
// to split text into pieces before byte-pair encoding, here written out by
// hand so that it runs in linear time.
type Pattern int

const (
	// O200k is o200k_base's pattern:
	//
	//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
	//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
	//	|\p{N}{1,3}
	//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
	//	|\s*[\r\n]+
	//	|\s+(?!\S)
	//	|\s+
	O200k Pattern = iota
	// Cl100k is cl100k_base's pattern:
	//
	//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
	//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
	Cl100k
	// R50k is the pattern of r50k_base and p50k_base (GPT-2's):
	//
	//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
	R50k
)

// splitter finds the pieces of a text. Each alternative of the pattern is a
// function that returns the end of its match at i, or -1; next tries them
// in the pattern's order, which is what a backtracking regex engine does
// (leftmost-first alternation, greedy quantifiers).
type splitter struct {
	pattern   Pattern
	space     uint8 // the class \s stands for: cSpace, or cSpaceJS
	asciiCase bool  // contractions fold ASCII case only, as gpt-tokenizer's do
}

// next returns the end of the piece that starts at i < len(s).
func (p splitter) next(s string, i int) int {
	r, n, c := decode(s, i)
	switch p.pattern {
	case Cl100k:
		return p.nextCl100k(s, i, r, n, c)
	case R50k:
		return p.nextR50k(s, i, r, n, c)
	}
	if c&(cNumber|cNewline) == 0 {
		if e := p.prefixed(s, i, n, c, true); e >= 0 {
			return e
		}
		if e := p.prefixed(s, i, n, c, false); e >= 0 {
			return e
		}
	}
	if c&cNumber != 0 {
		return numbers(s, i+n, 2)
	}
	if e := p.punct(s, i, r); e >= 0 {
		return e
	}
	return p.spaces(s, i, n)
}

func (p splitter) nextCl100k(s string, i int, r rune, n int, c uint8) int {
	if r == '\'' {
		if e := p.contraction(s, i); e > i {
			return e
		}
	}
	if c&(cLetter|cNumber|cNewline) == 0 {
		if e := letters(s, i+n); e > i+n {
			return e
		}
	}
	if c&cLetter != 0 {
		return letters(s, i)
	}
	if c&cNumber != 0 {
		return numbers(s, i+n, 2)
	}
	if e := p.punct(s, i, r); e >= 0 {
		return e
	}
	return p.spaces(s, i, n)
}

func (p splitter) nextR50k(s string, i int, r rune, n int, c uint8) int {
	if r == '\'' && i+1 < len(s) {
		switch k := i + 1; {
		case s[k] == 's', s[k] == 't', s[k] == 'm', s[k] == 'd':
			return k + 1
		case k+1 < len(s) && (s[k:k+2] == "re" || s[k:k+2] == "ve" || s[k:k+2] == "ll"):
			return k + 2
		}
	}
	j, cj := i, c
	if r == ' ' && i+1 < len(s) {
		_, _, cj = decode(s, i+1)
		j = i + 1
	}
	switch {
	case cj&cLetter != 0:
		return letters(s, j)
	case cj&cNumber != 0:
		return numbers(s, j, len(s))
	case cj&p.space == 0:
		return p.punct(s, i, r)
	}
	return p.spaces(s, i, n)
}

// prefixed matches [^\r\n\p{L}\p{N}]?BODY at i, where BODY is
// upperLower (the first alternative) or upperThenLower (the second): first
// with the optional character taken, then without it.
func (p splitter) prefixed(s string, i, n int, c uint8, first bool) int {
	body := func(j int) int {
		if first {
			return p.upperLower(s, j)
		}
		return p.upperThenLower(s, j)
	}
	if c&(cLetter|cNumber|cNewline) == 0 && i+n < len(s) {
		if e := body(i + n); e >= 0 {
			return e
		}
	}
	return body(i)
}

// upperLower matches [U]*[L]+('s|...)? at j, where U is
// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and L is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
// U* takes as much as it can while leaving an L to match after it.
func (p splitter) upperLower(s string, j int) int {
	k, lastBoth := j, -1
	for k < len(s) {
		_, n, c := decode(s, k)
		if c&cUpper == 0 {
			break
		}
		if c&cLower != 0 {
			lastBoth = k
		}
		k += n
	}
	start := lastBoth
	if k < len(s) {
		if _, _, c := decode(s, k); c&cLower != 0 {
			start = k
		}
	}
	if start < 0 {
		return -1
	}
	return p.contraction(s, lowers(s, start))
}

// upperThenLower matches [U]+[L]*('s|...)? at j.
func (p splitter) upperThenLower(s string, j int) int {
	k := j
	for k < len(s) {
		_, n, c := decode(s, k)
		if c&cUpper == 0 {
			break
		}
		k += n
	}
	if k == j {
		return -1
	}
	return p.contraction(s, lowers(s, k))
}

// lowers returns the end of the run of L characters at k.
func lowers(s string, k int) int {
	for k < len(s) {
		_, n, c := decode(s, k)
		if c&cLower == 0 {
			break
		}
		k += n
	}
	return k
}

// letters returns the end of the run of \p{L} at k.
func letters(s string, k int) int {
	for k < len(s) {
		_, n, c := decode(s, k)
		if c&cLetter == 0 {
			break
		}
		k += n
	}
	return k
}

// numbers returns the end of up to max more \p{N} at k.
func numbers(s string, k, max int) int {
	for ; max > 0 && k < len(s); max-- {
		_, n, c := decode(s, k)
		if c&cNumber == 0 {
			break
		}
		k += n
	}
	return k
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at e, or e if
// there is none there. Case-insensitive matching folds as Unicode simple
// case folding does, so 's also matches 'S and 'ſ (U+017F).
func (p splitter) contraction(s string, e int) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return e
	}
	is := func(k int, lower byte) bool { return k < len(s) && s[k]|0x20 == lower }
	k := e + 1
	switch {
	case is(k, 's'), is(k, 't'), is(k, 'm'), is(k, 'd'):
		return k + 1
	case is(k, 'r') && is(k+1, 'e'), is(k, 'v') && is(k+1, 'e'), is(k, 'l') && is(k+1, 'l'):
		return k + 2
	case !p.asciiCase && k+1 < len(s) && s[k] == 0xC5 && s[k+1] == 0xBF: // ſ
		return k + 2
	}
	return e
}

// punct matches ` ?[^\s\p{L}\p{N}]+` at i, followed by [\r\n/]* for
// o200k, [\r\n]* for cl100k and nothing for r50k.
func (p splitter) punct(s string, i int, r rune) int {
	j := i
	if r == ' ' {
		j++
	}
	k := j
	for k < len(s) {
		_, n, c := decode(s, k)
		if c&(p.space|cLetter|cNumber) != 0 {
			break
		}
		k += n
	}
	if k == j {
		return -1
	}
	if p.pattern == R50k {
		return k
	}
	for k < len(s) && (s[k] == '\r' || s[k] == '\n' || p.pattern == O200k && s[k] == '/') {
		k++
	}
	return k
}

// spaces matches \s*[\r\n]+ | \s+(?!\S) | \s+ at i.
func (p splitter) spaces(s string, i, n int) int {
	e, last, lastNewline, runes := i, i, -1, 0
	for e < len(s) {
		_, n, c := decode(s, e)
		if c&p.space == 0 {
			break
		}
		if c&cNewline != 0 {
			lastNewline = e
		}
		last = e
		e += n
		runes++
	}
	switch {
	case runes == 0:
		return i + n // not reached: every character is matched above
	case lastNewline >= 0 && p.pattern != R50k:
		return lastNewline + 1
	case e == len(s) || runes == 1:
		return e
	default:
		return last // leave the last space to the word after it
	}
}
