package recap

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Recall searches what a summary stands for: the messages it covers, which
// the payload no longer sends, and those a payload left out to fit its
// ceiling ([Result.Dropped]). A model that needs a detail the summary lost
// (a ticket number, a version, the exact wording of a message) asks for it
// with the recall tool (see [RecallToolSchema] and
// [Compressor.AnswerRecall]), and gets the passages of those messages that
// match best: compaction it can undo.

// Defaults and limits of the RecallOptions. A call with the defaults
// returns at most 900 tokens of excerpts: about half of a long answer of
// an assistant each, where the detail asked for is often away from the
// words the query shares with it.
const (
	DefaultRecallResults       = 3   // see RecallResults
	DefaultRecallExcerptTokens = 300 // see RecallExcerptTokens
	MinRecallExcerptTokens     = 16  // see RecallExcerptTokens
)

// recallEllipsis marks where an excerpt was cut.
const recallEllipsis = "…"

// ErrNoQuery is returned by [Recall] and [Compressor.Recall] for a query
// with no term to search for: empty, or only white space, punctuation and
// symbols.
var ErrNoQuery = errors.New("recap: recall query has no words")

// An Excerpt is a passage of a message that [Recall] found.
type Excerpt struct {
	// MessageID is the message's ID; for a message that had none, the ID
	// [ChainIDs] derives for it.
	MessageID string
	// Role is the message's author.
	Role Role
	// Position is the message's index in the messages searched.
	Position int
	// Text is the message's text ([Message.Text], tool inputs and outputs
	// included) when it fits the excerpt's token bound, and otherwise the
	// window of it around the best matches that fits, cut at white space
	// (or between two characters of a script written without spaces),
	// with "…" where it was cut: at its start, its end or both.
	Text string
	// Score is the message's score for the query: its BM25 score plus half
	// that of the message before it (see [Recall]); higher is more
	// relevant. It compares the excerpts of one call only.
	Score float64
}

// A RecallOption configures a call of [Recall] or [Compressor.Recall].
type RecallOption interface {
	applyRecall(*recallConfig) error
}

type recallOptionFunc func(*recallConfig) error

func (f recallOptionFunc) applyRecall(c *recallConfig) error { return f(c) }

// recallConfig is what the RecallOptions set.
type recallConfig struct {
	k       int
	tokens  int
	counter TokenCounter // nil: the default (see RecallCounter)
	dropped []Message
}

// RecallResults makes a call return at most k excerpts, the best first.
// k must be at least 1; the default is [DefaultRecallResults]. Of two
// RecallResults the last wins.
func RecallResults(k int) RecallOption {
	return recallOptionFunc(func(c *recallConfig) error {
		if k < 1 {
			return invalid("RecallResults", "%d is less than 1", k)
		}
		c.k = k
		return nil
	})
}

// RecallExcerptTokens bounds the text of each excerpt, "…" marks included,
// to n tokens of the counter (see RecallCounter). n must be at least
// [MinRecallExcerptTokens]; the default is [DefaultRecallExcerptTokens].
// Of two RecallExcerptTokens the last wins.
func RecallExcerptTokens(n int) RecallOption {
	return recallOptionFunc(func(c *recallConfig) error {
		if n < MinRecallExcerptTokens {
			return invalid("RecallExcerptTokens", "%d is less than %d", n, MinRecallExcerptTokens)
		}
		c.tokens = n
		return nil
	})
}

// RecallCounter sets the counter that measures excerpts. The default is
// the Compressor's counter (see WithTokenCounter) for [Compressor.Recall]
// and the exact o200k_base counter of GPT-4o for [Recall]. A nil counter
// is an error. Of two RecallCounter the last wins.
func RecallCounter(tc TokenCounter) RecallOption {
	return recallOptionFunc(func(c *recallConfig) error {
		if tc == nil {
			return invalid("RecallCounter", "nil counter")
		}
		c.counter = tc
		return nil
	})
}

// RecallDropped makes the messages of msgs that the chat has (by ID)
// searchable too: pass [Result.Dropped], the messages a payload left out
// to fit WithMaxPayloadTokens, to [Recall]. ([Compressor.Recall] finds
// them itself.) The summary message among them, which is not one of the
// chat's, is passed over. The options add up.
func RecallDropped(msgs []Message) RecallOption {
	return recallOptionFunc(func(c *recallConfig) error {
		c.dropped = append(c.dropped[:len(c.dropped):len(c.dropped)], msgs...)
		return nil
	})
}

