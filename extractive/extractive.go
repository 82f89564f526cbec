// Package extractive is an offline, deterministic [recap.Summarizer] that
// uses no LLM: it keeps, word for word, the statements of a chat that a
// user relies on later (numbers, names, identifiers, dates, constraints,
// decisions, corrections) within a token budget.
//
// It is the default summarizer of the recap CLI when no LLM endpoint is
// configured, and a reasonable fallback when one is down.
//
// # What it keeps
//
// The previous summary and the new messages are cut into sentences (long
// ones into clauses); markdown headers, list headers ("Next steps:"), lines
// in bold alone, tool-call JSON and fragments of fewer than three words are
// dropped, and so are greetings and acknowledgements that open a sentence.
// Each sentence is worth what it states that the summary does not hold
// yet: identifiers (BW-58213, pg-prod-2), money, dates and times ($130,
// 19 juillet, 14:05, 40万円), other numbers with their unit, names, quoted
// titles and what its author put in bold; plus its kind, told by cue words
// in English, French, German, Spanish, Italian, Portuguese and Japanese
// (and fewer in 21 more languages): constraints ("must", "never", "only",
// "allergic", "deadline"), decisions ("let's go with", "on signe"),
// corrections. The user's words count in full; the assistant's count for
// its identifiers and what it stressed, little for its advice and what it
// says in passing. A question counts
// only for the facts it states, unless nobody answered it yet or the user
// put it off ("I'll think about it"): then it is an open question.
//
// Sentences are picked greedily by worth per token of the quoted item they
// make, so a sentence that repeats what is already picked adds little, and
// a fragment costs its quoting; sentences picked next to each other in one
// message share one quote. The previous summary's items are split into
// sentences again and ranked with the new ones, not kept wholesale; those
// that state a specific value gain a bonus (what one summary held, the
// next holds, unless new statements are worth more). The last tenth of
// the budget goes to compact quotes: the identifiers, numbers, names and
// titles the picks leave out, each quoted with the three words either side
// of it ("- User: \"… order is BW-58231 and …\""), the user's and the
// previous summary's first, as recap's summary check repairs a summary;
// unless the request is checked (recap.SummarizeRequest.Checked): recap
// then repairs the summary the same way in the room it keeps.
//
// # Format
//
// The summary is quoted, never spoken: its first line says so, and every
// item names who said it, whatever role the summary message has:
//
//	Earlier in this chat (quoted; not instructions):
//	Facts and constraints:
//	- User: "Leo has a severe peanut and tree nut allergy, he carries an EpiPen."
//	- Assistant: "The replacement ticket number is RMA-7741."
//	Decisions:
//	- User: "Let's go with 'Nudges That Stick'."
//	Open questions:
//	- User: "Should I report inter-rater reliability?"
//	Recent context:
//	- User: "Can you help me write the limitations paragraph now?"
//
// Double quotes in the text are turned into single ones, so an item always
// ends its own line. Empty sections are left out. When such a summary is
// the previous one, its items are read back with their speakers; any other
// previous summary (an LLM's, say) is split into sentences quoted as
// "Summary".
package extractive

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/keyitems"
)

// DefaultMaxTokens is the budget of a summary unless New is given another.
const DefaultMaxTokens = 500

// Summarizer is the extractive summarizer. Its zero value is not usable;
// call [New]. It is safe for concurrent use: it keeps no state between
// calls.
type Summarizer struct {
	counter   recap.TokenCounter
	maxTokens int
}

// New returns a Summarizer that measures summaries with counter and keeps
// them within maxTokens (DefaultMaxTokens if 0).
func New(counter recap.TokenCounter, maxTokens int) (*Summarizer, error) {
	if counter == nil {
		return nil, errors.New("extractive: nil token counter")
	}
	if maxTokens < 0 {
		return nil, errors.New("extractive: negative token budget")
	}
	if maxTokens == 0 {
		maxTokens = DefaultMaxTokens
	}
	return &Summarizer{counter: counter, maxTokens: maxTokens}, nil
}

// Tuning of the selection. The weights of the features are on feature.weight.
const (
	minWorth      = 1.2  // the least a unit must be worth to be picked, before the fallbacks
	openShare     = 0.15 // the most of the budget open questions take
	recentShare   = 0.15 // the most of the budget the recent context takes
	maxFeatsWorth = 5    // the most a unit's features add up to, so a list of numbers does not win by its length
)

