package recap

// foldTurn applies WithMaxTurnTokens to p: when its current turn, as sent,
// exceeds the limit and has steps before its last, the older steps join
// Summarize, after the whole history (the window too) and the turn's
// request unless covered already, and Turn keeps the request and the
// latest steps that fit. It reports whether it folded any.
func (c *Compressor) foldTurn(p *Plan, covered bool) bool {
	sent := applyClearing(p.Turn, p.Cleared)
	counts := c.sizes(sent)
	total := 0
	for _, n := range counts {
		total += n
	}
	if total <= c.cfg.maxTurn {
		return false
	}
	// Steps start at assistant messages that do not stand between a tool
	// call and its results; keep the latest that fit in half the limit
	// with the request, and at least the last, so that a fold makes room
	// for several more steps rather than one.
	cuts := cutPoints(p.Turn)
	keep, size := len(p.Turn), counts[0]
	for i := len(p.Turn) - 1; i >= 1; i-- {
		size += counts[i]
		if p.Turn[i].Role != RoleAssistant || !cuts[i] {
			continue
		}
		if keep < len(p.Turn) && size > c.cfg.maxTurn/2 {
			break
		}
		keep = i
	}
	if keep <= 1 || keep == len(p.Turn) {
		return false // one step, or none: nothing to fold
	}
	request, steps := p.Turn[0], p.Turn[1:keep]
	folded := make([]Message, 0, len(p.Summarize)+len(p.Window)+1+len(steps))
	folded = append(append(folded, p.Summarize...), p.Window...)
	if !covered {
		folded = append(folded, request)
	}
	p.Summarize = append(folded, steps...)
	p.Window = nil
	p.Turn = append([]Message{request}, p.Turn[keep:]...)
	return true
}

// requestIn reports whether r, a current turn's request, is among msgs,
// where it is the last user message.
func requestIn(msgs []Message, r Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].ID == r.ID {
			return true
		}
		if msgs[i].Role == RoleUser {
			return false
		}
	}
	return false
}

// cutPoints reports, for each i from 0 to len(msgs), whether msgs may be
// cut before msgs[i] (len(msgs): after the last one): not before a tool
// message, and not between a tool call ("tool-call" part) and a result
// ("tool-result" part) with its ID, parallel calls included. A cut at an
// allowed point never leaves a tool result without its call before it.
func cutPoints(msgs []Message) []bool {
	ok := make([]bool, len(msgs)+1)
	for i := range ok {
		ok[i] = true
	}
	var calls map[string]int // tool call ID to the index of its message
	for i, m := range msgs {
		if m.Role == RoleTool {
			ok[i] = false
		}
		if m.Role == RoleUser {
			// Per-request context goes with the user message it precedes.
			for j := i; j > 0 && msgs[j-1].Role.pinned(); j-- {
				ok[j] = false
			}
		}
		for _, p := range m.Parts {
			switch p.Type {
			case PartToolCall:
				if calls == nil {
					calls = make(map[string]int)
				}
				calls[p.ToolCallID] = i
			case PartToolResult:
				if c, found := calls[p.ToolCallID]; found {
					for j := c + 1; j <= i; j++ {
						ok[j] = false
					}
				}
			}
		}
	}
	return ok
}