// newRecallConfig applies opts to the defaults.
func newRecallConfig(opts []RecallOption) (recallConfig, error) {
	cfg := recallConfig{k: DefaultRecallResults, tokens: DefaultRecallExcerptTokens}
	for _, o := range opts {
		if o == nil {
			return recallConfig{}, fmt.Errorf("%w: nil RecallOption", ErrInvalidOption)
		}
		if err := o.applyRecall(&cfg); err != nil {
			return recallConfig{}, err
		}
	}
	return cfg, nil
}

// Recall searches the messages of msgs that summary s covers for query and
// returns the passages that match best, at most k of them (see
// RecallResults), the best first, ties broken by position. It is the pure
// form of [Compressor.Recall]: no Store, no cache.
//
// The messages searched are those [Compressor.Plan] puts in Covered for
// msgs and s (so none when s is stale or msgs is Older than it), plus
// those of RecallDropped: never a message the payload sends. msgs is the
// whole chat, as for Plan, with its current turn last; the current turn
// is never searched, and neither is recap's summary message echoed back.
// A message without an ID is given the ID that [ChainIDs] derives for it,
// as Compress does, and that is the ID that s.Covered holds for it.
//
// Messages are ranked by BM25 (k1 = 1.2, b = 0.75) over all of msgs, so a
// message scores the same whichever messages are searchable, plus half
// the score of the message before it (unless that is the app's prompt):
// a chat's facts are mostly in the answers to the questions that a query
// reads like. Terms are words (case-folded, Latin diacritics removed),
// identifiers such as "INC-20931", "4.12.3", "user@example.com" or
// "/etc/hosts" as a whole besides their parts, the first five letters of
// long words, and character bigrams in Chinese, Japanese, Korean and the
// other scripts written without spaces. Tool inputs and outputs are
// searched as [Message.Text] renders them. Each excerpt is the window of
// its message's text around the best cluster of matches that fits
// RecallExcerptTokens. The ranking is deterministic: the same msgs, s and
// query give the same excerpts.
//
// Recall searches the messages msgs holds: a client that sends back the
// payloads it got, rather than the whole chat, no longer has the messages
// the summary covers, and Recall finds only what RecallDropped adds.
//
// Recall fails with [ErrNoQuery] for a query with no words, with an error
// matching [ErrInvalidOption] for an invalid option, and with the errors
// of Plan for invalid msgs. It returns no excerpt, and no error, when no
// searchable message matches. It never modifies msgs.
func Recall(msgs []Message, s Summary, query string, opts ...RecallOption) ([]Excerpt, error) {
	cfg, err := newRecallConfig(opts)
	if err != nil {
		return nil, err
	}
	if cfg.counter == nil {
		cfg.counter = defaultCounter()
	}
	q := queryTerms(query)
	if len(q) == 0 {
		return nil, ErrNoQuery
	}
	ch, err := index(msgs) // with the IDs ChainIDs derives for messages without one
	if err != nil {
		return nil, err
	}
	msgs, ix := ch.msgs, ch.ix
	// Covered does not depend on the options: any Compressor plans it.
	planner := &Compressor{cfg: defaultConfig(), counts: newCountCache()}
	planner.cfg.counter = TokenCounterFunc(func(string) int { return 0 })
	p, err := planner.plan(ch, s)
	if err != nil {
		return nil, err
	}
	searchable := searchableSet(msgs, ix, p, cfg.dropped)
	if searchable == nil {
		return nil, nil
	}
	var index recallIndex
	index.sync(make([]uint64, len(msgs)), func(i int) string { return msgs[i].Text() }) // no keys: built once
	top, weights := index.search(q, searchable, inheritSet(msgs), cfg.k)
	return excerpts(msgs, top, q, weights, cfg.tokens, cfg.counter.CountTokens, nil), nil
}

