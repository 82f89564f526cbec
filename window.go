package recap

import (
	"fmt"
	"strings"
)

// SummaryIDPrefix starts the ID of the summary message that recap puts in
// a payload; the boundary ID follows it.
const SummaryIDPrefix = "recap-summary:"

// Plan is how a chat splits up for one turn. In order, every input message
// is in exactly one of Pinned, Covered, Summarize, Window or Turn, except
// recap's own summary messages echoed back by a client, which are in
// Echoed.
type Plan struct {
	// Echoed are summary messages of recap's (their ID starts with
	// SummaryIDPrefix) found in the input, as when a client sends back a
	// payload it received. They are not history: they are left out, and
	// the summary in force is put in their place.
	Echoed []Message
	// Pinned are the leading system messages: the app's prompt. They are
	// never summarized or counted, and always come first.
	Pinned []Message
	// Covered are the messages up to and including the boundary of the
	// existing summary, which that summary stands for. They are not sent.
	Covered []Message
	// Summary is the existing summary in force: the zero Summary if the
	// chat has none or if it is stale.
	Summary Summary
	// SummaryMessage is Summary as a message of the summary role, or nil
	// when Summary is zero.
	SummaryMessage *Message
	// Summarize are the messages after the boundary and before the window:
	// the ones a summarization folds into the summary.
	Summarize []Message
	// Window are the recent conversations kept raw. It is empty or starts
	// with a user message.
	Window []Message
	// Turn is the current turn: the last user message and everything after
	// it. It is never summarized.
	Turn []Message
	// Tokens is the size of the part to summarize: SummaryMessage and
	// Summarize, each message counted as its Text plus the message overhead.
	Tokens int
	// Trigger reports whether Tokens exceeds the trigger and Summarize is
	// not empty, so that Compress would summarize.
	Trigger bool
	// Stale reports that the existing summary was dropped because its
	// boundary is not in the history before the current turn (messages were
	// edited or deleted); the whole history then counts as unsummarized.
	Stale bool
}

// Payload returns the messages to send when nothing is summarized:
// Pinned, SummaryMessage, Summarize, Window and Turn, in a fresh slice.
func (p Plan) Payload() []Message {
	n := len(p.Pinned) + 1 + len(p.Summarize) + len(p.Window) + len(p.Turn)
	out := make([]Message, 0, n)
	out = append(out, p.Pinned...)
	if p.SummaryMessage != nil {
		out = append(out, *p.SummaryMessage)
	}
	out = append(out, p.Summarize...)
	out = append(out, p.Window...)
	return append(out, p.Turn...)
}

// Boundary returns the ID of the last message of Summarize, which becomes
// the boundary when they are summarized, or "" if Summarize is empty.
func (p Plan) Boundary() string {
	if len(p.Summarize) == 0 {
		return ""
	}
	return p.Summarize[len(p.Summarize)-1].ID
}

// after returns the payload after the messages of Summarize up to s's
// boundary were folded into s: Pinned, s as a message of role, the rest of
// Summarize (if chunks were left), Window and Turn, in a fresh slice.
func (p Plan) after(s Summary, role Role) []Message {
	rest := p.Summarize
	for i, m := range rest {
		if m.ID == s.LastMessageID {
			rest = rest[i+1:]
			break
		}
	}
	out := make([]Message, 0, len(p.Pinned)+1+len(rest)+len(p.Window)+len(p.Turn))
	out = append(out, p.Pinned...)
	out = append(out, summaryMessage(s, role))
	out = append(out, rest...)
	out = append(out, p.Window...)
	return append(out, p.Turn...)
}

func summaryMessage(s Summary, role Role) Message {
	return Message{ID: SummaryIDPrefix + s.LastMessageID, Role: role, Content: s.Text}
}

// Plan splits msgs, the whole chat in order with the current turn last,
// given the chat's existing summary. It is pure: it calls neither the
// Summarizer nor the Store, only the token counter, so tests of windowing
// logic can use it directly.
//
// The returned slices are fresh, but their messages share Parts and Extra
// with msgs. Plan never modifies msgs.
//
// Plan fails with [ErrNoMessages] for an empty msgs, with a
// [*MessageError] (matching [ErrInvalidMessage]) for a message without an
// ID, with a duplicate ID or with an unknown role, and with
// [ErrNoUserMessage] if there is no user message.
func (c *Compressor) Plan(msgs []Message, existing Summary) (Plan, error) {
	msgs, ix, echoed, err := prepare(msgs)
	if err != nil {
		return Plan{}, err
	}
	p, err := c.plan(msgs, ix, existing)
	if err != nil {
		return Plan{}, err
	}
	p.Echoed = fresh(echoed)
	for _, part := range []*[]Message{&p.Pinned, &p.Covered, &p.Summarize, &p.Window, &p.Turn} {
		*part = fresh(*part)
	}
	return p, nil
}

