package keyitems

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Feature is something specific a statement states: an identifier, a
// number with its unit, a name, a quoted title, a phrase its author put in
// bold.
type Feature struct {
	Kind  Kind
	Key   string // the value, normalized: what coverage and corrections compare
	Shape string // for numbers and identifiers, what kind of value it is ("$", "juillet", "bw-#"); "" if unknown
	Soft  bool   // a name in a language that capitalizes every noun: likely a common noun
}

// A Kind is a kind of Feature.
type Kind uint8

const (
	Ident  Kind = iota // letters and digits: BW-58213, pg-prod-2, B2
	Number             // a number with a unit, currency or month: $130, 19 juillet, 40万円
	Bare               // a number alone
	Name               // a capitalized word that is not a common one: Leo, Lidl, CSCW
	Quote              // a short quoted span: 'Nudges That Stick'
	Bold               // a short span in bold
)

// Weight is what keeping a feature is worth: identifiers, money, dates
// and times most, then shares, then quantities, then bare numbers.
func (f Feature) Weight() float64 {
	switch f.Kind {
	case Ident:
		return 2
	case Number:
		switch {
		case Money[f.Shape] || Months[f.Shape] || TimeUnits[f.Shape]:
			return 2
		case f.Shape == "%":
			return 1.5
		}
		return 1
	case Bare:
		if strings.Contains(f.Key, ":") {
			return 2 // 14:05
		}
		if len(f.Key) <= 2 {
			return 0.4
		}
		return 0.7
	case Name:
		if f.Soft {
			return 0.3
		}
		return 1
	default:
		return 1
	}
}

// Weekdays before a number make it a date: "Saturday 22", "sábado, 22".
var Weekdays = WordSet(`monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun
	lundi mardi mercredi jeudi vendredi samedi dimanche montag dienstag mittwoch donnerstag freitag samstag sonntag
	lunes martes miércoles jueves viernes sábado domingo lunedì martedì mercoledì giovedì venerdì sabato domenica
	segunda terça quarta quinta sexta` + " " + weekdaysMore)

// Money and timeUnits are the shapes of amounts and of dates and times.
var (
	Money = WordSet(`$ € £ ¥ ₩ k€ euro euros eur dollar dollars usd pound pounds gbp yen 円 万円 千円 億円 元 francs chf k m` +
		" " + moneyMore)
	TimeUnits = WordSet(`am pm h uhr heures hours hour days weeks months years day week month year jours semaines mois ans
		tage wochen monate jahre días semanas meses años giorni settimane mesi anni 日 月 時 分 週間 ヶ月 年 日目 日間 泊 歳
		monday tuesday wednesday thursday friday saturday sunday lundi mardi mercredi jeudi vendredi samedi dimanche
		montag dienstag mittwoch donnerstag freitag samstag sonntag lunes martes miércoles jueves viernes sábado domingo
		lunedì martedì mercoledì giovedì venerdì sabato domenica utc cet` + " " + timeUnitsMore + " " + weekdaysMore)
)

// A Token is a word of a unit: a run of letters and digits (with inner
// hyphens, dots, commas, colons, slashes and apostrophes), a run of CJK
// characters, or a currency or percent sign.
type Token struct {
	s       string
	initial bool // first word of the sentence
	cjk     bool
	apart   bool // something other than white space comes between the token before it and it: "€ × 8", "% = 68"
}

func Tokenize(s string) []Token {
	var out []Token
	initial := true
	apart := false // a rune other than white space since the last token
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case IsCJK(r):
			j := i
			for j < len(rs) && IsCJK(rs[j]) {
				j++
			}
			out = append(out, Token{s: string(rs[i:j]), cjk: true, apart: apart})
			i, apart = j, false
			initial = false
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			j := i + 1
			for j < len(rs) {
				c := rs[j]
				if (unicode.IsLetter(c) || unicode.IsNumber(c) || unicode.IsMark(c)) && !IsCJK(c) {
					j++
					continue
				}
				// Inner connectors: 4.12.3, 41,200, 14:05, BW-58213, don't, km/h.
				if j+1 < len(rs) && strings.ContainsRune("-.,:/'’", c) && (unicode.IsLetter(rs[j+1]) || unicode.IsNumber(rs[j+1])) && !IsCJK(rs[j+1]) {
					if (c == ',' || c == ':') && !(unicode.IsDigit(rs[j-1]) && unicode.IsDigit(rs[j+1])) {
						break
					}
					j += 2
					continue
				}
				break
			}
			out = append(out, Token{s: string(rs[i:j]), initial: initial, apart: apart})
			i, apart = j, false
			initial = false
		case strings.ContainsRune(unitSigns, r):
			out = append(out, Token{s: string(r), apart: apart})
			i, apart = i+1, false
		default:
			if strings.ContainsRune(".!?:;", r) {
				initial = true
			}
			if !unicode.IsSpace(r) {
				apart = true
			}
			i++
		}
	}
	return out
}

