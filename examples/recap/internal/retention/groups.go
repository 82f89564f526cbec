package retention

import (
	"fmt"
	"io"
	"sort"
)

// A Group is the facts of some of the chats, or of some kind, summed: the
// rows of [WriteGroupTable].
type Group struct {
	Name  string
	Chats int // chats with a fact in the group
	Facts int
	// Kept, Recent: facts the final payload holds, and recent-only in the
	// same tokens.
	Kept, Recent int
	// Asked are the facts the payload dropped that have a question;
	// Recalled, those Recall found.
	Asked, Recalled int
}

// Groups sums the facts of os by the chats' language (in the order of the
// languages' names, a chat without one under "?"), then by who stated them
// ("user", "assistant", then any other, in that order), then the corrected
// facts (those with a stale value). A language, speaker or kind no fact
// has gives no group.
func Groups(os []Outcome) []Group {
	byLang := map[string]*Group{}
	bySpeaker := map[string]*Group{}
	corrected := &Group{Name: "corrected (the newer value)"}
	last := map[*Group]int{} // the chat a group counted last, plus one: chats come in order
	add := func(g *Group, chat int, o Outcome, i int) {
		if last[g] != chat+1 {
			last[g] = chat + 1
			g.Chats++
		}
		g.Facts++
		switch {
		case o.Kept[i]:
			g.Kept++
		case o.Chat.Facts[i].Question != "":
			g.Asked++
			if o.Recalled[i] {
				g.Recalled++
			}
		}
		if o.Recent[i] {
			g.Recent++
		}
	}
	get := func(m map[string]*Group, name string) *Group {
		g, ok := m[name]
		if !ok {
			g = &Group{Name: name}
			m[name] = g
		}
		return g
	}
	for c, o := range os {
		if o.Proxy() {
			continue
		}
		lang := o.Chat.Language
		if lang == "" {
			lang = "?"
		}
		for i, f := range o.Chat.Facts {
			add(get(byLang, "language "+lang), c, o, i)
			add(get(bySpeaker, "stated by the "+f.By), c, o, i)
			if f.Stale != "" {
				add(corrected, c, o, i)
			}
		}
	}
	var out []Group
	langs := make([]string, 0, len(byLang))
	for name := range byLang {
		langs = append(langs, name)
	}
	sort.Strings(langs)
	for _, name := range langs {
		out = append(out, *byLang[name])
	}
	speakers := make([]string, 0, len(bySpeaker))
	for name := range bySpeaker {
		speakers = append(speakers, name)
	}
	rank := func(name string) int {
		switch name {
		case "stated by the user":
			return 0
		case "stated by the assistant":
			return 1
		}
		return 2
	}
	sort.Slice(speakers, func(a, b int) bool {
		ra, rb := rank(speakers[a]), rank(speakers[b])
		if ra != rb {
			return ra < rb
		}
		return speakers[a] < speakers[b]
	})
	for _, name := range speakers {
		out = append(out, *bySpeaker[name])
	}
	if corrected.Facts > 0 {
		out = append(out, *corrected)
	}
	return out
}

// WriteGroupTable writes [Groups] of os as a Markdown table: per group,
// its chats and facts, the facts the final payloads keep, recent-only in
// the same tokens, the dropped facts Recall finds (of those with a
// question), and the facts answerable (kept or recalled).
func WriteGroupTable(w io.Writer, os []Outcome) {
	fmt.Fprintf(w, "| group | chats | facts | recap | recent-only | recalled (top %d) | answerable |\n", RecallK)
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	for _, g := range Groups(os) {
		fmt.Fprintf(w, "| %s | %d | %d | %.0f%% (%d/%d) | %.0f%% | %d/%d | %.0f%% (%d/%d) |\n",
			g.Name, g.Chats, g.Facts, pct(g.Kept, g.Facts), g.Kept, g.Facts, pct(g.Recent, g.Facts),
			g.Recalled, g.Asked, pct(g.Kept+g.Recalled, g.Facts), g.Kept+g.Recalled, g.Facts)
	}
}

// pct is n as a percentage of of.
func pct(n, of int) float64 { return 100 * float64(n) / float64(max(of, 1)) }