// prepare validates msgs, takes out recap's own summary messages (echoed
// back by a client) and maps each remaining ID to its position.
func prepare(msgs []Message) ([]Message, map[string]int, []Message, error) {
	ix, err := index(msgs)
	if err != nil {
		return nil, nil, nil, err
	}
	var echoed []Message
	for _, m := range msgs {
		if strings.HasPrefix(m.ID, SummaryIDPrefix) {
			echoed = append(echoed, m)
		}
	}
	if len(echoed) == 0 {
		return msgs, ix, nil, nil
	}
	history := make([]Message, 0, len(msgs)-len(echoed))
	for _, m := range msgs {
		if !strings.HasPrefix(m.ID, SummaryIDPrefix) {
			history = append(history, m)
		}
	}
	if len(history) == 0 {
		return nil, nil, nil, ErrNoUserMessage
	}
	ix, _ = index(history) // valid: a subset of valid messages
	return history, ix, echoed, nil
}

// index validates msgs and maps each ID to its position.
func index(msgs []Message) (map[string]int, error) {
	if len(msgs) == 0 {
		return nil, ErrNoMessages
	}
	ix := make(map[string]int, len(msgs))
	for i, m := range msgs {
		switch j, dup := ix[m.ID]; {
		case m.ID == "":
			return nil, &MessageError{Index: i, Reason: "no ID"}
		case dup:
			return nil, &MessageError{Index: i, ID: m.ID, Reason: fmt.Sprintf("same ID as message %d", j)}
		case !m.Role.valid():
			return nil, &MessageError{Index: i, ID: m.ID, Reason: fmt.Sprintf("unknown role %q", m.Role)}
		}
		ix[m.ID] = i
	}
	return ix, nil
}

// plan is Plan on validated msgs, returning views of msgs rather than
// copies.
func (c *Compressor) plan(msgs []Message, ix map[string]int, existing Summary) (Plan, error) {
	// Pinned: the leading system messages.
	pinned := 0
	for pinned < len(msgs) && msgs[pinned].Role == RoleSystem {
		pinned++
	}
	// Turn: the last user message and all after it.
	turn := len(msgs) - 1
	for turn >= pinned && msgs[turn].Role != RoleUser {
		turn--
	}
	if turn < pinned {
		return Plan{}, ErrNoUserMessage
	}

	// History starts after the pinned prompt, or after the boundary of a
	// summary whose boundary lies before the current turn.
	var p Plan
	start := pinned
	if !existing.IsZero() {
		b, ok := ix[existing.LastMessageID]
		if ok && b < turn && existing.Text != "" {
			p.Summary = existing
			sm := summaryMessage(existing, c.cfg.role)
			p.SummaryMessage = &sm
			if b+1 > start {
				start = b + 1
			}
		} else {
			p.Stale = true
		}
	}
	history := msgs[start:turn]

	// Window: the last WindowConversations-1 conversations of the history,
	// starting at a user message; fewer if the history has fewer.
	w := len(history)
	for i, n := len(history)-1, 0; i >= 0 && n < c.cfg.window-1; i-- {
		if history[i].Role == RoleUser {
			w, n = i, n+1
		}
	}

	// Views of msgs: Plan copies them for its caller; Compress copies only
	// the payload it returns.
	p.Pinned = msgs[:pinned:pinned]
	p.Covered = msgs[pinned:start:start]
	p.Summarize = history[:w:w]
	p.Window = history[w:]
	p.Turn = msgs[turn:]
	p.Tokens = c.tokens(p.SummaryMessage, p.Summarize)
	p.Trigger = p.Tokens > c.cfg.trigger && len(p.Summarize) > 0
	return p, nil
}

// tokens returns the tokens of the summary message (if any) and msgs,
// each counted as its Text plus the message overhead, with the counts the
// Compressor remembers from earlier calls.
func (c *Compressor) tokens(summary *Message, msgs []Message) int {
	n := 0
	if summary != nil {
		n += c.counts.countAll(c.cfg.counter, []Message{*summary})[0] + c.cfg.overhead
	}
	for _, k := range c.counts.countAll(c.cfg.counter, msgs) {
		n += k + c.cfg.overhead
	}
	return n
}

// fresh returns a copy of msgs in a new slice, or nil if it is empty.
func fresh(msgs []Message) []Message {
	if len(msgs) == 0 {
		return nil
	}
	return append([]Message(nil), msgs...)
}
