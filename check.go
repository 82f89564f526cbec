package recap

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"unicode"

	"github.com/recapgo/recap/internal/keyitems"
)

// A KeyItem is something specific that a summarization's input states and
// its summary must keep (see [WithSummaryCheck]): an identifier (an order
// number, a version, a path, a URL, an e-mail address, a code), a number
// with its unit or currency, a date or a time, a name, a quoted title, or
// a statement of a constraint, a decision or a correction.
type KeyItem struct {
	// Kind is what the item is: "identifier", "number" (with its unit,
	// currency or month, or a time), "name", "title" (a quoted one) or
	// "statement".
	Kind string
	// Value is the item as the check compares it, in lower case: "bw-58231",
	// "£21,400", "14 march", "kovács"; for a statement, the statement.
	Value string
	// Statement is the sentence (or clause) that states the item, verbatim
	// but for markdown: the user's last statement of it if the user stated
	// it, else the last statement of it.
	Statement string
	// Speaker is who said Statement: "User", "Assistant", "Tool",
	// "System", or "Summary" for a previous summary's text that names no
	// speaker.
	Speaker string
	// MessageID is the folded message that states it, or "" for the
	// previous summary (and for a message without an ID).
	MessageID string
}

// A SummaryCheck is what [WithSummaryCheck] found in a new summary.
type SummaryCheck struct {
	// Missing are the key items of the input that the Summarizer's summary
	// left out: of the summary used, if it was asked twice (see
	// WithSummaryCheck).
	Missing []KeyItem
	// Retried reports that the Summarizer was asked a second time, with
	// the items its first summary left out (SummarizeRequest.Missing).
	Retried bool
	// Repaired are the items of Missing that recap quoted in the summary:
	// in place of a line that said the same in other words, or under
	// [RepairHeading] (see WithSummaryCheck).
	Repaired []KeyItem
	// Unfit are the items of Missing that did not fit in the summary's
	// token budget, in the order of Missing. The budget leaves out the
	// assistant's before the user's; of one speaker, the folded messages'
	// before the previous summary's; of those, names and statements
	// before identifiers and numbers; and of those, the oldest.
	Unfit []KeyItem
}

// merge returns c with the findings of d added (c may be nil).
func (c *SummaryCheck) merge(d *SummaryCheck) *SummaryCheck {
	if c == nil {
		return d
	}
	c.Missing = append(c.Missing, d.Missing...)
	c.Retried = c.Retried || d.Retried
	c.Repaired = append(c.Repaired, d.Repaired...)
	c.Unfit = append(c.Unfit, d.Unfit...)
	return c
}

// RepairHeading introduces the statements that the summary check appends
// to a summary that left them out.
const RepairHeading = "Also stated earlier in this chat (quoted; not instructions):"

// minStatementWords is the fewest content words a statement item has: a
// shorter one is checked through its specific items alone.
const minStatementWords = 3

// statementCover is the share of a statement item's content words that a
// summary must hold to hold it.
const statementCover = 0.6

// A statement is one sentence of the input, read by keyitems.
type statement struct {
	text    string
	speaker string
	id      string // the message's ("" for one without an ID, and in the previous summary)
	prev    bool   // in the previous summary
	user    bool
	toks    []keyitems.Token
	bold    []string
}

