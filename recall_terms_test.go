package recap

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// terms returns the terms of text as "kind:term@span", prefixes and Han
// unigrams with their marks shown as "~" and "^".
func terms(text string) []string {
	var sc termScanner
	var out []string
	sc.scan(text, func(t []byte, kind termKind, start, end int) {
		s := strings.NewReplacer(prefixMark, "~", hanMark, "^").Replace(string(t))
		if text[start:end] != s && kind != kindPrefix && kind != kindHan {
			s += "@" + text[start:end]
		}
		out = append(out, s)
	})
	return out
}

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
		reason     string
	}{
		{"words", "The Quick, brown fox!", []string{"the@The", "quick@Quick", "~quick", "brown", "~brown", "fox"},
			"words are runs of letters, lower-cased; words of five letters or more add their prefix"},
		{"identifier", "Ticket INC-20931 closed.", []string{"ticket@Ticket", "~ticke", "inc@INC", "20931", "inc-20931@INC-20931", "closed", "~close"},
			"an identifier is a term besides its parts, and has no prefix"},
		{"version", "deployed 4.12.3.", []string{"deployed", "~deplo", "4", "12", "3", "4.12.3"},
			"a trailing connector is not part of an identifier"},
		{"email and path", "user@example.com /etc/hosts", []string{"user", "example", "~examp", "com", "user@example.com", "etc", "hosts", "~hosts", "etc/hosts"},
			"a leading connector is not part of an identifier"},
		{"digits have no prefix", "2024-25 abc12345", []string{"2024", "25", "2024-25", "abc12345"},
			"a word with digits is no stem"},
		{"diacritics", "Prüfung für Ça ÆSIR ſ İstanbul", []string{"prufung@Prüfung", "~prufu", "fur@für", "ca@Ça", "æsir@ÆSIR", "s@ſ", "istanbul@İstanbul", "~istan"},
			"Latin diacritics are removed, ligatures kept"},
		{"decomposed", "Pru\u0308fung", []string{"prufung@Pru\u0308fung", "~prufu"},
			"combining diacritics are dropped"},
		{"full width", "ＩＮＣ－２０９３１", []string{"inc@ＩＮＣ", "20931@２０９３１", "inc-20931@ＩＮＣ－２０９３１"},
			"full-width forms are read as ASCII"},
		{"greek final sigma", "ΟΔΟΣ οδος", []string{"οδοσ@ΟΔΟΣ", "οδοσ@οδος"},
			"a final sigma folds as a sigma"},
		{"japanese", "ホテルの予約", []string{"ホテ", "テル", "ルの", "の予", "^予", "予約", "^約"},
			"kana and Han give overlapping bigrams; Han characters also a unigram"},
		{"korean", "한국어 문서", []string{"한국", "국어", "문서"},
			"Hangul gives bigrams within a run"},
		{"mixed", "ID:東京2", []string{"id@ID", "^東", "東京", "^京", "2"},
			"a script change ends a word; a bigram run never joins an identifier"},
		{"apostrophe", "l'hôtel don’t", []string{"l", "hotel@hôtel", "~hotel", "l'hotel@l'hôtel", "don", "t", "don't@don’t"},
			"an apostrophe joins the words of an identifier"},
		{"invalid utf-8", "ab\xffcd", []string{"ab", "cd"},
			"invalid bytes separate words"},
		{"empty", " \n\t!?", nil, "no word, no term"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, terms(tc.text)); diff != "" {
				t.Errorf("%s\nterms of %q mismatch (-want +got):\n%s", tc.reason, tc.text, diff)
			}
		})
	}
}

func TestQueryTerms(t *testing.T) {
	got := queryTerms("Which version, which VERSION? 4.12.3")
	var texts []string
	var stops []bool
	for _, q := range got {
		texts = append(texts, strings.ReplaceAll(q.text, prefixMark, "~"))
		stops = append(stops, q.stop)
	}
	if diff := cmp.Diff([]string{"which", "~which", "version", "~versi", "4", "12", "3", "4.12.3"}, texts); diff != "" {
		t.Errorf("query terms mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, true, false, false, false, false, false, false}, stops); diff != "" {
		t.Errorf("stop marks mismatch (-want +got):\n%s", diff)
	}
	if got := queryTerms(" …!? "); len(got) != 0 {
		t.Errorf("queryTerms of punctuation = %v, want none", got)
	}
}

// TestLatinBase checks the folding table against the letters' names: the
// base letter of every Latin letter with a diacritic in U+00C0 to U+017F.
func TestLatinBase(t *testing.T) {
	if len(latinBase) != 0x180-0xC0 {
		t.Fatalf("latinBase has %d entries, want %d", len(latinBase), 0x180-0xC0)
	}
	for _, tc := range []struct{ in, want string }{
		{"ÀÁÂÃÄÅàáâãäåĀāĂăĄą", "aaaaaaaaaaaaaaaaaa"},
		{"ÇçĆćĈĉĊċČč", "cccccccccc"},
		{"ÐðĎďĐđ", "dddddd"},
		{"ÈÉÊËèéêëĒēĔĕĖėĘęĚě", "eeeeeeeeeeeeeeeeee"},
		{"ĜĝĞğĠġĢģ", "gggggggg"},
		{"ĤĥĦħ", "hhhh"},
		{"ÌÍÎÏìíîïĨĩĪīĬĭĮįİı", "iiiiiiiiiiiiiiiiii"},
		{"Ĵĵ", "jj"},
		{"Ķķĸ", "kkk"},
		{"ĹĺĻļĽľĿŀŁł", "llllllllll"},
		{"ÑñŃńŅņŇňŉ", "nnnnnnnnn"},
		{"ÒÓÔÕÖØòóôõöøŌōŎŏŐő", "oooooooooooooooooo"},
		{"ŔŕŖŗŘř", "rrrrrr"},
		{"ŚśŜŝŞşŠšſ", "sssssssss"},
		{"ŢţŤťŦŧ", "tttttt"},
		{"ÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲų", "uuuuuuuuuuuuuuuuuuuu"},
		{"Ŵŵ", "ww"},
		{"ÝýÿŶŷŸ", "yyyyyy"},
		{"ŹźŻżŽž", "zzzzzz"},
		{"ÆæÞþßĲĳŊŋŒœ", "ææþþßĳĳŋŋœœ"},
	} {
		var b []byte
		for _, r := range tc.in {
			b = fold(b, r)
		}
		if string(b) != tc.want {
			t.Errorf("fold(%q) = %q, want %q", tc.in, b, tc.want)
		}
	}
}
