package recap

import "fmt"

// fit enforces WithMaxPayloadTokens on res, whose payload was built from p
// and res.Summary: it drops the oldest conversations between the summary
// and the current turn, then (with WithMaxTurnTokens) the oldest steps of
// the turn after its request, then (with WithToolResultClearing) clears
// the eligible tool results its whole batches left, then drops the summary
// message, until the payload fits.
func (c *Compressor) fit(res Result, p Plan) (Result, error) {
	if res.Summarized {
		res.PayloadTokens = c.tokens(nil, res.Payload) // small, after a summarization
	} else {
		res.PayloadTokens = c.planTokens(p)
	}
	ceiling := c.ceiling()
	if ceiling == 0 || res.PayloadTokens <= ceiling {
		return res, nil
	}
	counts := c.sizes(res.Payload)
	cuts := cutPoints(res.Payload)
	total := res.PayloadTokens
	over := func() bool { return total > ceiling }
	// The payload is [pinned][summary?][middle...][request][steps...].
	head, tail := len(p.Pinned), requestAt(res.Payload, p)
	hasSummary := res.Summarized || p.SummaryMessage != nil
	first := head
	if hasSummary {
		first++
	}
	drop := make([]bool, len(res.Payload))
	dropRange := func(from, to int) {
		for i := from; i < to; i++ {
			drop[i] = true
			total -= counts[i]
		}
	}
	// Whole conversations, oldest first: up to the next user message that
	// does not stand between a tool call and its result.
	for cut := first; cut < tail && over(); {
		end := cut + 1
		for end < tail && (res.Payload[end].Role != RoleUser || !cuts[end]) {
			end++
		}
		dropRange(cut, end)
		cut = end
	}
	// The turn's older steps, never its last: up to the next assistant
	// message that does not stand between a tool call and its result.
	if c.cfg.maxTurn > 0 {
		last := len(res.Payload) - 1
		for last > tail && (res.Payload[last].Role != RoleAssistant || !cuts[last]) {
			last--
		}
		for cut := tail + 1; cut < last && over(); {
			end := cut + 1
			for end < last && (res.Payload[end].Role != RoleAssistant || !cuts[end]) {
				end++
			}
			dropRange(cut, end)
			cut = end
		}
	}
	// The tool results that clearing would clear in its next batches: the
	// ceiling comes before the prompt cache.
	if c.cfg.clear != nil && over() {
		res.Cleared = c.clearRest(res, p, drop, counts, &total)
	}
	if hasSummary && over() {
		dropRange(head, head+1)
	}
	var kept, dropped []Message
	for i, m := range res.Payload {
		if drop[i] {
			dropped = append(dropped, m)
		} else {
			kept = append(kept, m)
		}
	}
	res.Payload, res.Dropped, res.PayloadTokens = kept, dropped, total
	if over() {
		if c.cfg.reserved > 0 {
			return res, fmt.Errorf("%w: %d tokens, budget %d (ceiling %d less %d reserved)", ErrBudget, total, ceiling, c.cfg.maxPayload, c.cfg.reserved)
		}
		return res, fmt.Errorf("%w: %d tokens, budget %d", ErrBudget, total, ceiling)
	}
	return res, nil
}

// clearRest clears, in the messages of res.Payload that drop keeps, the
// eligible tool results (see WithToolResultClearing) that p's whole
// batches left, updating counts and total, and returns res.Cleared with
// them.
func (c *Compressor) clearRest(res Result, p Plan, drop []bool, counts []int, total *int) []ClearedResult {
	done := make(map[ClearedResult]bool, len(res.Cleared))
	for _, r := range res.Cleared {
		done[ClearedResult{MessageID: r.MessageID, Part: r.Part}] = true
	}
	by := map[string][]ClearedResult{}
	for _, r := range c.clearable(p, false) {
		if !done[ClearedResult{MessageID: r.MessageID, Part: r.Part}] {
			by[r.MessageID] = append(by[r.MessageID], r)
		}
	}
	cleared := res.Cleared
	for i, m := range res.Payload {
		rs := by[m.ID]
		if drop[i] || len(rs) == 0 {
			continue
		}
		res.Payload[i] = clearedCopy(m, rs)
		n := c.sizes(res.Payload[i : i+1])[0]
		*total += n - counts[i]
		counts[i] = n
		cleared = append(cleared, rs...)
	}
	return cleared
}

// ceiling returns what a payload must fit in: WithMaxPayloadTokens less
// WithReservedTokens, or 0 for no ceiling.
func (c *Compressor) ceiling() int {
	if c.cfg.maxPayload == 0 {
		return 0
	}
	return c.cfg.maxPayload - c.cfg.reserved
}

// requestAt returns the index in payload of the request that opens p's
// current turn: where the turn starts unless, in a compacted turn, the
// request is further back, before steps not yet folded.
func requestAt(payload []Message, p Plan) int {
	tail := len(payload) - len(p.Turn)
	if len(p.Turn) == 0 || (tail >= 0 && payload[tail].ID == p.Turn[0].ID) {
		return max(tail, 0)
	}
	for i := len(payload) - 1; i >= 0; i-- {
		if payload[i].ID == p.Turn[0].ID {
			return i
		}
	}
	return max(tail, 0)
}

// planTokens returns the size of p's payload, reusing its count of the
// largest part.
func (c *Compressor) planTokens(p Plan) int {
	return c.tokens(nil, p.Pinned) + p.Tokens + c.tokens(nil, applyClearing(p.Window, p.Cleared)) + c.tokens(nil, applyClearing(p.sent(p.Summarize), p.Cleared))
}
