package recap

import "fmt"

// fit enforces WithMaxPayloadTokens on res, whose payload was built from p
// and res.Summary: it drops the oldest conversations between the summary
// and the current turn, then the summary message, until the payload fits.
func (c *Compressor) fit(res Result, p Plan) (Result, error) {
	if res.Summarized {
		res.PayloadTokens = c.tokens(nil, res.Payload) // small, after a summarization
	} else {
		res.PayloadTokens = c.planTokens(p)
	}
	if c.cfg.maxPayload == 0 || res.PayloadTokens <= c.cfg.maxPayload {
		return res, nil
	}
	counts := c.sizes(res.Payload)
	cuts := cutPoints(res.Payload)
	total := res.PayloadTokens
	// The payload is [pinned][summary?][middle...][turn].
	head, tail := len(p.Pinned), len(res.Payload)-len(p.Turn)
	hasSummary := res.Summarized || p.SummaryMessage != nil
	first := head
	if hasSummary {
		first++
	}
	cut := first // the middle's messages before cut are dropped
	for cut < tail && total > c.cfg.maxPayload {
		// Drop one conversation: up to the next user message that
		// does not stand between a tool call and its result.
		end := cut + 1
		for end < tail && (res.Payload[end].Role != RoleUser || !cuts[end]) {
			end++
		}
		for i := cut; i < end; i++ {
			total -= counts[i]
		}
		cut = end
	}
	dropSummary := hasSummary && total > c.cfg.maxPayload
	if dropSummary {
		total -= counts[head]
	}
	var kept, dropped []Message
	kept = append(kept, res.Payload[:head]...)
	if hasSummary {
		if dropSummary {
			dropped = append(dropped, res.Payload[head])
		} else {
			kept = append(kept, res.Payload[head])
		}
	}
	dropped = append(dropped, res.Payload[first:cut]...)
	kept = append(kept, res.Payload[cut:]...)
	res.Payload, res.Dropped, res.PayloadTokens = kept, dropped, total
	if total > c.cfg.maxPayload {
		return res, fmt.Errorf("%w: %d tokens, budget %d", ErrBudget, total, c.cfg.maxPayload)
	}
	return res, nil
}

// planTokens returns the size of p's payload, reusing its count of the
// largest part.
func (c *Compressor) planTokens(p Plan) int {
	return c.tokens(nil, p.Pinned) + p.Tokens + c.tokens(nil, applyClearing(p.Window, p.Cleared)) + c.tokens(nil, applyClearing(p.Turn, p.Cleared))
}
