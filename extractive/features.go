package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A feature is something specific a unit states: an identifier, a number
// with its unit, a name, a quoted title, a phrase its author put in bold.
type feature struct {
	kind  featKind
	key   string // the value, normalized: what coverage and corrections compare
	shape string // for numbers and identifiers, what kind of value it is ("$", "juillet", "bw-#"); "" if unknown
	soft  bool   // a name in a language that capitalizes every noun: likely a common noun
}

type featKind uint8

const (
	fIdent  featKind = iota // letters and digits: BW-58213, pg-prod-2, B2
	fNumber                 // a number with a unit, currency or month: $130, 19 juillet, 40万円
	fBare                   // a number alone
	fName                   // a capitalized word that is not a common one: Leo, Lidl, CSCW
	fQuote                  // a short quoted span: 'Nudges That Stick'
	fBold                   // a short span in bold
)

// weight is what keeping a feature is worth: identifiers, money, dates
// and times most, then shares, then quantities, then bare numbers.
func (f feature) weight() float64 {
	switch f.kind {
	case fIdent:
		return 2
	case fNumber:
		switch {
		case money[f.shape] || months[f.shape] || timeUnits[f.shape]:
			return 2
		case f.shape == "%":
			return 1.5
		}
		return 1
	case fBare:
		if strings.Contains(f.key, ":") {
			return 2 // 14:05
		}
		if len(f.key) <= 2 {
			return 0.4
		}
		return 0.7
	case fName:
		if f.soft {
			return 0.3
		}
		return 1
	default:
		return 1
	}
}

// weekdays before a number make it a date: "Saturday 22", "sábado, 22".
var weekdays = wordSet(`monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun
	lundi mardi mercredi jeudi vendredi samedi dimanche montag dienstag mittwoch donnerstag freitag samstag sonntag
	lunes martes miércoles jueves viernes sábado domingo lunedì martedì mercoledì giovedì venerdì sabato domenica
	segunda terça quarta quinta sexta`)

// money and timeUnits are the shapes of amounts and of dates and times.
var (
	money     = wordSet(`$ € £ ¥ ₩ k€ euro euros eur dollar dollars usd pound pounds gbp yen 円 万円 千円 億円 元 francs chf k m`)
	timeUnits = wordSet(`am pm h uhr heures hours hour days weeks months years day week month year jours semaines mois ans
		tage wochen monate jahre días semanas meses años giorni settimane mesi anni 日 月 時 分 週間 ヶ月 年 日目 日間 泊 歳
		monday tuesday wednesday thursday friday saturday sunday lundi mardi mercredi jeudi vendredi samedi dimanche
		montag dienstag mittwoch donnerstag freitag samstag sonntag lunes martes miércoles jueves viernes sábado domingo
		lunedì martedì mercoledì giovedì venerdì sabato domenica utc cet`)
)

// A token is a word of a unit: a run of letters and digits (with inner
// hyphens, dots, commas, colons, slashes and apostrophes), a run of CJK
// characters, or a currency or percent sign.
type token struct {
	s       string
	initial bool // first word of the sentence
	cjk     bool
}

func tokenize(s string) []token {
	var out []token
	initial := true
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case isCJK(r):
			j := i
			for j < len(rs) && isCJK(rs[j]) {
				j++
			}
			out = append(out, token{s: string(rs[i:j]), cjk: true})
			i = j
			initial = false
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			j := i + 1
			for j < len(rs) {
				c := rs[j]
				if (unicode.IsLetter(c) || unicode.IsNumber(c) || unicode.IsMark(c)) && !isCJK(c) {
					j++
					continue
				}
				// Inner connectors: 4.12.3, 41,200, 14:05, BW-58213, don't, km/h.
				if j+1 < len(rs) && strings.ContainsRune("-.,:/'’", c) && (unicode.IsLetter(rs[j+1]) || unicode.IsNumber(rs[j+1])) && !isCJK(rs[j+1]) {
					if (c == ',' || c == ':') && !(unicode.IsDigit(rs[j-1]) && unicode.IsDigit(rs[j+1])) {
						break
					}
					j += 2
					continue
				}
				break
			}
			out = append(out, token{s: string(rs[i:j]), initial: initial})
			i = j
			initial = false
		case strings.ContainsRune("$€£¥%₩", r):
			out = append(out, token{s: string(r)})
			i++
		default:
			if strings.ContainsRune(".!?:;", r) {
				initial = true
			}
			i++
		}
	}
	return out
}