// Recall searches what the summary of chatID stands for, as [Recall] does,
// against the summary the Store holds and as Compress plans msgs under
// the Compressor's options: the messages the summary covers, and those
// the payload leaves out to fit WithMaxPayloadTokens ([Result.Dropped]).
// Excerpts are measured by the Compressor's counter unless RecallCounter
// says otherwise.
//
// The Compressor keeps an index of each chat it searched recently (about
// 32 MiB for all chats, the least recently searched dropped first), and
// adds to it only the messages it has not indexed yet, so that after the
// first search of a chat a search costs about what Plan does. The index is
// of msgs as they are: an edited chat, or an older snapshot, is indexed
// again from the first message that differs.
//
// A summarization that Compress made in the background since the payload
// was built (see WithBackground) may make Recall find messages of that
// payload: the Store's summary covers them now.
//
// Recall fails as Recall does, with an error matching [ErrInvalidOption]
// for a Compressor without a Store, and with the Store's error (wrapped)
// or ctx.Err() when the summary cannot be loaded.
func (c *Compressor) Recall(ctx context.Context, chatID string, msgs []Message, query string, opts ...RecallOption) ([]Excerpt, error) {
	if c.store == nil {
		return nil, fmt.Errorf("%w: Recall needs a Store", ErrInvalidOption)
	}
	cfg, err := newRecallConfig(opts)
	if err != nil {
		return nil, err
	}
	own := cfg.counter == nil // the Compressor's counter, whose counts it remembers
	if own {
		cfg.counter = c.cfg.counter
	}
	q := queryTerms(query)
	if len(q) == 0 {
		return nil, ErrNoQuery
	}
	ch, err := index(msgs) // with the IDs ChainIDs derives for messages without one
	if err != nil {
		return nil, err
	}
	msgs, ix := ch.msgs, ch.ix
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := c.load(ctx, chatID)
	if err != nil {
		return nil, err
	}
	p, err := c.plan(ch, s)
	if err != nil {
		return nil, err
	}
	dropped := cfg.dropped
	if c.ceiling() > 0 {
		// Result.Dropped as Compress returns it when it does not
		// summarize (it fails with ErrBudget when even the smallest
		// payload is over: Dropped holds what it left out then too).
		res, _ := c.fit(Result{Payload: p.Payload(), Summary: p.Summary, Tokens: p.Tokens}, p)
		dropped = append(res.Dropped, dropped...)
	}
	searchable := searchableSet(msgs, ix, p, dropped)
	if searchable == nil {
		return nil, nil
	}
	top, weights := c.search(chatID, msgs, q, searchable, cfg.k)
	var whole func(pos int, text string) int
	if own {
		whole = func(pos int, text string) int {
			return c.counts.countTexts(c.cfg.counter, msgs[pos:pos+1], []string{text})[0]
		}
	}
	return excerpts(msgs, top, q, weights, cfg.tokens, cfg.counter.CountTokens, whole), nil
}

// search syncs the cached index of chatID with msgs and searches it.
func (c *Compressor) search(chatID string, msgs []Message, q []queryTerm, searchable []bool, k int) ([]scored, map[string]float64) {
	rc := c.recalls
	if rc == nil { // a Compressor not made by New
		rc = newIndexCache()
	}
	keys := make([]uint64, len(msgs))
	for i, m := range msgs {
		keys[i] = rc.key(m.ID, m.Text())
	}
	e := rc.get(chatID)
	e.mu.Lock()
	e.ix.sync(keys, func(i int) string { return msgs[i].Text() })
	top, weights := e.ix.search(q, searchable, inheritSet(msgs), k)
	bytes := e.ix.bytes
	e.mu.Unlock()
	rc.account(chatID, e, bytes)
	return top, weights
}

// inheritSet marks the messages of msgs that inherit part of the score of
// the message before them (see recallIndex.search): all but the first and
// those after the app's prompt.
func inheritSet(msgs []Message) []bool {
	set := make([]bool, len(msgs))
	for i := 1; i < len(msgs); i++ {
		set[i] = !msgs[i-1].Role.pinned()
	}
	return set
}

// searchableSet marks the messages of msgs that Recall searches: those p
// covers, but not the echoes of the summary nor a compacted turn's
// request, which the payload sends again; and those of dropped, by ID,
// which the payload left out. It returns nil if there are none.
func searchableSet(msgs []Message, ix map[string]int, p Plan, dropped []Message) []bool {
	var set []bool
	mark := func(id string) {
		i, ok := ix[id]
		if !ok {
			return
		}
		if set == nil {
			set = make([]bool, len(msgs))
		}
		set[i] = true
	}
	for _, m := range p.Covered {
		if !p.echo(m) && !strings.HasPrefix(m.ID, SummaryIDPrefix) {
			mark(m.ID)
		}
	}
	if p.Compacted && len(p.Turn) > 0 && set != nil {
		set[ix[p.Turn[0].ID]] = false
	}
	for _, m := range dropped {
		if !strings.HasPrefix(m.ID, SummaryIDPrefix) {
			mark(m.ID)
		}
	}
	return set
}