// OfWords join a day to its month: "15 de octubre".
var OfWords = WordSet(`of de del di do da`)

// Months name the months in the languages the cues cover, and in the
// other languages of calendar.go; a number before or after one is a
// date.
var Months = WordSet(`january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec
	janvier février mars avril mai juin juillet août septembre octobre novembre décembre
	januar februar märz juni juli oktober dezember
	enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
	gennaio febbraio aprile maggio giugno luglio agosto settembre ottobre dicembre` + " " + monthsMore)

// Features extracts what text states that a summary should keep. names
// reports whether a capitalized word is a name in this request (see
// nameWords).
func Features(text string, bold []string, names map[string]bool) (fs []Feature, words []string) {
	return FeaturesOf(text, Tokenize(text), bold, names)
}

// FeaturesOf is Features with the tokens of text already made (by
// Tokenize). It may join tokens of toks (thousands written with a space).
func FeaturesOf(text string, toks []Token, bold []string, names map[string]bool) (fs []Feature, words []string) {
	seen := map[string]bool{}
	add := func(f Feature) {
		if f.Key != "" && !seen[f.Key] {
			seen[f.Key] = true
			fs = append(fs, f)
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		lower := strings.ToLower(t.s)
		switch {
		case t.cjk:
			words = append(words, CJKBigrams(t.s)...)
			for _, n := range HonorificNames(t.s) {
				add(Feature{Kind: Name, Key: n})
			}
		case HasDigit(t.s) && HasLetter(t.s) && !Ordinal(lower):
			add(Feature{Kind: Ident, Key: lower, Shape: IDShape(lower)})
		case HasDigit(t.s):
			var f Feature
			f, i = numberAt(toks, i)
			add(f)
		case HasLetter(t.s):
			if names[t.s] && !(t.initial && !names["\x00"+t.s]) {
				add(Feature{Kind: Name, Key: lower, Soft: names[NounsKey] && strings.ToUpper(t.s) != t.s})
			}
			if !Stop[lower] && utf8.RuneCountInString(lower) >= 3 {
				words = append(words, lower)
			}
		}
	}
	for _, q := range Quoted(text) {
		add(Feature{Kind: Quote, Key: strings.ToLower(q)})
	}
	for _, b := range bold {
		if n := len(strings.Fields(b)); n >= 1 && n <= 8 {
			add(Feature{Kind: Bold, Key: strings.ToLower(b)})
		}
	}
	return fs, words
}

// numberAt reads the number that starts at toks[i] and returns it as a
// Feature (a zero Feature when the number continues in the next token)
// and the index of its last token.
func numberAt(toks []Token, i int) (Feature, int) {
	t := toks[i]
	// Thousands written with a space: 2 450 €, 3 000. The next token
	// carries the whole number.
	if IsDigits(t.s) && len(t.s) <= 3 && i+1 < len(toks) && IsDigits(toks[i+1].s) && len(toks[i+1].s) == 3 &&
		(i+2 >= len(toks) || !IsDigits(toks[i+2].s)) {
		toks[i+1].s = t.s + " " + toks[i+1].s
		return Feature{}, i
	}
	if f, j, ok := digitGroups(toks, i); ok {
		return f, j
	}
	key := strings.TrimRight(t.s, ".,")
	f := Feature{Kind: Bare, Key: key}
	if i > 0 && IsSymbol(toks[i-1].s) && !t.apart {
		f.Kind, f.Shape = Number, toks[i-1].s
		f.Key = toks[i-1].s + key
	} else if i > 0 && isCurrencyWord(toks[i-1]) {
		// A currency written before the amount: "Rp 5.000.000", "CHF 300".
		f.Kind, f.Shape = Number, strings.ToLower(toks[i-1].s)
		f.Key = f.Shape + " " + key
	} else if i > 0 && Months[strings.ToLower(toks[i-1].s)] && (i+1 >= len(toks) || !toks[i+1].cjk && !IsSymbol(toks[i+1].s)) {
		// "tháng 6 nhé", "March 14 deadline": the month makes it a
		// date, whatever word follows.
		f = asDate(f, key, toks, i)
	} else if i+1 < len(toks) {
		f = withUnit(f, key, toks[i+1])
	}
	if f.Kind == Bare {
		f = asDate(f, key, toks, i)
	}
	return f, i
}

// digitGroups reads a phone or account number written in groups of
// digits from toks[i] (912 448 107): an identifier, and the index of its
// last group. It reports false for fewer than three groups.
func digitGroups(toks []Token, i int) (Feature, int, bool) {
	j := i
	for j+1 < len(toks) && IsDigits(toks[j+1].s) && len(toks[j+1].s) >= 2 && len(toks[j+1].s) <= 5 && IsDigits(toks[j].s) && len(toks[j].s) >= 2 {
		j++
	}
	if j-i < 2 {
		return Feature{}, i, false
	}
	parts := make([]string, 0, j-i+1)
	for _, x := range toks[i : j+1] {
		parts = append(parts, x.s)
	}
	return Feature{Kind: Ident, Key: strings.Join(parts, " "), Shape: "phone"}, j, true
}

// withUnit returns the bare number f (of value key) with its unit when
// next is one: a CJK unit (40万円), a currency or percent sign, or a short
// word that is no common word (12 kW, 3 nights).
func withUnit(f Feature, key string, next Token) Feature {
	nl := strings.ToLower(next.s)
	switch {
	case next.cjk:
		f.Kind, f.Shape = Number, CJKUnit(next.s)
		f.Key = key + f.Shape
	case IsSymbol(next.s):
		f.Kind, f.Shape = Number, next.s
		f.Key = key + next.s
	case HasLetter(next.s) && !HasDigit(next.s) && utf8.RuneCountInString(next.s) <= 12 && !Stop[nl]:
		f.Kind, f.Shape = Number, nl
		f.Key = key + " " + nl
	}
	return f
}

// asDate returns the bare number f (of value key, at toks[i]) as a date
// when a month follows it through "of" ("15 de octubre", "14th of March",
// "21 di settembre") or a month or weekday precedes it.
func asDate(f Feature, key string, toks []Token, i int) Feature {
	if i+2 < len(toks) && OfWords[strings.ToLower(toks[i+1].s)] && Months[strings.ToLower(toks[i+2].s)] {
		f.Kind, f.Shape = Number, strings.ToLower(toks[i+2].s)
		f.Key = key + " " + f.Shape
		return f
	}
	if i > 0 && (Months[strings.ToLower(toks[i-1].s)] || Weekdays[strings.ToLower(toks[i-1].s)]) {
		f.Kind, f.Shape = Number, strings.ToLower(toks[i-1].s)
		f.Key = f.Shape + " " + key
	}
	return f
}

// NounsKey marks, in the set nameWords returns, a text whose nouns are
// all capitalized.
const NounsKey = "\x01nouns"

// NameWords returns the capitalized words of the texts that are names:
// capitalized where a sentence does not start, or never written in lower
// case, and not a common word. A word seen capitalized mid-sentence is
// also recorded with a leading NUL, so that it is a name at a sentence's
// start too.
func NameWords(texts [][]Token) map[string]bool {
	lower := map[string]bool{}
	capital := map[string]bool{}
	mid := map[string]bool{}
	midWords, midCapital := 0, 0
	for _, toks := range texts {
		for _, t := range toks {
			if t.cjk || HasDigit(t.s) {
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
		names[NounsKey] = true
	}
	for w := range capital {
		l := strings.ToLower(w)
		if Stop[l] || utf8.RuneCountInString(w) < 2 || lower[l] && !mid[w] {
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

// Quoted returns the short spans of s between quotation marks.
func Quoted(s string) []string {
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

func HasDigit(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func HasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func IsDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func IsSymbol(s string) bool { return len(s) <= 3 && strings.ContainsAny(s, unitSigns) }

// Ordinal reports whether w is a number with an ordinal or plural suffix
// (3rd, 2e, 1st, 4th, 1970s), which is a number rather than an identifier.
func Ordinal(w string) bool {
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

// IDShape is an identifier with its digits replaced: bw-58213 → bw-#.
func IDShape(w string) string {
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

// CJKUnit is what follows a number in CJK text: its first character, and
// the second if it is a Han character (日目, 万円), so that 3日 and 3日目
// differ.
func CJKUnit(s string) string {
	rs := []rune(s)
	if len(rs) >= 2 && unicode.Is(unicode.Han, rs[1]) {
		return string(rs[:2])
	}
	return string(rs[:1])
}

// CJKBigrams returns the pairs of adjacent characters of a CJK run: the
// "words" of a script written without spaces.
func CJKBigrams(s string) []string {
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

// isCurrencyWord reports whether t is a currency's name or code of two
// letters or more ("Rp", "CHF", "zł"), which an amount may follow.
func isCurrencyWord(t Token) bool {
	return !t.cjk && utf8.RuneCountInString(t.s) >= 2 && !HasDigit(t.s) && Money[strings.ToLower(t.s)]
}
