package retention

import (
	"regexp"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/keyitems"
)

// KeyItemsLabel says what KeyItems counts, for the tables.
const KeyItemsLabel = "key items (a proxy for facts: identifiers, numbers with their units, dates and times, quoted titles, URLs and e-mail addresses, read as recap's summary check reads them)"

// KeyItems returns the key items of what the user and the assistant say in
// msgs, each once, in the order they first appear, in lower case: the
// proxy for the facts of a chat without fact lines. They are identifiers
// (BW-58213, 4.12.3, INC-20931), numbers with their unit, currency or
// month (£21,400, 14 March, 12 kW), times and numbers of three digits or
// more, quoted titles, URLs and e-mail addresses, as the root module's
// internal/keyitems reads them for recap's summary check (its
// KeyItem.Kind identifier, number and title; names and statements are
// left out, being too loose to find again by their value). Tool outputs
// and the system prompt are left out, and so are the lines of JSON data
// (a tool call's input or output): the prompt is pinned, and what matters
// in a tool's data is in the words about it.
//
// A proxy, not facts: it counts every specific value alike, where a fact
// is what the user relies on later.
func KeyItems(msgs []recap.Message) []string {
	var items []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Role != recap.RoleUser && m.Role != recap.RoleAssistant {
			continue
		}
		for _, k := range textKeys(m.Text()) {
			if !seen[k] {
				seen[k] = true
				items = append(items, k)
			}
		}
	}
	return items
}

// itemsHeld reports, item by item, whether msgs holds it: the text of one
// of msgs contains it, or states it (reads as the same key).
func itemsHeld(items []string, msgs []recap.Message) []bool {
	text := strings.ToLower(transcript(msgs))
	keys := map[string]bool{}
	for _, k := range textKeys(transcript(msgs)) {
		keys[k] = true
	}
	out := make([]bool, len(items))
	for i, it := range items {
		out[i] = keys[it] || strings.Contains(text, it)
	}
	return out
}

// textKeys returns the key items of the lines of text that are not data:
// a tool call's JSON input or output is left out, as recap's summary
// check leaves it out (what matters in it is usually in the words about
// it).
func textKeys(text string) []string {
	var keys []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !keyitems.IsData(line) {
			keys = append(keys, itemKeys(line)...)
		}
	}
	return keys
}

// link matches a URL or an e-mail address.
var link = regexp.MustCompile(`https?://[^\s<>"')\]]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+`)

// itemKeys returns the key items of a line of text.
func itemKeys(text string) []string {
	var keys []string
	var links []string
	for _, l := range link.FindAllString(text, -1) {
		l = strings.ToLower(strings.TrimRight(l, ".,;:!?"))
		links = append(links, l)
		keys = append(keys, l)
	}
	feats, _ := keyitems.Features(text, nil, nil)
	for _, f := range feats {
		switch {
		case f.Kind == keyitems.Ident, f.Kind == keyitems.Number, f.Kind == keyitems.Quote:
		case f.Kind == keyitems.Bare && (strings.Contains(f.Key, ":") || len(digits(f.Key)) >= 3):
		default:
			continue
		}
		if !inAny(f.Key, links) {
			keys = append(keys, f.Key)
		}
	}
	return keys
}

func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

func inAny(key string, links []string) bool {
	for _, l := range links {
		if strings.Contains(l, key) {
			return true
		}
	}
	return false
}