// excerpts returns the excerpts of at most n tokens of the messages of
// top, in order, measured by count; whole, if not nil, counts the text of
// the message at a position (from the Compressor's cache).
func excerpts(msgs []Message, top []scored, q []queryTerm, weights map[string]float64, n int, count func(string) int, whole func(pos int, text string) int) []Excerpt {
	if len(top) == 0 {
		return nil
	}
	// Hits of stop words weigh little in placing a window: they are
	// everywhere in a message, and say nothing of where its answer is.
	terms := make(map[string]float64, len(q))
	for _, t := range q {
		terms[t.text] = 1
		if t.stop {
			terms[t.text] = 0.1
		}
	}
	out := make([]Excerpt, len(top))
	var sc termScanner
	for i, t := range top {
		m := msgs[t.pos]
		text := m.Text()
		var hits []hit
		sc.scan(text, func(term []byte, _ termKind, start, end int) {
			if w, ok := weights[string(term)]; ok && terms[string(term)] > 0 {
				hits = append(hits, hit{start: start, end: end, term: string(term), weight: w * terms[string(term)]})
			}
		})
		var total int
		if whole != nil {
			total = whole(t.pos, text)
		} else {
			total = count(text)
		}
		out[i] = Excerpt{MessageID: m.ID, Role: m.Role, Position: t.pos, Score: t.score,
			Text: excerptText(text, total, hits, n, count)}
	}
	return out
}

// hit is an occurrence of a query's term in a text.
type hit struct {
	start, end int     // its span in the text
	term       string  // the term
	weight     float64 // the term's weight (see recallIndex.search)
}

// excerptText returns the window of text (of total tokens) of at most n
// tokens by count, with its "…" marks, around the best cluster of hits:
// text itself if it fits, else the cluster with as much context on both
// sides as fits, cut at white space (or at a character of a script
// written without spaces, or anywhere in a run of 32 bytes without
// either), with "…" where cut. If even the cluster does not fit, the best
// hit alone; if not even that, its first characters; "…" if not even one
// character fits.
func excerptText(text string, total int, hits []hit, n int, count func(string) int) string {
	if total <= n {
		return text
	}
	// Bytes per token, to aim the first window.
	ratio := float64(len(text)) / float64(total)
	target := int(float64(n-2) * ratio * 0.9)
	// A cluster of at most half the window, so that the other half is
	// context around it.
	cs, ce := cluster(hits, max(target/2, 1))

	window := func(a, b int) string {
		a, b = snapStart(text, a, cs), snapEnd(text, b, ce)
		for a < b {
			r, size := utf8.DecodeRuneInString(text[a:])
			if !unicode.IsSpace(r) {
				break
			}
			a += size
		}
		for b > a {
			r, size := utf8.DecodeLastRuneInString(text[:b])
			if !unicode.IsSpace(r) {
				break
			}
			b -= size
		}
		var sb strings.Builder
		if strings.TrimSpace(text[:a]) != "" {
			sb.WriteString(recallEllipsis)
		}
		sb.WriteString(text[a:b])
		if strings.TrimSpace(text[b:]) != "" {
			sb.WriteString(recallEllipsis)
		}
		return sb.String()
	}
	around := func(pad int) (string, bool) {
		a, b := cs-pad, ce+pad
		if a < 0 {
			b -= a
			a = 0
		}
		if b > len(text) {
			a -= b - len(text)
			b = len(text)
		}
		return window(max(a, 0), b), a <= 0 && b >= len(text)
	}

	// Aim at 95% of n from the window's measured size; a few counts.
	best := ""
	lo, hi := 0, max(cs, len(text)-ce)
	pad := max((target-(ce-cs))/2, 0)
	for iter := 0; iter < 6 && lo <= hi; iter++ {
		pad = min(max(pad, lo), hi)
		s, whole := around(pad)
		t := count(s)
		if t <= n {
			best, lo = s, pad+1
			if whole || 10*t >= 9*n {
				break
			}
		} else {
			hi = pad - 1
		}
		// The next pad: the window's length scaled to 95% of n.
		length := float64(2*pad + ce - cs)
		next := int((length*0.95*float64(n)/float64(max(t, 1)) - float64(ce-cs)) / 2)
		if next == pad {
			if t <= n {
				next++
			} else {
				next--
			}
		}
		pad = next
	}
	if best != "" {
		return best
	}
	if s, _ := around(0); count(s) <= n {
		return s
	}
	// The cluster does not fit: the best hit alone, or its first
	// characters.
	h := bestHit(hits)
	if h.end > h.start {
		cs, ce = h.start, h.end
		if s, _ := around(0); count(s) <= n {
			return s
		}
	}
	return prefixFit(text, h.start, n, count)
}