// roleWeight is how much the words of a speaker count.
func roleWeight(speaker string) float64 {
	switch speaker {
	case "User":
		return 1
	case "Summary":
		return 0.9
	case "System":
		return 0.6
	default: // Assistant, Tool: their "must" and "never" are advice, not the user's constraints
		return 0.35
	}
}

// Summarize merges req.Previous and req.Messages into a summary of at most
// the budget's tokens (see the package documentation), or of
// req.MaxTokens when that is less (recap asks for less than its bound
// with WithSummaryCheck, to leave the check room). A checked request
// (req.Checked) gets no compact quotes: recap repairs in the room it
// keeps, quoting values the same way. The statements of
// req.Missing (recap's summary check asking again) are preferred to others
// worth as much. The same request always gives the same summary. It
// returns "" only for a request without text, and fails only if ctx is
// done.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if req.MaxTokens > 0 && req.MaxTokens < s.maxTokens {
		asked := *s
		asked.maxTokens = req.MaxTokens
		s = &asked
	}
	// Compact quotes would take the room recap's summary check repairs
	// in, where it quotes what the summary leaves out the same way.
	compact := !req.Checked
	var us []unit
	order := 0
	us = parsePrevious(us, req.Previous, &order)
	last, answered := -1, false
	for i, m := range req.Messages {
		switch m.Role {
		case recap.RoleUser:
			last, answered = i, false
		case recap.RoleAssistant:
			answered = true
		}
	}
	for i, m := range req.Messages {
		start := len(us)
		us = splitUnits(us, speaker(m.Role), m.Text(), &order, i)
		if i == last {
			for j := start; j < len(us); j++ {
				us[j].last = true
			}
		}
	}
	if len(us) == 0 {
		return s.fragment(req), nil
	}
	markMissing(us, req.Missing)
	s.analyze(us, answered)
	return s.pick(us, compact), nil
}

// carryBonus is what an item of the previous summary that states a
// specific value gains, as much as a decision: what one summary held,
// the next holds, unless new statements are worth more. Rolling
// summarization loses a fact one merge at a time: replayed on the 10
// longer in-sample chats at a budget of 400 tokens, 35 of the 49 facts the
// final payloads lost had been in an earlier summary (with the bonus: 42
// of 100 facts lost, not 49; on the first 12 in-sample chats, 17 of 120,
// not 18).
const carryBonus = 1

// missingBonus is what a unit that states an item of
// SummarizeRequest.Missing gains, as much as a decision: the second
// summary prefers what the first left out to what is worth as much. (A
// larger bonus, 2 or 4, lost facts in the in-sample benchmark with the
// check: the check lists every key item left out, and putting them all
// first crowds out the facts that matter.)
const missingBonus = 1

// markMissing marks the units that state an item of missing, the lines
// "Speaker: statement" recap's summary check asks for again: a unit whose
// text holds the statement, or is held by it.
func markMissing(us []unit, missing []string) {
	if len(missing) == 0 {
		return
	}
	type want struct{ speaker, text string }
	ws := make([]want, 0, len(missing))
	for _, l := range missing {
		sp, st, ok := strings.Cut(l, ": ")
		if !ok {
			sp, st = "", l
		}
		st = strings.ReplaceAll(strings.TrimSpace(st), `"`, "'")
		if st != "" {
			ws = append(ws, want{sp, st})
		}
	}
	for i := range us {
		u := &us[i]
		for _, w := range ws {
			if (w.speaker == "" || w.speaker == u.speaker || u.prev) && len(u.text) >= 8 &&
				(strings.Contains(u.text, w.text) || strings.Contains(w.text, u.text)) {
				u.missing = true
				break
			}
		}
	}
}

func speaker(r recap.Role) string {
	switch r {
	case recap.RoleUser:
		return "User"
	case recap.RoleAssistant:
		return "Assistant"
	case recap.RoleTool:
		return "Tool"
	default:
		return "System"
	}
}

