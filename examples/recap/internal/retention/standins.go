package retention

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"regexp"
	"strconv"
	"strings"

	"github.com/recapgo/recap"
)

// Stand-ins for the ways LLM summaries are known to lose facts, for
// measuring what a summary check recovers. Each degrades the summary of the
// summarizer it wraps (in the benchmark, the extractive one), one item
// (line) or sentence at a time, deterministically: the randomness is
// seeded by the request (chat, previous summary, messages), so a replay
// gives the same summaries every time. Rolling summarization compounds
// them: what one summary lost, the next never sees.
var standins = map[string]func(recap.Summarizer) recap.Summarizer{
	// concise keeps the first three items (or sentences) of the summary,
	// as a model told to be brief does.
	"concise": func(s recap.Summarizer) recap.Summarizer {
		return degrade(s, func(_ *rand.Rand, items []string) []string { return items[:min(3, len(items))] })
	},
	// drop loses each item with probability 0.3, as a model that skips
	// what it does not find important does.
	"drop": func(s recap.Summarizer) recap.Summarizer {
		return degrade(s, func(r *rand.Rand, items []string) []string {
			var kept []string
			for _, it := range items {
				if r.Float64() >= 0.3 {
					kept = append(kept, it)
				}
			}
			return kept
		})
	},
	// vague rewrites numbers as round figures ("about 20,000" for
	// "£21,400") and drops identifiers (BW-58213, 4.12.3, INC-20931, file
	// paths, URLs, e-mail addresses), as a model that paraphrases does.
	"vague": func(s recap.Summarizer) recap.Summarizer {
		return degrade(s, func(_ *rand.Rand, items []string) []string {
			out := make([]string, len(items))
			for i, it := range items {
				out[i] = vagueText(it)
			}
			return out
		})
	},
}

// IsStandin reports whether name is a stand-in's.
func IsStandin(name string) bool { _, ok := standins[name]; return ok }

// StandinNames lists the stand-ins, for usage messages.
const StandinNames = "concise, drop, vague"

// degrade returns s with f applied to the items of each summary: its lines
// that are list items, or else its sentences. Header lines are kept.
func degrade(s recap.Summarizer, f func(*rand.Rand, []string) []string) recap.Summarizer {
	return recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		text, err := s.Summarize(ctx, req)
		if err != nil {
			return text, err
		}
		r := rand.New(rand.NewSource(seed(req)))
		lines := strings.Split(text, "\n")
		var items []string
		for _, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "- ") {
				items = append(items, l)
			}
		}
		if len(items) == 0 { // prose: its sentences are the items
			return strings.Join(f(r, sentences(text)), " "), nil
		}
		kept := f(r, items)
		return rebuild(lines, items, kept), nil
	})
}

// rebuild returns lines with the items replaced by kept (f's result:
// either a subsequence of items, or items rewritten one for one), and the
// headers of sections left empty removed.
func rebuild(lines, items, kept []string) string {
	rewritten := len(kept) == len(items)
	inKept := map[string]int{}
	for _, k := range kept {
		inKept[k]++
	}
	var out []string
	item := 0
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "- ") {
			out = append(out, l)
			continue
		}
		switch {
		case rewritten:
			out = append(out, kept[item])
		case inKept[l] > 0:
			inKept[l]--
			out = append(out, l)
		}
		item++
	}
	// Drop a header (a line ending in ":") followed by no item.
	var b []string
	for i, l := range out {
		if strings.HasSuffix(strings.TrimSpace(l), ":") && i > 0 && (i+1 == len(out) || !strings.HasPrefix(strings.TrimSpace(out[i+1]), "- ")) {
			continue
		}
		b = append(b, l)
	}
	return strings.TrimSpace(strings.Join(b, "\n"))
}

// seed derives a stand-in's random seed from what it is asked.
func seed(req recap.SummarizeRequest) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00", req.ChatID, req.Previous)
	for _, m := range req.Messages {
		fmt.Fprintf(h, "%s\x00", m.ID)
	}
	return int64(h.Sum64() >> 1)
}

var sentenceEnd = regexp.MustCompile(`[.!?。！？]\s+`)

// sentences splits prose into sentences, each with its end mark.
func sentences(text string) []string {
	var out []string
	last := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(text, -1) {
		out = append(out, strings.TrimSpace(text[last:loc[1]]))
		last = loc[1]
	}
	if rest := strings.TrimSpace(text[last:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

var (
	// identifier matches what vague drops: URLs, e-mail addresses, paths,
	// and words that mix letters and digits or join digits with dots
	// (versions, codes, order numbers).
	identifier = regexp.MustCompile(`https?://\S+|[\w.+-]+@[\w-]+\.[\w.-]+|(?:/[\w.-]+){2,}|\b(?:[\p{L}_-]*\d[\p{L}\d_-]*[\p{L}_-][\p{L}\d_-]*|[\p{L}_-]+[\p{L}_-]*-\d[\p{L}\d_-]*|\d+(?:\.\d+){2,})\b`)
	// number matches a number with its currency sign, thousands separators
	// and decimals: £21,400, 3.2, 1.250,50 €.
	number = regexp.MustCompile(`[£$€¥]?\d[\d,.' ]*\d|[£$€¥]?\d`)
)

// vagueText drops the identifiers of s and rewrites its numbers as round
// figures.
func vagueText(s string) string {
	s = identifier.ReplaceAllString(s, "")
	var b strings.Builder
	last := 0
	for _, m := range number.FindAllStringIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		last = m[1]
		n := s[m[0]:m[1]]
		if strings.HasSuffix(s[:m[0]], "about ") {
			b.WriteString(n) // a round figure already: vague again, it stays as it is
			continue
		}
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, strings.SplitN(strings.TrimLeft(n, "£$€¥"), ".", 2)[0])
		v, err := strconv.ParseFloat(digits, 64)
		if err != nil || v < 10 {
			b.WriteString("a few")
			continue
		}
		p := math.Pow(10, math.Floor(math.Log10(v)))
		b.WriteString("about " + strconv.FormatFloat(math.Round(v/p)*p, 'f', 0, 64))
	}
	b.WriteString(s[last:])
	return b.String()
}
