// Package extractive is an offline, deterministic [recap.Summarizer] that
// uses no LLM: it keeps the most informative sentences of the previous
// summary and the new messages, in their original order, within a token
// budget.
//
// It is the default summarizer of the recap CLI when no LLM endpoint is
// configured, and a reasonable fallback when one is down. Its summaries are
// extracts, not paraphrases: they are labelled as such wherever the CLI
// shows them.
package extractive

import (
	"context"
	"errors"
	"math"
	"strings"
	"unicode"

	"github.com/recapgo/recap"
)

// DefaultMaxTokens is the budget of a summary unless WithMaxTokens says
// otherwise.
const DefaultMaxTokens = 300

// Summarizer is the extractive summarizer. Its zero value is not usable;
// call [New]. It is safe for concurrent use.
type Summarizer struct {
	counter   recap.TokenCounter
	maxTokens int
}

// New returns a Summarizer that measures sentences with counter and keeps
// summaries within maxTokens (DefaultMaxTokens if 0).
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

type sentence struct {
	pos    int     // position in the transcript
	text   string  // the sentence, with its speaker label
	tokens int     // its size
	score  float64 // how informative it is
}

// Summarize merges req.Previous and req.Messages into a summary of at most
// the budget's tokens. The previous summary's sentences compete with the
// new ones but score higher, so that older context survives merge after
// merge. It fails only if ctx is done.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var sents []sentence
	add := func(label, text string, boost float64) {
		for _, t := range splitSentences(text) {
			sents = append(sents, sentence{pos: len(sents), text: label + t, score: boost})
		}
	}
	// Weights: the previous summary already holds what mattered before;
	// the user's own words carry the goals and constraints.
	add("", req.Previous, 1.5)
	for _, m := range req.Messages {
		boost := 1.0
		if m.Role == recap.RoleUser {
			boost = 1.3
		}
		add(speaker(m.Role), m.Text(), boost)
	}
	if len(sents) == 0 {
		return "", nil
	}

	// Pick sentences greedily by the weight of the words they add to
	// what is already picked, per token: a word's weight is its inverse
	// document frequency, so rare, specific words (names, numbers,
	// decisions) win over chatter, and a sentence that repeats what is
	// picked adds nothing. Dense sentences fill a token budget best.
	df := map[string]int{}
	words := make([][]string, len(sents))
	for i := range sents {
		words[i] = distinctWords(sents[i].text)
		for _, w := range words[i] {
			df[w]++
		}
		sents[i].tokens = s.counter.CountTokens(sents[i].text) + 1 // +1 for the separator
	}
	n := float64(len(sents))
	idf := func(w string) float64 { return math.Log(1 + n/float64(df[w])) }

	keep := make([]bool, len(sents))
	covered := map[string]bool{}
	budget := s.maxTokens
	for {
		best, bestScore := -1, 0.0
		for i, st := range sents {
			if keep[i] || st.tokens > budget {
				continue
			}
			var gain float64
			for _, w := range words[i] {
				if !covered[w] {
					gain += idf(w)
				}
			}
			if score := st.score * gain / float64(st.tokens); score > bestScore {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			break
		}
		keep[best] = true
		budget -= sents[best].tokens
		for _, w := range words[best] {
			covered[w] = true
		}
	}
	var b strings.Builder
	for i, st := range sents {
		if !keep[i] {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(st.text)
	}
	if b.Len() == 0 {
		// Every sentence is over budget: keep the start of the first.
		return truncate(sents[0].text, s.maxTokens, s.counter), nil
	}
	return b.String(), nil
}

func speaker(r recap.Role) string {
	switch r {
	case recap.RoleUser:
		return "User: "
	case recap.RoleAssistant:
		return "Assistant: "
	case recap.RoleTool:
		return "Tool: "
	default:
		return "System: "
	}
}

// splitSentences splits text at sentence ends (. ! ? 。 ！ ？ followed by
// space) and line breaks, trimming each piece.
func splitSentences(text string) []string {
	var out []string
	emit := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	start := 0
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case r == '\n':
			emit(string(rs[start:i]))
			start = i + 1
		case r == '。' || r == '！' || r == '？':
			emit(string(rs[start : i+1]))
			start = i + 1
		case (r == '.' || r == '!' || r == '?') && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])):
			emit(string(rs[start : i+1]))
			start = i + 1
		}
	}
	emit(string(rs[start:]))
	return out
}

// distinctWords returns the lower-cased words of s that carry meaning:
// letters or digits, two or more long, not a stop word.
func distinctWords(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if len([]rune(w)) < 2 || stop[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// truncate returns the longest prefix of s, at a word boundary where
// possible, of at most max tokens, marked with an ellipsis.
func truncate(s string, max int, c recap.TokenCounter) string {
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

// stop holds English words too common to tell sentences apart.
var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does for from had has have he her
		him his how i if in into is it its me my no not of on or our she so that the their them then there these they
		this to too us was we were what when where which who why will with would you your yes ok okay just also very
		about some any all can't don't i'm it's that's there's let me please thanks thank sure here`) {
		m[w] = true
	}
	return m
}()