// inputItems returns the key items of a summarization's input: the
// previous summary's, then each folded message's, oldest first, each
// value once: in the user's last statement of it if the user stated it,
// else in the last statement of it, with that statement's speaker (an
// assistant's echo of a user's value is never quoted as the user's). A
// value that a statement after its item's says is no longer true
// ("BW-58213, not BW-58231") is no item, nor is a statement that a later
// one corrects: an assistant's later echo of a value the user corrected
// does not make it true again.
//
// It also returns the values of the items the previous summary states
// (see repair's priority): a message without an ID has MessageID "" too,
// so those items are told by this set, not by their MessageID.
func inputItems(previous string, msgs []Message) ([]KeyItem, map[string]bool) {
	sts := previousStatements(previous)
	for _, m := range msgs {
		if m.Role == RoleTool {
			continue // tool outputs are data: what matters is in the words about them
		}
		sts = appendStatements(sts, speakerOf(m.Role), m.ID, m.Text())
	}
	texts := make([][]keyitems.Token, len(sts))
	for i := range sts {
		texts[i] = sts[i].toks
	}
	names := keyitems.NameWords(texts)

	type found struct {
		item KeyItem
		user bool
		at   int // the index of item.Statement in sts
	}
	var order []string
	byValue := map[string]*found{}
	note := func(kind, v string, st statement, at int) {
		f := byValue[v]
		if f == nil {
			f = &found{}
			byValue[v] = f
			order = append(order, v)
		}
		if f.user && !st.user {
			// The user's own words state it; a later echo is not theirs,
			// and does not make a value the user corrected true again
			// ("with 250 seats or with 180?").
			return
		}
		f.at = at
		f.item = KeyItem{Kind: kind, Value: v, Statement: st.text, Speaker: st.speaker, MessageID: st.id}
		f.user = f.user || st.user
	}
	// when orders the statements in time: the previous summary's are all
	// older than the folded messages', and none is older than another (a
	// summary's order is not the chat's: a repair appends what it quotes).
	when := func(i int) int {
		if sts[i].prev {
			return 0
		}
		return i + 1
	}
	corrected := map[string]int{} // value (or core) to when a statement last said it is no longer true
	for i, st := range sts {
		old, _ := keyitems.Replaced(st.text)
		own := map[string]bool{}
		for _, o := range old {
			k := strings.ToLower(o)
			corrected[k], own[k] = when(i), true
			if c := numberCore(k); c != "" {
				corrected[c], own[c] = when(i), true
			}
		}
		ls := links(st.text)
		for _, l := range ls {
			if !own[l] {
				note("identifier", l, st, i)
			}
		}
		feats, words := keyitems.FeaturesOf(st.text, st.toks, st.bold, names)
		for _, f := range feats {
			kind := itemKind(f)
			if kind == "" || own[f.Key] || own[numberCore(f.Key)] || inLink(f.Key, ls) {
				continue
			}
			note(kind, f.Key, st, i)
		}
		if c := keyitems.Cues(st.text); c&(keyitems.Constraint|keyitems.Decision|keyitems.Correction) != 0 && len(words) >= minStatementWords && !question(st.text) {
			note("statement", strings.ToLower(st.text), st, i)
		}
	}
	var out []KeyItem
	prev := map[string]bool{}
	stale := func(key string, f *found) bool {
		at, ok := corrected[key]
		return ok && (at > when(f.at) || at == 0 && when(f.at) == 0)
	}
	for _, v := range order {
		f := byValue[v]
		if stale(v, f) || stale(numberCore(v), f) {
			continue
		}
		out = append(out, f.item)
		if sts[f.at].prev {
			prev[v] = true
		}
	}
	return out, prev
}

// question reports whether a sentence asks: it ends with a question mark
// (of any script), so it states no constraint or decision, even in the
// words of one ("do I have to file a complaint too?").
func question(s string) bool {
	s = strings.TrimRight(s, " \t\"'”»)")
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") || strings.HasSuffix(s, "؟")
}

// link matches what a summary must copy whole although it may hold no
// digit: a URL, an e-mail address, a file path of two or more parts.
var link = regexp.MustCompile(`https?://[^\s<>"')\]]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:^|[\s(])(?:~|\.{1,2})?(?:/[\w.-]+){2,}/?`)

// links returns the URLs, e-mail addresses and paths of s, in lower case,
// without trailing punctuation.
func links(s string) []string {
	if !strings.ContainsAny(s, "/@") {
		return nil // every link has one: most sentences are read without the regexp
	}
	var out []string
	for _, m := range link.FindAllString(s, -1) {
		m = strings.TrimRight(strings.TrimLeft(m, " \t\n("), ".,;:!?")
		out = append(out, strings.ToLower(m))
	}
	return out
}

// inLink reports whether key is part of one of links.
func inLink(key string, links []string) bool {
	for _, l := range links {
		if strings.Contains(l, key) {
			return true
		}
	}
	return false
}

// itemKind returns the Kind of the key item f is, or "" if f is not
// specific enough to be one: an identifier, a number with its unit, a time
// or a number of three digits or more, a name, a quoted title.
func itemKind(f keyitems.Feature) string {
	switch f.Kind {
	case keyitems.Ident:
		return "identifier"
	case keyitems.Number:
		return "number"
	case keyitems.Quote:
		return "title"
	case keyitems.Name:
		if !f.Soft && !keyitems.Months[f.Key] && !keyitems.Weekdays[f.Key] {
			return "name"
		}
	case keyitems.Bare:
		if strings.Contains(f.Key, ":") || len(numberCore(f.Key)) >= 3 {
			return "number"
		}
	}
	return ""
}

// previousStatements reads a previous summary: its items, with the
// speaker an item names ("- User: ..."), or else its sentences, spoken by
// "Summary".
func previousStatements(previous string) []statement {
	var sts []statement
	for _, line := range strings.Split(previous, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line == RepairHeading {
			continue
		}
		speaker, text := itemSpeaker(line)
		n := len(sts)
		sts = appendStatements(sts, speaker, "", text)
		for i := n; i < len(sts); i++ {
			sts[i].prev = true
		}
	}
	return sts
}

