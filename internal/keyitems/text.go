package keyitems

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxUnitRunes bounds a statement; longer sentences are cut into clauses
// (see SplitLong).
const MaxUnitRunes = 220

// BoldSpans returns the spans of s between pairs of "**".
func BoldSpans(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "**")
		if i < 0 {
			return out
		}
		j := strings.Index(s[i+2:], "**")
		if j < 0 {
			return out
		}
		if b := strings.TrimSpace(s[i+2 : i+2+j]); b != "" {
			out = append(out, b)
		}
		s = s[i+2+j+2:]
	}
}

// IsData reports whether line is JSON, such as a tool call's input or
// output: data for a program, a poor quote. What matters in it is
// usually in the assistant's next words.
func IsData(line string) bool {
	if strings.HasPrefix(line, "[attachment") {
		return false
	}
	return (line[0] == '{' || line[0] == '[') && strings.ContainsAny(line[len(line)-1:], "}]") && strings.ContainsAny(line, ":,")
}

// CleanLine strips a line's markdown: list and quote markers, labels in
// bold, code ticks, table pipes. It keeps the "**" of other spans in bold:
// they are the author's emphasis, which counts (see featWeight), also when
// the line is quoted in a summary that becomes the previous one. It
// reports the line as a header (a heading, a line in bold alone, or a
// short line ending with a colon): a header says what follows, and is
// never a summary item by itself.
func CleanLine(line string) (clean string, header bool) {
	if strings.HasPrefix(line, "#") {
		return "", true
	}
	if strings.Trim(line, "-=*_|: ") == "" { // rules and table separators
		return "", true
	}
	line = TrimListMarker(line)
	if strings.HasPrefix(line, "|") { // a table row: cells become clauses
		cells := strings.FieldsFunc(line, func(r rune) bool { return r == '|' })
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		line = strings.Join(cells, "; ")
	}
	// A line that is all bold ("**Three quick rules**", "**What I need:**")
	// is a header.
	if t := strings.TrimRight(line, ":"); strings.HasPrefix(t, "**") && strings.HasSuffix(t, "**") && strings.Count(t, "**") == 2 {
		return "", true
	}
	// A label at the start of a line ("**Paid:** €649", "**Your deadline**
	// and how much is written") names what follows; it is not emphasis,
	// unless it is a number ("**3 to 5 days** with standard delivery").
	if strings.HasPrefix(line, "**") {
		if j := strings.Index(line[2:], "**"); j > 0 {
			span, rest := line[2:2+j], line[2+j+2:]
			if strings.HasSuffix(span, ":") || strings.HasPrefix(rest, ":") || !HasDigit(span) {
				line = span + rest
			}
		}
	}
	clean = Unquote.Replace(line)
	clean = strings.Join(strings.Fields(clean), " ")
	if strings.HasSuffix(clean, ":") && len(strings.Fields(clean)) <= 8 {
		return "", true
	}
	return clean, false
}

// Unquote removes code ticks and underscores of emphasis, and turns double
// quotes into single ones, so that a quoted item always ends its line.
var Unquote = strings.NewReplacer("`", "", "__", "", "\"", "'", "“", "'", "”", "'", "\t", " ")

// TrimListMarker removes a leading "- ", "* ", "• ", "> " or "12. ".
func TrimListMarker(line string) string {
	for {
		switch {
		case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "+ "), strings.HasPrefix(line, "> "):
			line = strings.TrimSpace(line[2:])
			continue
		case strings.HasPrefix(line, "• "):
			line = strings.TrimSpace(line[len("• "):])
			continue
		}
		i := 0
		for i < len(line) && i < 3 && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
			line = strings.TrimSpace(line[i+2:])
			continue
		}
		return line
	}
}

// fillers open a sentence without adding to it: "Hi, ...", "Yes: ...",
// "Okay, ...". They are cut from the start of a quote, which stays a
// verbatim substring.
var fillers = WordSet(`hi hello hey yes yeah yep ok okay sure great perfect thanks alright also and so oh well right cool
	bonjour salut oui merci super parfait d'accord bon alors et
	hallo hi ja danke okay gut super perfekt also und
	hola sí si vale gracias genial perfecto bueno y
	ciao sì grazie perfetto bene ok e
	olá sim obrigado obrigada ótimo`)

