package recap

import (
	"encoding/json"
	"fmt"
)

// Tool-result clearing (WithToolResultClearing): old tool outputs in a
// payload are replaced by a short placeholder, in batches, before the
// trigger is checked.

// DefaultClearBatch is how many eligible tool results WithToolResultClearing
// clears at once: results are cleared only in whole batches, oldest first,
// so the payload's prefix changes once every DefaultClearBatch results and
// prompt caches keep hitting in between.
const DefaultClearBatch = 4

// ClearedResult is a tool result that WithToolResultClearing replaced by a
// placeholder in a payload.
type ClearedResult struct {
	// MessageID is the ID of the message that holds the result; for a
	// message sent without one, the ID recap derived for it (see
	// [ChainIDs]), which the payload does not carry.
	MessageID string
	Part      int    // the index of the result's part in the message
	CallID    string // the tool call's ID
	ToolName  string // the tool's name, if known
	Tokens    int    // the result's size, in tokens of the counter (its media by WithMediaTokens)
	Saved     int    // the tokens the placeholder saves
}

// clearing is the configuration of WithToolResultClearing.
type clearing struct {
	keep      int             // the most recent results kept whole
	minTokens int             // results this small are kept whole
	exempt    map[string]bool // tools whose results are kept whole
}

// isResult reports whether p holds a tool's result that clearing can
// replace: a "tool-result" part (but an Anthropic server tool's, whose
// content the API wants as it made it), or an AI SDK tool part with its
// output.
func (p Part) isResult() bool {
	switch {
	case p.Type == PartToolResult:
		return !p.serverTool()
	case p.IsTool() && p.Type != PartToolCall:
		return jsonText(p.Output, p.Wire) != ""
	}
	return false
}

// placeholder is the text that stands for a cleared result.
func (r ClearedResult) placeholder() string {
	name := r.ToolName
	if name == "" {
		name = "a tool"
	}
	ref := ""
	if k := contentKey(r.MessageID); k != "" {
		// Where IDs come from ChainIDs, the message's content key before
		// clearing, so that a payload echoed back is still matched to
		// the messages a summary covers.
		ref = "; ref " + k
	}
	return fmt.Sprintf("[recap: the output of %s (call %s, %d tokens) was cleared to save context%s]", name, r.CallID, r.Tokens, ref)
}

// clearedCopy returns m with the results of cleared (all for m) replaced
// by their placeholders, in the same part, so that the call and its result
// stay a valid pair in the chat's own format: a JSON string output in a
// UIMessage part, a content string in an OpenAI tool message.
func clearedCopy(m Message, cleared []ClearedResult) Message {
	m = m.clone()
	for _, r := range cleared {
		p := &m.Parts[r.Part]
		text, _ := json.Marshal(r.placeholder()) // a string always marshals
		p.Output, p.Wire = text, WireString
	}
	return m
}

// clearResults decides which tool results of msgs (a payload's messages
// after the pinned prompt, oldest first) to clear, given size, the tokens
// of a result: the oldest of the eligible ones in whole batches of
// DefaultClearBatch.
func (c *clearing) clearResults(msgs []Message, size func(Message, Part) int, placeholder func(string) int) []ClearedResult {
	eligible := c.eligible(msgs, size, placeholder)
	return eligible[:len(eligible)/DefaultClearBatch*DefaultClearBatch]
}

// eligible returns the tool results of msgs that clearing may replace,
// oldest first: all but the c.keep most recent results, those of
// c.minTokens tokens or fewer (or no larger than their placeholder) and
// those of exempt tools. placeholder counts a placeholder's tokens.
func (c *clearing) eligible(msgs []Message, size func(Message, Part) int, placeholder func(string) int) []ClearedResult {
	type at struct{ msg, part int }
	var all []at
	names := map[string]string{} // call IDs to their tools' names, for results that do not say
	for i, m := range msgs {
		for j, p := range m.Parts {
			switch {
			case p.Type == PartToolCall:
				names[p.ToolCallID] = p.toolName()
			case p.isResult():
				all = append(all, at{i, j})
			}
		}
	}
	if len(all) <= c.keep {
		return nil
	}
	var eligible []ClearedResult
	for _, a := range all[:len(all)-c.keep] {
		m := msgs[a.msg]
		p := m.Parts[a.part]
		name := p.toolName()
		if name == "" {
			name = names[p.ToolCallID]
		}
		if c.exempt[name] {
			continue
		}
		r := ClearedResult{MessageID: m.ID, Part: a.part, CallID: p.ToolCallID, ToolName: name, Tokens: size(m, p)}
		if r.Tokens > c.minTokens {
			if r.Saved = r.Tokens - placeholder(r.placeholder()); r.Saved > 0 { // never larger
				eligible = append(eligible, r)
			}
		}
	}
	return eligible
}

// applyClearing returns msgs with the messages that hold cleared results
// replaced by cleared copies, in a fresh slice; msgs itself when nothing
// is cleared.
func applyClearing(msgs []Message, cleared []ClearedResult) []Message {
	if len(cleared) == 0 {
		return msgs
	}
	by := make(map[string][]ClearedResult, len(cleared))
	for _, r := range cleared {
		by[r.MessageID] = append(by[r.MessageID], r)
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		if rs, ok := by[m.ID]; ok {
			m = clearedCopy(m, rs)
		}
		out[i] = m
	}
	return out
}

// clearPlan sets p.Cleared: the tool results of p's payload after the
// summary that WithToolResultClearing clears.
func (c *Compressor) clearPlan(p *Plan) {
	if c.cfg.clear == nil {
		return
	}
	p.Cleared = c.clearable(*p, true)
}

// clearable returns the tool results of p's payload after the summary
// that WithToolResultClearing clears: in whole batches, or, when batched
// is false, every eligible one.
func (c *Compressor) clearable(p Plan, batched bool) []ClearedResult {
	msgs := make([]Message, 0, len(p.Summarize)+len(p.Window)+len(p.Turn))
	msgs = append(append(append(msgs, p.Summarize...), p.Window...), p.Turn...)
	size := func(m Message, part Part) int {
		text, media := toolText(part.Output, part.Wire) // as Message.Text and sizes count it
		out := Message{Content: text}
		n := c.counts.countAll(c.cfg.counter, []Message{out})[0]
		for _, mt := range media {
			n += c.cfg.mediaCost(mt)
		}
		return n
	}
	if batched {
		return c.cfg.clear.clearResults(msgs, size, c.cfg.counter.CountTokens)
	}
	return c.cfg.clear.eligible(msgs, size, c.cfg.counter.CountTokens)
}
