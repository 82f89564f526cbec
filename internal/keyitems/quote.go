package keyitems

import "strings"

// QuoteAround returns the words of s around values (each found in s, case
// folded), with up to n words either side of each, each part as s writes
// it, the parts joined and cuts marked with "…" (a run of fewer than
// minCut words left out is kept: such a cut saves less than its mark
// costs); or s whole if a value is not found in it as it is written (a
// value read in another form), or if nothing would be cut.
func QuoteAround(s string, values []string, n, minCut int) string {
	lower := strings.ToLower(s)
	if len(lower) != len(s) {
		return s // folding changed byte offsets: no safe mapping
	}
	words := wordSpans(s)
	keep := make([]bool, len(words))
	for _, v := range values {
		at := strings.Index(lower, v)
		if at < 0 || v == "" {
			return s
		}
		for w, sp := range words {
			if sp[1] > at && sp[0] < at+len(v) {
				for k := max(w-n, 0); k <= min(w+n, len(words)-1); k++ {
					keep[k] = true
				}
			}
		}
	}
	keepShortCuts(keep, minCut)
	return joinKept(s, words, keep)
}

// wordSpans returns the byte offsets, start and end, of the words of s:
// the runs between spaces and tabs.
func wordSpans(s string) [][2]int {
	var words [][2]int
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if j > i {
			words = append(words, [2]int{i, j})
		}
		i = j
	}
	return words
}

// keepShortCuts keeps the runs of fewer than minCut words that keep
// leaves out: such a cut saves less than its mark costs.
func keepShortCuts(keep []bool, minCut int) {
	for w := 0; w < len(keep); {
		if keep[w] {
			w++
			continue
		}
		end := w
		for end < len(keep) && !keep[end] {
			end++
		}
		if end-w < minCut {
			for k := w; k < end; k++ {
				keep[k] = true
			}
		}
		w = end
	}
}

// joinKept returns the runs of the words of s that keep marks, each copied
// as s has it (its spaces included), joined and cut with "…"; or s if
// nothing, or everything, is kept.
func joinKept(s string, words [][2]int, keep []bool) string {
	var parts []string
	for w := 0; w < len(words); {
		if !keep[w] {
			w++
			continue
		}
		end := w
		for end+1 < len(words) && keep[end+1] {
			end++
		}
		parts = append(parts, s[words[w][0]:words[end][1]])
		w = end + 1
	}
	if len(parts) == 0 || len(parts) == 1 && keep[0] && keep[len(words)-1] {
		return s // nothing kept (no value is in a word), or nothing cut
	}
	out := strings.Join(parts, " … ")
	if !keep[0] {
		out = "… " + out
	}
	if !keep[len(words)-1] {
		out += " …"
	}
	return out
}