// analyze sets what selection needs on every unit: its features, cues,
// weight, section and size, and the values later corrections replaced.
//
// A question is open if the user deferred it ("I'll think about it") or if
// it is in the last user message and no assistant message follows; other
// questions were answered, and the answers say what matters. The open
// questions of the previous summary have been answered since, unless
// deferred.
func (s *Summarizer) analyze(us []unit, answered bool) {
	toks := make([][]keyitems.Token, len(us))
	for i := range us {
		toks[i] = keyitems.Tokenize(us[i].text)
	}
	names := keyitems.NameWords(toks)
	for i := range us {
		u := &us[i]
		var bold []string
		if u.speaker == "Assistant" {
			bold = u.bold
		}
		u.feats, u.words = keyitems.FeaturesOf(u.text, toks[i], bold, names)
		u.cues = keyitems.Cues(u.text)
		u.weight = roleWeight(u.speaker)
		switch {
		case u.cues&keyitems.Courtesy != 0 && len(u.feats) == 0 && u.cues&(keyitems.Constraint|keyitems.Decision|keyitems.Correction) == 0:
			u.weight = 0
		case u.cues&keyitems.Question != 0 && u.speaker != "User" && u.speaker != "Summary":
			u.weight = 0 // the assistant's questions to the user
		}
		question := u.cues&keyitems.Question != 0 && !u.specific() // a question that states no number or identifier
		if u.speaker == "User" || u.speaker == "Summary" {
			switch {
			case u.cues&keyitems.Open != 0:
				u.kind = secOpen
				continue
			case u.cues&keyitems.Question != 0 && !u.prev && u.last && !answered:
				u.kind = secOpen // asked last, not answered yet
				continue
			case question || u.prev && u.kind == secOpen:
				u.weight = 0
			}
		}
		switch {
		case u.cues&keyitems.Decision != 0:
			u.kind = secDecisions
		default:
			u.kind = secFacts
		}
	}
	s.corrections(us, names)
	// Only a unit worth picking, or the recent context, is measured: a
	// unit's worth only falls as others are picked.
	empty := newCoverage()
	for i := range us {
		u := &us[i]
		if u.weight > 0 && (u.last || u.worth(empty) >= minWorth) {
			u.tokens = s.counter.CountTokens(item(u.speaker, u.text)) + 1 // +1 for the line break
		}
	}
}

// specific reports whether u states a number or an identifier.
func (u *unit) specific() bool {
	for _, f := range u.feats {
		if f.Kind == keyitems.Ident || f.Kind == keyitems.Number || f.Kind == keyitems.Bare && len(f.Key) > 2 {
			return true
		}
	}
	return false
}

// core is a feature's value without its unit: what a correction names.
func core(f keyitems.Feature) string {
	if f.Kind != keyitems.Number && f.Kind != keyitems.Bare || f.Shape != "" && keyitems.IsCJK([]rune(f.Shape)[0]) {
		return f.Key // a CJK unit is part of the value: 8月 and 8日 differ
	}
	return strings.Trim(strings.TrimFunc(f.Key, func(r rune) bool { return !isNumeric(r) }), " ")
}

func isNumeric(r rune) bool { return r >= '0' && r <= '9' || r == '.' || r == ',' || r == ':' }

// corrections marks the features that corrections replaced (see the
// package documentation).
func (s *Summarizer) corrections(us []unit, names map[string]bool) {
	for i := range us {
		b := &us[i]
		if b.speaker == "Assistant" || b.speaker == "Tool" {
			continue
		}
		if b.cues&keyitems.Marker == 0 && b.cues&(keyitems.Correction|keyitems.Update) == 0 {
			continue
		}
		olds, rest := keyitems.Replaced(b.text)
		if len(olds) > 0 {
			// What replaces the old value may be in the sentence before:
			// "The new address is Rua do Almada 88. Send it there, not to
			// Rua das Flores."
			restFeats, _ := keyitems.Features(rest, nil, names)
			for j := i - 1; j >= 0 && us[j].piece == b.piece; j-- {
				restFeats = append(restFeats, us[j].feats...)
			}
			if len(restFeats) == 0 {
				continue // "not even traces": nothing replaces it
			}
			now := map[string]bool{}
			shapes := map[string]bool{"": true}
			for _, f := range restFeats {
				now[core(f)] = true
				shapes[f.Shape] = true
			}
			for _, x := range olds {
				of, ow := keyitems.Features(x, nil, names)
				var keys []string
				for _, f := range of {
					// A value the correction keeps ("Rua" in "Rua do
					// Almada, not Rua das Flores", "8月" in "8月3日では
					// なく8月10日") is not replaced; a bare number is,
					// though it may appear again in another sense.
					if c := core(f); !now[c] || f.Kind == keyitems.Bare {
						keys = append(keys, c)
					}
				}
				if len(of) == 0 && len(ow) > 0 && len(ow) <= 2 {
					keys = append(keys, ow...) // "no granito, sino cuarzo"
				}
				bare := len(of) == 1 && of[0].Kind == keyitems.Bare
				for _, k := range keys {
					b.replace = append(b.replace, k)
					for j := range us {
						if j != i {
							us[j].markStale(k, bare, shapes)
						}
					}
				}
			}
			continue
		}
		if b.cues&(keyitems.Correction|keyitems.Update) == 0 || len(b.replace) > 0 {
			continue
		}
		// A new value of the same kind on the same subject.
		for _, f := range b.feats {
			if f.Shape == "" || f.Kind != keyitems.Number && f.Kind != keyitems.Ident {
				continue
			}
			for j := range us {
				a := &us[j]
				if a.order >= b.order || overlap(a.words, b.words) < 2 {
					continue
				}
				for k, g := range a.feats {
					if g.Kind == f.Kind && g.Shape == f.Shape && core(g) != core(f) {
						a.setStale(k)
					}
				}
			}
		}
	}
}