// TrimFiller removes filler words (and the punctuation after them) from
// the start of s, leaving at least four words.
func TrimFiller(s string) string {
	for {
		f := strings.Fields(s)
		if len(f) <= 4 {
			return s
		}
		w := strings.ToLower(strings.TrimRight(f[0], ",.:;!"))
		if !fillers[w] {
			return s
		}
		rest := strings.TrimLeft(strings.TrimSpace(s[len(f[0]):]), ",.:;!— ")
		r, _ := utf8.DecodeRuneInString(rest)
		if rest == "" || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return s
		}
		if unicode.IsLower(r) && !strings.ContainsAny(f[0], ",.:;!") {
			return s // "so he can't": part of the sentence
		}
		s = rest
	}
}

// abbreviations end with a period that does not end a sentence.
var abbreviations = WordSet(`dr mr mrs st mme mlle nr hr fr sr sra srta prof dept no vs approx ca bzw z.b e.g i.e etc p.ej ecc sig dott a.m p.m incl cf`)

// germanMonths follow an ordinal number: "am 17. Mai".
var germanMonths = WordSet(`januar februar märz april mai juni juli august september oktober november dezember jänner`)

// SplitSentences splits text at sentence ends: . ! ? … followed by a space
// (and not after an abbreviation, a single letter or an ordinal before a
// month, nor before a digit), and at 。！？.
func SplitSentences(text string) []string {
	var out []string
	emit := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	start := 0
	for i, r := range text {
		switch r {
		case '。', '！', '？':
			end := i + utf8.RuneLen(r)
			emit(text[start:end])
			start = end
		case '.', '!', '?', '…':
			end := i + utf8.RuneLen(r)
			if end < len(text) && text[end] != ' ' {
				continue
			}
			if end < len(text) && !boundary(text[start:i], r, text[end:]) {
				continue
			}
			emit(text[start:end])
			start = end
		}
	}
	emit(text[start:])
	return out
}

// boundary reports whether the punctuation r between before and after
// (which starts with a space) ends a sentence.
func boundary(before string, r rune, after string) bool {
	next, _ := utf8.DecodeRuneInString(strings.TrimLeft(after, " "))
	if unicode.IsDigit(next) && r == '.' {
		return false
	}
	if r != '.' {
		return true
	}
	w := before[strings.LastIndexAny(before, " (")+1:]
	if abbreviations[strings.ToLower(w)] || utf8.RuneCountInString(w) == 1 && unicode.IsLetter([]rune(w)[0]) {
		return false // "Dr. Halvorsen", "e.g. the", "M. Dupont"
	}
	if w != "" && strings.Trim(w, "0123456789") == "" && len(w) <= 2 {
		f := strings.Fields(after)
		if len(f) > 0 && germanMonths[strings.ToLower(strings.Trim(f[0], ",."))] {
			return false
		}
	}
	return true
}

// SplitLong cuts a sentence longer than maxUnitRunes at clause boundaries
// ("; ", ", ", "、") into pieces of at most about that length.
func SplitLong(s string) []string {
	if utf8.RuneCountInString(s) <= MaxUnitRunes {
		return []string{s}
	}
	var out []string
	for utf8.RuneCountInString(s) > MaxUnitRunes {
		cut := -1
		n := 0
		for i, r := range s {
			if n > MaxUnitRunes {
				break
			}
			n++
			if n < MaxUnitRunes/3 {
				continue
			}
			if (r == ';' || r == ',') && strings.HasPrefix(s[i+1:], " ") || r == '、' || r == '，' {
				cut = i + utf8.RuneLen(r)
			}
		}
		if cut < 0 {
			break
		}
		out = append(out, strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
	return append(out, s)
}

// Substantial reports whether s is more than a fragment: at least three
// words, or eight characters of a script written without spaces.
func Substantial(s string) bool {
	words, cjk := 0, 0
	in := false
	for _, r := range s {
		switch {
		case IsCJK(r):
			cjk++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				words++
			}
			in = true
		default:
			in = false
		}
	}
	return words >= 3 || cjk >= 8 || cjk >= 4 && words >= 1
}

func IsCJK(r rune) bool {
	if r < 0x1100 {
		return false // Latin, Greek, Cyrillic...: the common case, without table lookups
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func WordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