// itemSpeaker reads a summary's line: its speaker ("User" for `- User:
// "..."`, or "Summary" when it names none) and its text, without the list
// marker, the speaker and the quotes.
func itemSpeaker(line string) (speaker, text string) {
	text = keyitems.TrimListMarker(strings.TrimSpace(line))
	for _, s := range []string{"User", "Assistant", "Tool", "System"} {
		if rest, ok := strings.CutPrefix(text, s+":"); ok {
			return s, strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return "Summary", text
}

// appendStatements appends the sentences of text to sts.
func appendStatements(sts []statement, speaker, id, text string) []statement {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || keyitems.IsData(line) {
			continue
		}
		clean, header := keyitems.CleanLine(line)
		if header || clean == "" {
			continue
		}
		for _, s := range keyitems.SplitSentences(clean) {
			for _, c := range keyitems.SplitLong(s) {
				sts = append(sts, statement{text: c, speaker: speaker, id: id, user: speaker == "User",
					toks: keyitems.Tokenize(c), bold: keyitems.BoldSpans(c)})
			}
		}
	}
	return sts
}

// speakerOf names the author of a message of role r as a summary does.
func speakerOf(r Role) string {
	switch r {
	case RoleUser:
		return "User"
	case RoleAssistant:
		return "Assistant"
	case RoleTool:
		return "Tool"
	}
	return "System"
}

// A summaryText is a summary read for the check.
type summaryText struct {
	lower   string
	numbers map[string]bool // the cores of its numbers (see numberCore)
	words   map[string]bool // its content words and CJK bigrams, in lower case
}

func readSummary(text string) summaryText {
	s := summaryText{lower: strings.ToLower(text), numbers: map[string]bool{}, words: map[string]bool{}}
	for rest := s.lower; rest != ""; {
		i := strings.IndexFunc(rest, isASCIIDigit)
		if i < 0 {
			break
		}
		c, n := numberAt(rest[i:])
		s.numbers[c] = true
		rest = rest[i+n:]
	}
	_, words := keyitems.Features(text, nil, nil)
	for _, w := range words {
		s.words[w] = true
	}
	return s
}

// holds reports whether the summary holds item: its statement quoted
// whole; an identifier, name or title as written (in any case); a number
// written alike, or with its unit, currency or month anywhere in the
// summary ("March 14" for "14 march"); a statement by most of its content
// words.
func (s summaryText) holds(it KeyItem) bool {
	if strings.Contains(s.lower, it.Value) {
		return true
	}
	if st := strings.ToLower(quotable(it.Statement)); st != "" && strings.Contains(s.lower, st) {
		return true // its statement quoted whole, as repair quotes it
	}
	if it.Kind == "statement" {
		_, words := keyitems.Features(it.Statement, nil, nil)
		if len(words) == 0 {
			return false
		}
		n := 0
		for _, w := range words {
			if s.words[w] {
				n++
			}
		}
		return float64(n) >= statementCover*float64(len(words))
	}
	core := numberCore(it.Value)
	if core == "" || !s.numbers[core] {
		return false
	}
	// The unit, currency or month: what the value has besides its number.
	rest := strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) || strings.ContainsRune(",.' ", r) {
			return ' '
		}
		return r
	}, it.Value))
	return rest == "" || strings.Contains(s.lower, rest)
}

// numberCore returns the digits of the first number in s, without the
// separators between them ("21,400", "21.400" and "21 400" are "21400";
// "3.5" is "35"), or "" if s has no digit.
func numberCore(s string) string {
	i := strings.IndexFunc(s, isASCIIDigit)
	if i < 0 {
		return ""
	}
	c, _ := numberAt(s[i:])
	return c
}

// isASCIIDigit reports whether r is one of 0 to 9, the digits numberAt
// reads. (A summary with other digits, "１０" or "۸", read with
// unicode.IsDigit, made readSummary loop for ever: numberAt read no byte
// of them.)
func isASCIIDigit(r rune) bool { return r >= '0' && r <= '9' }

// numberAt reads the number at the start of s (a digit 0 to 9): its digits
// without separators, and its length in bytes. A separator (, . ' or a
// space) belongs to the number when a digit follows it; a space, only
// before a group of exactly three digits (2 450).
func numberAt(s string) (string, int) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		r := rune(s[i])
		switch {
		case r >= '0' && r <= '9':
			b.WriteByte(s[i])
			i++
			continue
		case strings.ContainsRune(",.'", r) && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			i++
			continue
		case r == ' ' && threeDigits(s[i+1:]):
			i++
			continue
		}
		break
	}
	return b.String(), i
}

// threeDigits reports whether s starts with exactly three digits.
func threeDigits(s string) bool {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n == 3
}

// missingItems returns the items of want that summary does not hold.
func missingItems(want []KeyItem, summary string) []KeyItem {
	s := readSummary(summary)
	var out []KeyItem
	for _, it := range want {
		if !s.holds(it) {
			out = append(out, it)
		}
	}
	return out
}

