package recap

import "fmt"

// fit enforces WithMaxPayloadTokens on res, whose payload was built from p
// and res.Summary: it drops the oldest conversations between the summary
// and the current turn, then (with WithMaxTurnTokens) the oldest steps of
// the turn after its request, then the summary message, until the payload
// fits.
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