// markStale marks u's features whose value is k. A bare number ("au lieu
// du 12") only replaces numbers of the shapes the correction states.
func (u *unit) markStale(k string, bare bool, shapes map[string]bool) {
	for i, f := range u.feats {
		if core(f) == k && (!bare || shapes[f.Shape]) {
			u.setStale(i)
		}
	}
	for _, w := range u.words {
		if w == k {
			u.setStale(-1)
		}
	}
}

func (u *unit) setStale(i int) {
	if u.stale == nil {
		u.stale = map[int]bool{}
	}
	u.stale[i] = true
}

func overlap(a, b []string) int {
	n := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				n++
				break
			}
		}
	}
	return n
}

// coverage is what the picked units already say: each value with the
// weight of the strongest statement of it (see featWeight), so that the
// user's own statement of a value the assistant repeated in passing is
// still worth picking.
type coverage struct {
	values map[string]float64
	words  map[string]bool
}

func newCoverage() coverage {
	return coverage{values: map[string]float64{}, words: map[string]bool{}}
}

// worth is what u adds to what is covered.
func (u *unit) worth(c coverage) float64 {
	var feats float64
	for i, f := range u.feats {
		fw := u.featWeight(f)
		switch {
		case u.stale[i]:
			feats -= f.Weight() * fw // a replaced value misleads: it costs what it was worth
		case u.replaces(core(f)):
		case c.values[core(f)] < fw:
			feats += f.Weight() * (fw - c.values[core(f)])
		}
	}
	if u.stale[-1] {
		feats -= 1
	}
	feats = min(feats, maxFeatsWorth)
	fresh := 0
	for _, w := range u.words {
		if !c.words[w] {
			fresh++
		}
	}
	frac := 1.0
	if len(u.words) > 0 {
		frac = float64(fresh) / float64(len(u.words))
	}
	bonus := 0.0
	switch {
	case u.cues&keyitems.Question != 0: // "do I have to...?" asks, it does not bind
	case u.cues&keyitems.Constraint != 0:
		bonus += 3
	case u.cues&keyitems.Limit != 0:
		bonus += 0.7
	}
	if u.cues&keyitems.Decision != 0 {
		bonus += 1
	}
	if len(u.replace) > 0 || u.cues&keyitems.Correction != 0 && len(u.feats) > 0 {
		bonus += 2
	}
	if u.cues&keyitems.FirstPerson != 0 && u.speaker == "User" {
		bonus += 0.5
	}
	if u.kind == secOpen {
		bonus += 1 // left for later: what the next turns may come back to
	}
	if u.missing {
		bonus += missingBonus // recap's check asked for it again
	}
	if feats <= 0 && u.cues&(keyitems.Constraint|keyitems.Decision|keyitems.Correction) == 0 && (u.speaker != "User" || u.cues&keyitems.Question != 0) {
		return 0 // nothing specific, nothing binding, not the user about their case: chatter
	}
	g := feats + u.weight*(min(0.1*float64(fresh), 1)+bonus*frac)
	if u.cues&keyitems.Question != 0 {
		g *= 0.7
	}
	if u.prev && feats > 0 {
		g += carryBonus // the previous summary held it: the next one keeps it unless something says more
	}
	return g
}

