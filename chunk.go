package recap

import "fmt"

// chunk returns the first messages of rest that fit in one Summarizer call
// with the running summary, at least one, and their input tokens; counts
// are the tokens of rest's texts. Without WithMaxSummarizeInput, all of
// rest fits. A first message that alone does not fit is truncated, with a
// marker.
func (c *Compressor) chunk(running Summary, rest []Message, counts []int) ([]Message, int) {
	input := 0
	if !running.IsZero() {
		input = c.tokens(&Message{ID: SummaryIDPrefix + running.LastMessageID, Content: running.Text}, nil)
	}
	if c.cfg.maxInput == 0 {
		for _, n := range counts {
			input += n + c.cfg.overhead
		}
		return rest, input
	}
	n := 0
	for n < len(rest) && input+counts[n]+c.cfg.overhead <= c.cfg.maxInput {
		input += counts[n] + c.cfg.overhead
		n++
	}
	if n > 0 {
		return rest[:n], input
	}
	budget := c.cfg.maxInput - input - c.cfg.overhead
	m := truncate(rest[0], budget, counts[0], c.cfg.counter)
	return []Message{m}, input + c.cfg.counter.CountTokens(m.Content) + c.cfg.overhead
}

// truncate returns m with its text cut to at most budget tokens, counted
// by tc, and a marker saying how much was cut: the part of m that a
// Summarizer with a bounded input can take. m's ID and role are kept.
func truncate(m Message, budget, tokens int, tc TokenCounter) Message {
	marker := fmt.Sprintf("\n[recap: message truncated for the summarizer, %d tokens in all]", tokens)
	text := []rune(m.Text())
	keep := budget - tc.CountTokens(marker)
	lo, hi := 0, len(text)
	for lo < hi { // the longest prefix within keep tokens
		mid := (lo + hi + 1) / 2
		if tc.CountTokens(string(text[:mid])) <= keep {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	// Counts are not quite additive where the cut meets the marker: shrink
	// until the whole fits.
	content := string(text[:lo]) + marker
	for over := tc.CountTokens(content) - budget; over > 0 && lo > 0; over = tc.CountTokens(content) - budget {
		lo = max(0, lo-over)
		content = string(text[:lo]) + marker
	}
	return Message{ID: m.ID, Role: m.Role, Content: content}
}