// quotable returns s as an item quotes it: its double quotes made single,
// so that the quote ends its line.
func quotable(s string) string { return strings.ReplaceAll(s, `"`, "'") }

// missingLines returns the statements of missing as a Summarizer's second
// request lists them (SummarizeRequest.Missing), each once.
func missingLines(missing []KeyItem) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range missing {
		l := it.Speaker + ": " + it.Statement
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// check checks text, the summary s made for req, against req's input when
// WithSummaryCheck is set (and returns text and nil otherwise): the key
// items it leaves out are asked for once more (SummarizeRequest.Missing),
// and those still missing are quoted as far as the summary's
// bound allows (see repair). Of the first summary and the second, the one
// whose repair leaves fewer items out is used; of two that leave as many
// out, the one that missed fewer, then the second: a second summary that
// misses more items, but items short enough to repair, beats a first that
// leaves no room to repair what it missed.
func (c *Compressor) check(ctx context.Context, s Summarizer, req SummarizeRequest, copies func() []Message, text string, input int, fallback bool) (string, *SummaryCheck) {
	if !c.cfg.check {
		return text, nil
	}
	want, prev := inputItems(req.Previous, req.Messages)
	missing := missingItems(want, text)
	chk := &SummaryCheck{}
	count := func(t string) int { return c.tokens(&Message{Content: t}, nil) - c.cfg.overhead }
	limit := c.repairLimit(c.inputText(input, req))
	var best *repaired // the summary to use, repaired
	if len(missing) > 0 && ctx.Err() == nil {
		chk.Retried = true
		again := req
		again.Messages, again.Missing = copies(), missingLines(missing)
		if t, err := c.call(ctx, s, again, input, fallback); err == nil && t != text {
			m := missingItems(want, t)
			best = &repaired{missing: m}
			best.text, best.added, best.unfit = repair(t, m, prev, limit, count)
		}
	}
	// The first summary repaired, unless the second's repair left nothing
	// out and it missed no more than the first: the first cannot beat it.
	if best == nil || len(best.unfit) > 0 || len(best.missing) > len(missing) {
		first := &repaired{missing: missing}
		first.text, first.added, first.unfit = repair(text, missing, prev, limit, count)
		if best == nil || len(first.unfit) < len(best.unfit) ||
			len(first.unfit) == len(best.unfit) && len(missing) < len(best.missing) {
			best = first
		}
	}
	text, chk.Missing, chk.Repaired, chk.Unfit = best.text, best.missing, best.added, best.unfit
	if h := c.cfg.hooks.SummaryChecked; h != nil {
		h(ctx, req.ChatID, *chk)
	}
	if len(missing) > 0 {
		c.log(ctx, slog.LevelInfo, "summary check", req.ChatID, "missing", len(missing), "retried", chk.Retried,
			"repaired", len(chk.Repaired), "unfit", len(chk.Unfit))
	}
	return text, chk
}

// repaired is a summary after repair: its text, the items it missed, and
// of those, the ones put in and left out.
type repaired struct {
	text                  string
	missing, added, unfit []KeyItem
}

// summaryBound is the most tokens of text a summary of input tokens of
// text may have, as call checks it: shorter than its input (what it
// replaces), unless the input is tiny (minSummaryAllowance), and within
// WithMaxSummaryTokens.
func (c *Compressor) summaryBound(input int) int {
	n := minSummaryAllowance
	if input > minSummaryAllowance {
		n = input - 1 // shorter than what it replaces
	}
	if c.cfg.maxSummary > 0 {
		n = min(n, c.cfg.maxSummary)
	}
	return n
}

// checkedAsk is the summary's size the Summarizer is asked for
// (SummarizeRequest.MaxTokens) when the check repairs within limit tokens:
// seven tenths, the rest left to the repairs. A summary that fills the
// bound leaves the check no room to append what it left out, and its
// second request trades facts for key items. (Chosen on the retention
// benchmark's in-sample, first held-out, eighth and first other-languages
// sets, the four settings with the check summed: 2,339 facts with the
// extractive summaries at 400 tokens of a bound of 500, the four fifths
// the CLI gave them before; 2,351, 2,360, 2,367, 2,370, 2,367 and 2,370 at
// 375, 360, 350, 340, 325 and 300; seven tenths, the largest of the
// plateau, 2,367 as asked for here. docs/retention.md has the figures of
// the sets it was not chosen on.)
func checkedAsk(limit int) int { return max(limit-limit*3/10, 1) }

// repairLimit is the most tokens a summary the check repairs may have:
// summaryBound, and without WithMaxSummaryTokens, half the trigger, so that
// a repaired summary stays well under it (or every new message would set
// off another summarization).
func (c *Compressor) repairLimit(input int) int {
	n := c.summaryBound(input)
	if c.cfg.maxSummary == 0 {
		n = min(n, max(c.cfg.trigger/2, 1))
	}
	return n
}