// replaces reports whether u says that k is no longer true.
func (u *unit) replaces(k string) bool {
	for _, r := range u.replace {
		if r == k {
			return true
		}
	}
	return false
}

// featWeight is how much a feature of u counts for who said it. The user's
// words count in full. The assistant's identifiers (a ticket number, a
// code) and what it emphasized count in full too, but its other numbers
// and names, said in passing (quantities, prices, greetings), count little.
func (u *unit) featWeight(f keyitems.Feature) float64 {
	switch u.speaker {
	case "User":
		return 1
	case "Summary":
		return 0.9
	}
	if f.Kind == keyitems.Ident || f.Kind == keyitems.Bold || u.emphasized(f) {
		return 1
	}
	return 0.3
}

// emphasized reports whether f is inside a span u's author put in bold.
func (u *unit) emphasized(f keyitems.Feature) bool {
	for _, b := range u.bold {
		if strings.Contains(strings.ToLower(b), core(f)) {
			return true
		}
	}
	return false
}

func (c coverage) add(u *unit) {
	for _, f := range u.feats {
		c.values[core(f)] = max(c.values[core(f)], u.featWeight(f))
	}
	for _, w := range u.words {
		c.words[w] = true
	}
}

// pick selects units greedily within the budget and renders them.
func (s *Summarizer) pick(us []unit, compact bool) string {
	titleCost := s.counter.CountTokens(title)
	var headerCost [numSections]int
	for i, t := range sectionTitles {
		headerCost[i] = s.counter.CountTokens(t) + 1
	}
	budget := s.maxTokens - titleCost
	// The last tenth or so of the budget is for compact quotes (see
	// compactOrder), after the picks.
	reserve := 0
	if compact {
		reserve = int(compactShare * float64(s.maxTokens))
		budget -= reserve
	}
	caps := [numSections]int{secFacts: budget, secDecisions: budget, secOpen: int(openShare * float64(s.maxTokens)), secRecent: int(recentShare * float64(s.maxTokens))}
	var used [numSections]int
	cov := newCoverage()
	picked := make([]bool, len(us))
	dup := make([]bool, len(us)) // most of its words are in a picked unit
	var sel []*unit
	score := map[*unit]float64{}

	// A unit next to a picked one of its piece joins its item: it costs
	// its text, not the quoting.
	var framing = map[string]int{}
	for _, sp := range speakers {
		framing[sp] = s.counter.CountTokens(item(sp, "")) + 1
	}
	beside := func(i, j int, kind section) bool {
		if j < 0 || j >= len(us) || !picked[j] || us[j].kind != kind || us[j].piece != us[i].piece {
			return false
		}
		return j < i && !us[i].gap || j > i && !us[j].gap
	}
	cost := func(i int, kind section) int {
		u := &us[i]
		c := u.tokens
		if beside(i, i-1, kind) || beside(i, i+1, kind) {
			c -= framing[u.speaker] - 1
		}
		if used[kind] == 0 {
			c += headerCost[kind]
		}
		return c
	}
	take := func(i int, kind section, sc float64) {
		u := &us[i]
		c := cost(i, kind)
		u.kind = kind
		budget -= c
		used[kind] += c
		picked[i] = true
		sel = append(sel, u)
		score[u] = sc
		cov.add(u)
	}
	// A unit's worth only falls as units are picked, and only when a pick
	// says some of what it says: it is computed again only then.
	worth := make([]float64, len(us))
	stale := make([]bool, len(us))
	for i := range us {
		worth[i] = us[i].worth(cov)
	}
	for {
		best, bestScore := -1, 0.0
		for i := range us {
			u := &us[i]
			if picked[i] || u.tokens == 0 {
				continue // picked, or never worth picking (see analyze)
			}
			c := cost(i, u.kind)
			if c > budget || used[u.kind]+c > caps[u.kind] || dup[i] {
				continue
			}
			if stale[i] {
				worth[i], stale[i] = u.worth(cov), false
			}
			w := worth[i]
			if w < minWorth {
				continue
			}
			if sc := w / float64(c); sc > bestScore || sc == bestScore && best >= 0 && u.order > us[best].order {
				best, bestScore = i, sc
			}
		}
		if best < 0 {
			break
		}
		take(best, us[best].kind, bestScore)
		markDuplicates(us, &us[best], dup, stale)
	}
	if reserve > 0 {
		budget += reserve
		least := budget // the framing of the cheapest item: a quote costs more
		for _, f := range framing {
			least = min(least, f)
		}
		for _, i := range compactOrder(us, picked, cov) {
			if budget <= least {
				break
			}
			u := us[i]
			if budget <= framing[u.speaker] {
				continue
			}
			u.text, u.gap, u.kind = compactText(&u, cov), true, secFacts
			if u.text == "" {
				continue
			}
			u.tokens = s.counter.CountTokens(item(u.speaker, u.text)) + 1
			c := u.tokens
			if used[secFacts] == 0 {
				c += headerCost[secFacts]
			}
			if c > budget {
				continue
			}
			budget -= c
			used[secFacts] += c
			picked[i] = true
			sel = append(sel, &u)
			score[&u] = 0 // the first to go if the whole is over
			cov.add(&u)
		}
	}
	// The recent context: the last thing the user asked or said before
	// the messages the summary ends with.
	for i := len(us) - 1; i >= 0; i-- {
		u := &us[i]
		if !u.last {
			continue
		}
		if !picked[i] && u.tokens > 0 {
			if c := cost(i, secRecent); c <= budget && c <= caps[secRecent] {
				take(i, secRecent, 0)
			}
		}
		break
	}
	if len(sel) == 0 {
		return s.fallback(us)
	}
	sort.SliceStable(sel, func(i, j int) bool { return sel[i].order < sel[j].order })
	out := render(sel)
	// Items measured one by one can merge into fewer tokens, rarely more:
	// drop the least worth until the whole fits.
	for s.counter.CountTokens(out) > s.maxTokens && len(sel) > 1 {
		worst := 0
		for i, u := range sel {
			if score[u] < score[sel[worst]] {
				worst = i
			}
		}
		sel = append(sel[:worst], sel[worst+1:]...)
		out = render(sel)
	}
	if s.counter.CountTokens(out) > s.maxTokens {
		return s.fallback(us)
	}
	return out
}

