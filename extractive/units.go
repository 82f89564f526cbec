package extractive

import (
	"github.com/recapgo/recap/internal/keyitems"
	"strings"
)

// A unit is one candidate item of a summary: a sentence, or a clause of a
// long one, with who said it.
type unit struct {
	speaker string   // "User", "Assistant", "Tool", "System" or "Summary" (unlabelled previous summary text)
	text    string   // verbatim but for markdown other than bold, double quotes made single, on one line
	bold    []string // the spans of text in bold
	order   int      // position in the request: previous summary items first, then the messages
	piece   int      // the message or previous item it comes from: picked units of one piece in a row share an item
	gap     bool     // text of its piece was left out just before it: it cannot join the item before
	prev    bool     // from the previous summary
	last    bool     // from the last user message of the request
	missing bool     // states an item a first summary left out (SummarizeRequest.Missing)

	// Set by analyze.
	tokens  int                // of the rendered item, or 0 if it is never worth picking
	feats   []keyitems.Feature // what the unit says that a summary should keep
	words   []string           // content words, for coverage and duplicates
	cues    keyitems.Cue       // kinds of statement
	kind    section            // where it goes in the summary
	weight  float64            // who said it
	stale   map[int]bool       // indexes of feats a later correction replaced
	replace []string           // values this unit says are no longer true ("not X")
}

// splitUnits appends the units of one message's text, or of a piece of a
// previous summary, to us.
func splitUnits(us []unit, speaker, text string, order *int, piece int) []unit {
	inCode := false
	gap := true // nothing joins the previous piece
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			gap = true
			continue
		}
		if line == "" {
			continue
		}
		if inCode && len(line) > 200 || keyitems.IsData(line) {
			gap = true
			continue
		}
		clean, header := keyitems.CleanLine(line)
		if header || clean == "" {
			gap = true
			continue
		}
		for _, s := range keyitems.SplitSentences(clean) {
			for _, c := range keyitems.SplitLong(s) {
				// A sentence ending with a colon introduces what follows
				// ("Here is what to check:"); it says nothing by itself,
				// unless it states a number or stresses something ("I
				// suggest **15 December**:").
				if !keyitems.Substantial(c) || strings.HasSuffix(c, ":") && !keyitems.HasDigit(c) && !strings.Contains(c, "**") {
					gap = true
					continue
				}
				t := keyitems.TrimFiller(c)
				us = append(us, unit{speaker: speaker, text: t, bold: keyitems.BoldSpans(t), order: *order, piece: piece, gap: gap || t != c})
				gap = false
				*order++
			}
		}
	}
	return us
}