// ofWords join a day to its month: "15 de octubre".
var ofWords = wordSet(`of de del di do da`)

// months name the months in the languages the cues cover; a number before
// or after one is a date.
var months = wordSet(`january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec
	janvier février mars avril mai juin juillet août septembre octobre novembre décembre
	januar februar märz juni juli oktober dezember
	enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
	gennaio febbraio aprile maggio giugno luglio agosto settembre ottobre dicembre`)

// features extracts what u states that a summary should keep. names
// reports whether a capitalized word is a name in this request (see
// nameWords).
func features(text string, bold []string, names map[string]bool) (fs []feature, words []string) {
	return featuresOf(text, tokenize(text), bold, names)
}

// featuresOf is features with the tokens of text already made.
func featuresOf(text string, toks []token, bold []string, names map[string]bool) (fs []feature, words []string) {
	seen := map[string]bool{}
	add := func(f feature) {
		if f.key != "" && !seen[f.key] {
			seen[f.key] = true
			fs = append(fs, f)
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		lower := strings.ToLower(t.s)
		switch {
		case t.cjk:
			for _, w := range cjkBigrams(t.s) {
				words = append(words, w)
			}
			continue
		case hasDigit(t.s) && hasLetter(t.s) && !ordinal(lower):
			add(feature{kind: fIdent, key: lower, shape: idShape(lower)})
			continue
		case hasDigit(t.s):
			key := strings.TrimRight(t.s, ".,")
			// Thousands written with a space: 2 450 €, 3 000.
			if isDigits(t.s) && len(t.s) <= 3 && i+1 < len(toks) && isDigits(toks[i+1].s) && len(toks[i+1].s) == 3 &&
				(i+2 >= len(toks) || !isDigits(toks[i+2].s)) {
				toks[i+1].s = t.s + " " + toks[i+1].s
				continue
			}
			// A phone or account number written in groups: 912 448 107.
			j := i
			for j+1 < len(toks) && isDigits(toks[j+1].s) && len(toks[j+1].s) >= 2 && len(toks[j+1].s) <= 5 && isDigits(toks[j].s) && len(toks[j].s) >= 2 {
				j++
			}
			if j-i >= 2 {
				parts := make([]string, 0, j-i+1)
				for _, x := range toks[i : j+1] {
					parts = append(parts, x.s)
				}
				add(feature{kind: fIdent, key: strings.Join(parts, " "), shape: "phone"})
				i = j
				continue
			}
			f := feature{kind: fBare, key: key}
			if i > 0 && isSymbol(toks[i-1].s) {
				f.kind, f.shape = fNumber, toks[i-1].s
				f.key = toks[i-1].s + key
			} else if i+1 < len(toks) {
				next := toks[i+1]
				nl := strings.ToLower(next.s)
				switch {
				case next.cjk:
					f.kind, f.shape = fNumber, cjkUnit(next.s)
					f.key = key + f.shape
				case isSymbol(next.s):
					f.kind, f.shape = fNumber, next.s
					f.key = key + next.s
				case hasLetter(next.s) && !hasDigit(next.s) && utf8.RuneCountInString(next.s) <= 12 && !stop[nl]:
					f.kind, f.shape = fNumber, nl
					f.key = key + " " + nl
				}
			}
			// "15 de octubre", "14th of March", "21 di settembre".
			if f.kind == fBare && i+2 < len(toks) && ofWords[strings.ToLower(toks[i+1].s)] && months[strings.ToLower(toks[i+2].s)] {
				f.kind, f.shape = fNumber, strings.ToLower(toks[i+2].s)
				f.key = key + " " + f.shape
			}
			if f.kind == fBare && i > 0 && (months[strings.ToLower(toks[i-1].s)] || weekdays[strings.ToLower(toks[i-1].s)]) {
				f.kind, f.shape = fNumber, strings.ToLower(toks[i-1].s)
				f.key = f.shape + " " + key
			}
			add(f)
			continue
		}
		if !hasLetter(t.s) {
			continue
		}
		if names[t.s] && !(t.initial && !names["\x00"+t.s]) {
			add(feature{kind: fName, key: lower, soft: names[nounsKey] && strings.ToUpper(t.s) != t.s})
		}
		if !stop[lower] && utf8.RuneCountInString(lower) >= 3 {
			words = append(words, lower)
		}
	}
	for _, q := range quoted(text) {
		add(feature{kind: fQuote, key: strings.ToLower(q)})
	}
	for _, b := range bold {
		if n := len(strings.Fields(b)); n >= 1 && n <= 8 {
			add(feature{kind: fBold, key: strings.ToLower(b)})
		}
	}
	return fs, words
}

// nounsKey marks, in the set nameWords returns, a text whose nouns are
// all capitalized.
const nounsKey = "\x01nouns"

// nameWords returns the capitalized words of the texts that are names:
// capitalized where a sentence does not start, or never written in lower
// case, and not a common word. A word seen capitalized mid-sentence is
// also recorded with a leading NUL, so that it is a name at a sentence's
// start too.
func nameWords(texts [][]token) map[string]bool {
	lower := map[string]bool{}
	capital := map[string]bool{}
	mid := map[string]bool{}
	midWords, midCapital := 0, 0
	for _, toks := range texts {
		for _, t := range toks {
			if t.cjk || hasDigit(t.s) {
				continue
			}
			r, _ := utf8.DecodeRuneInString(t.s)
			if !t.initial {
				midWords++
			}
			if unicode.IsUpper(r) {
				capital[t.s] = true
				if !t.initial {
					mid[t.s] = true
					midCapital++
				}
			} else {
				lower[t.s] = true
			}
		}
	}
	names := map[string]bool{}
	// In a language that capitalizes every noun (German), a capitalized
	// word is rarely a name: a fifth of the words inside sentences are.
	if midWords > 0 && float64(midCapital)/float64(midWords) > 0.2 {
		names[nounsKey] = true
	}
	for w := range capital {
		l := strings.ToLower(w)
		if stop[l] || utf8.RuneCountInString(w) < 2 || lower[l] && !mid[w] {
			continue
		}
		if lower[l] && strings.ToUpper(w) != w {
			continue // "Budget" at a sentence start and "budget" elsewhere
		}
		names[w] = true
		if mid[w] {
			names["\x00"+w] = true
		}
	}
	return names
}

// quoted returns the short spans of s between quotation marks.
func quoted(s string) []string {
	var out []string
	for _, p := range [][2]string{{"'", "'"}, {"«", "»"}, {"„", "“"}, {"「", "」"}, {"‘", "’"}} {
		rest := s
		for {
			i := strings.Index(rest, p[0])
			if i < 0 {
				break
			}
			if p[0] == "'" && i > 0 && !strings.ContainsRune(" (", rune(rest[i-1])) {
				rest = rest[i+1:]
				continue
			}
			j := strings.Index(rest[i+len(p[0]):], p[1])
			if j < 0 {
				break
			}
			q := strings.TrimSpace(rest[i+len(p[0]) : i+len(p[0])+j])
			end := i + len(p[0]) + j + len(p[1])
			if n := len(strings.Fields(q)); q != "" && n <= 8 && (n >= 1 || utf8.RuneCountInString(q) >= 2) {
				out = append(out, strings.Trim(q, " .,!?"))
			}
			rest = rest[end:]
		}
	}
	return out
}

func hasDigit(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func isSymbol(s string) bool { return len(s) <= 3 && strings.ContainsAny(s, "$€£¥%₩") }

// ordinal reports whether w is a number with an ordinal or plural suffix
// (3rd, 2e, 1st, 4th, 1970s), which is a number rather than an identifier.
func ordinal(w string) bool {
	i := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) })
	if i <= 0 {
		return false
	}
	switch w[i:] {
	case "st", "nd", "rd", "th", "e", "er", "re", "ème", "s", "º", "ª", "°", "h", "k", "m", "km", "kg", "cm", "mm", "ml", "g", "l", "min", "x", "am", "pm", "k€", "m²", "m³":
		return true
	}
	return false
}

// idShape is an identifier with its digits replaced: bw-58213 → bw-#.
func idShape(w string) string {
	var b strings.Builder
	digit := false
	for _, r := range w {
		if unicode.IsDigit(r) {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteRune(r)
	}
	return b.String()
}

// cjkUnit is what follows a number in CJK text: its first character, and
// the second if it is a Han character (日目, 万円), so that 3日 and 3日目
// differ.
func cjkUnit(s string) string {
	rs := []rune(s)
	if len(rs) >= 2 && unicode.Is(unicode.Han, rs[1]) {
		return string(rs[:2])
	}
	return string(rs[:1])
}

// cjkBigrams returns the pairs of adjacent characters of a CJK run: the
// "words" of a script written without spaces.
func cjkBigrams(s string) []string {
	rs := []rune(s)
	if len(rs) < 2 {
		return nil
	}
	out := make([]string, 0, len(rs)-1)
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, string(rs[i:i+2]))
	}
	return out
}