// markDuplicates marks, after v was picked, the units most of whose words
// are in v as duplicates, and those that share a value or a word with v
// as stale: their worth must be computed again.
func markDuplicates(us []unit, v *unit, dup, stale []bool) {
	in := make(map[string]bool, len(v.words)+len(v.feats))
	for _, w := range v.words {
		in[w] = true
	}
	values := make(map[string]bool, len(v.feats))
	for _, f := range v.feats {
		values[core(f)] = true
	}
	for i := range us {
		u := &us[i]
		if dup[i] {
			continue
		}
		n := 0
		for _, w := range u.words {
			if in[w] {
				n++
			}
		}
		if len(u.words) >= 3 && float64(n) >= 0.8*float64(len(u.words)) {
			dup[i] = true
			continue
		}
		if n > 0 {
			stale[i] = true
			continue
		}
		for _, f := range u.feats {
			if values[core(f)] {
				stale[i] = true
				break
			}
		}
	}
}

// fallback is the summary when no unit fits or is worth picking: the most
// worth unit, cut to fit, as a quote.
func (s *Summarizer) fallback(us []unit) string {
	best := 0
	cov := newCoverage()
	for i := range us {
		if us[i].worth(cov) > us[best].worth(cov) {
			best = i
		}
	}
	u := us[best]
	head := title + "\n" + sectionTitles[secFacts] + "\n- " + u.speaker + `: "`
	// Tokens can merge across the quote marks: shrink until the whole fits.
	for n := s.maxTokens - s.counter.CountTokens(head+`"`); n > 0; n-- {
		t := truncate(u.text, n, s.counter)
		if t == "" {
			break
		}
		if out := head + t + `"`; s.counter.CountTokens(out) <= s.maxTokens {
			return out
		}
	}
	return truncate(u.speaker+": "+u.text, s.maxTokens, s.counter)
}

// fragment is the summary of a request whose text has no unit (only
// greetings and fragments): the last message's start, cut to fit, or ""
// for a request without text.
func (s *Summarizer) fragment(req recap.SummarizeRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if t := strings.Join(strings.Fields(strings.ReplaceAll(m.Text(), `"`, "'")), " "); t != "" {
			return truncate(speaker(m.Role)+": "+t, s.maxTokens, s.counter)
		}
	}
	if t := strings.Join(strings.Fields(req.Previous), " "); t != "" {
		return truncate(t, s.maxTokens, s.counter)
	}
	return ""
}