// cluster returns the span of the hits, in a window of at most width
// bytes, that scores best: the weight of its distinct terms, discounted
// by its span (by half for a span of width), so that the terms of a query
// found together win over the same terms scattered; the first of those
// that score the same.
func cluster(hits []hit, width int) (int, int) {
	if len(hits) == 0 {
		return 0, 0
	}
	if len(hits) > 1000 {
		hits = hits[:1000]
	}
	const same = 1e-9 // scores of the same terms, added in another order
	best, bs, be := -1.0, hits[0].start, hits[0].end
	seen := map[string]bool{}
	for i := range hits {
		clear(seen)
		w, end := 0.0, hits[i].end
		for j := i; j < len(hits) && hits[j].end-hits[i].start <= width; j++ {
			if !seen[hits[j].term] {
				seen[hits[j].term] = true
				w += hits[j].weight
			}
			end = max(end, hits[j].end)
			if s := w / (1 + float64(end-hits[i].start)/float64(width)); s > best+same {
				best, bs, be = s, hits[i].start, end
			}
		}
	}
	return bs, be
}

// bestHit returns the hit of most weight, the first of those.
func bestHit(hits []hit) hit {
	var best hit
	for i, h := range hits {
		if i == 0 || h.weight > best.weight {
			best = h
		}
	}
	return best
}

// prefixFit returns the longest run of text from at that fits n tokens
// with its marks, or "…".
func prefixFit(text string, at, n int, count func(string) int) string {
	mark := func(b int) string {
		s := text[at:b]
		if strings.TrimSpace(text[:at]) != "" {
			s = recallEllipsis + s
		}
		if strings.TrimSpace(text[b:]) != "" {
			s += recallEllipsis
		}
		return s
	}
	var ends []int // where a run from at may end: after each rune
	for i := range text[at:] {
		if i > 0 {
			ends = append(ends, at+i)
		}
	}
	ends = append(ends, len(text))
	j := sort.Search(len(ends), func(j int) bool { return count(mark(ends[j])) > n })
	if j == 0 {
		return recallEllipsis
	}
	return mark(ends[j-1])
}

// runeStart returns i, moved back to the start of the rune it is in.
func runeStart(text string, i int) int {
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}

// snapSearch is how far, in bytes, an edge of an excerpt moves to reach a
// place where it may cut.
const snapSearch = 32

// cuttable reports whether an excerpt may start or end at i: at either end
// of text, next to white space, or next to a letter of a script written
// without spaces.
func cuttable(text string, i int) bool {
	if i <= 0 || i >= len(text) {
		return true
	}
	before, _ := utf8.DecodeLastRuneInString(text[:i])
	after, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(before) || unicode.IsSpace(after) || unspaced(before) || unspaced(after)
}

// snapStart moves the start a of an excerpt forward, not past limit, to
// where it may cut; to a rune's start if there is no such place near.
func snapStart(text string, a, limit int) int {
	a = min(max(a, 0), limit)
	for i := a; i <= limit && i-a <= snapSearch; i++ {
		if i == limit || (utf8.RuneStart(text[i]) && cuttable(text, i)) {
			return i
		}
	}
	for a < limit && !utf8.RuneStart(text[a]) {
		a++
	}
	return a
}

// snapEnd moves the end b of an excerpt back, not before limit, to where
// it may cut; to a rune's start if there is no such place near.
func snapEnd(text string, b, limit int) int {
	b = max(min(b, len(text)), limit)
	for i := b; i >= limit && b-i <= snapSearch; i-- {
		if i == limit || i == len(text) || (utf8.RuneStart(text[i]) && cuttable(text, i)) {
			return i
		}
	}
	return runeStart(text, b)
}