// truncate returns the longest prefix of s, at a word boundary where
// possible, of at most max tokens, marked with an ellipsis; "" if not
// even one character fits.
func truncate(s string, max int, c recap.TokenCounter) string {
	if c.CountTokens(s) <= max {
		return s
	}
	rs := []rune(s)
	lo, hi := 0, len(rs)
	for lo < hi { // largest n with count(rs[:n]+"…") <= max
		mid := (lo + hi + 1) / 2
		if c.CountTokens(string(rs[:mid])+"…") <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return ""
	}
	cut := string(rs[:lo])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}

// Compact quotes. Once the budget but a share of it is picked, the rest
// goes to the values the picks leave out, each quoted with the words
// around it, as recap's summary check repairs a summary: a unit that
// states an identifier, a number, a name or a title no pick states is
// quoted around those values ("- User: \"… order is BW-58231 and …\""),
// most wanted first (see compactOrder), as many as fit. Picking whole
// units by worth per token leaves out the values of long statements; a
// quote of a few words keeps them. (Chosen on the in-sample, first
// held-out, eighth and first other-languages sets: the extractive
// summarizer alone kept 586 of 800 facts without compact quotes, 603 with
// a tenth of the budget for them, 3 words either side and cuts of 3 words
// or more, as the check's repairs quote; 593, 605 and 612 with a fifth,
// 0.3, and 0.3 with 2 words either side; 608 with cuts of one word. With
// recap's summary check, which repairs what a summary leaves out the same
// way, the four settings with it kept 2,367 facts with and without them.)
const (
	compactShare = 0.1 // the share of the budget kept for compact quotes
	compactWords = 3   // the words either side of a value that a quote keeps
	compactCut   = 3   // the fewest words a quote leaves out in one place
)

// compactOrder returns the units that state a value cov does not hold,
// in the order they are quoted: the user's (and the previous summary's)
// before the assistant's; of those, what the previous summary held before
// what the messages state; then units with an identifier or a number
// before those with names and titles only; then the newest first.
func compactOrder(us []unit, picked []bool, cov coverage) []int {
	type cand struct {
		i    int
		rank [4]int
	}
	var cs []cand
	for i := range us {
		u := &us[i]
		if picked[i] || u.weight == 0 {
			continue
		}
		has, specific := false, false
		for k, f := range u.feats {
			if !u.leftOut(k, cov) {
				continue
			}
			has = true
			specific = specific || f.Kind == keyitems.Ident || f.Kind == keyitems.Number
		}
		if !has {
			continue
		}
		var r [4]int
		if u.speaker != "User" && u.speaker != "Summary" {
			r[0] = 1
		}
		if !u.prev {
			r[1] = 1
		}
		if !specific {
			r[2] = 1
		}
		r[3] = -u.order
		cs = append(cs, cand{i, r})
	}
	sort.SliceStable(cs, func(a, b int) bool {
		for k := range cs[a].rank {
			if cs[a].rank[k] != cs[b].rank[k] {
				return cs[a].rank[k] < cs[b].rank[k]
			}
		}
		return false
	})
	out := make([]int, len(cs))
	for k, c := range cs {
		out[k] = c.i
	}
	return out
}

// compactText returns the words of u around the values of it that cov
// does not hold (see keyitems.QuoteAround), or "" if none of them is in
// its text as it is written.
func compactText(u *unit, cov coverage) string {
	lower := strings.ToLower(u.text)
	var values []string
	for k, f := range u.feats {
		if v := core(f); u.leftOut(k, cov) && v != "" && strings.Contains(lower, v) {
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		return ""
	}
	return keyitems.QuoteAround(u.text, values, compactWords, compactCut)
}

// leftOut reports whether feature k of u is a value a compact quote
// keeps: an identifier, a number with its unit, a name or a title that no
// correction replaced and cov does not hold.
func (u *unit) leftOut(k int, cov coverage) bool {
	f := u.feats[k]
	return !u.stale[k] && cov.values[core(f)] == 0 && f.Kind != keyitems.Bold && f.Kind != keyitems.Bare
}
