package recap

import "strings"

// SummaryIDPrefix starts the ID of the summary message that recap puts in
// a payload; the boundary ID follows it.
const SummaryIDPrefix = "recap-summary:"

// Plan is how a chat splits up for one turn. In order, every input message
// is in exactly one of Pinned, Covered, Summarize, Window or Turn, except
// recap's own summary messages echoed back by a client, which are in
// Echoed, and the request of a Compacted turn, which is in Turn and also
// in Covered or Summarize.
//
// A Plan shows the chat as recap works with it: a message sent without
// an ID has, in the Plan's slices, the ID that [ChainIDs] derives for it,
// the ID that [Plan.Boundary], Summary (LastMessageID and Covered) and
// Cleared name it by. [Plan.Payload] gives the messages back without it.
type Plan struct {
	// Echoed are the summary messages of recap's found in the input, as
	// when a client sends back a payload it received: messages whose text
	// is the existing summary's (with or without the hint of
	// WithRecallHint) and whose ID is SummaryIDPrefix followed
	// by its boundary (or, in a format without message IDs, any ID). They
	// stand for the messages the summary covers: they are not history,
	// and the summary in force takes their place. Any other message, even
	// one whose ID starts with SummaryIDPrefix, is an ordinary message.
	Echoed []Message
	// Pinned are the leading system (and developer) messages: the app's
	// prompt. They are never summarized or counted against the trigger,
	// and always come first. Pinning stops at an echoed summary, and at
	// any message whose ID starts with SummaryIDPrefix.
	Pinned []Message
	// Covered are the messages up to and including the boundary of the
	// existing summary (or an echo of it), which that summary stands for.
	// They are not sent.
	Covered []Message
	// Summary is the existing summary in force: the zero Summary if the
	// chat has none, if it is stale, or if the chat is Older than it.
	Summary Summary
	// SummaryMessage is Summary as a message of the summary role, in the
	// format of the chat's current turn (see [NewTextMessage]), with the
	// hint of WithRecallHint after its text, or nil when Summary is zero.
	SummaryMessage *Message
	// Summarize are the messages after the boundary and before the window:
	// the ones a summarization folds into the summary.
	Summarize []Message
	// Window are the recent conversations kept raw. It is empty or starts
	// with a user message, or with the system messages right before one
	// (per-request context, which belongs to the conversation of the user
	// message it precedes; see ContextMark), as when the window is one
	// conversation and the current turn's request has context before it.
	Window []Message
	// Turn is the current turn: the last user message and everything after
	// it. It is never summarized, except in a Compacted turn.
	Turn []Message
	// Compacted reports that WithMaxTurnTokens compacts the current turn:
	// its older steps are folded into the summary (by this plan, in
	// Summarize, or before, in Covered) together with its request, and
	// Turn holds the request, which the payload sends again right after
	// the summary, and the steps not folded.
	Compacted bool
	// Tokens is the size of the part to summarize: SummaryMessage and
	// Summarize, each message counted as its Text plus the message overhead.
	Tokens int
	// Trigger reports whether Tokens exceeds the trigger and Summarize is
	// not empty, so that Compress would summarize. It is false for an
	// Older chat.
	Trigger bool
	// Cleared are the tool results that WithToolResultClearing replaces by
	// placeholders in the payload, oldest first. Summarize, Window and Turn
	// hold the messages whole; Payload and Tokens have them cleared.
	Cleared []ClearedResult
	// Stale reports that the existing summary was dropped because its
	// boundary is not in the history before the current turn and the chat
	// is not Older: messages were edited (new IDs from the edited message
	// on) or deleted. The whole history then counts as unsummarized.
	Stale bool
	// Older reports that msgs is an older snapshot of the chat than the
	// existing summary: every message up to the current turn is one the
	// summary already covers (see [Summary.Covered]), as with a delayed
	// retry. The payload is then built from msgs alone, without the
	// summary (which speaks of later messages), nothing is summarized, and
	// the stored summary is left as it is.
	Older bool

	// Derived are the IDs that recap derived for the messages sent without
	// one (see [ChainIDs]), in their order; nil if every message had an ID.
	// The Plan's slices, Boundary, Summary and Cleared name those messages
	// by them; Payload gives them back without.
	Derived []string
}

// Payload returns the messages to send when nothing is summarized:
// Pinned, SummaryMessage, Summarize, Window and Turn, in a fresh slice.
// In a Compacted turn, the turn's request comes right after the summary,
// or in Summarize when this plan folds it. A message sent without an ID
// has none in the payload either: only SummaryMessage, recap's own, has
// an ID that msgs did not.
func (p Plan) Payload() []Message {
	return newDerivedSet(p.Derived).own(p.assemble(p.SummaryMessage, p.Summarize))
}

// assemble returns a payload in a fresh slice: Pinned, summary (if not
// nil), rest (what of Summarize is not folded into the summary), Window
// and Turn; in a Compacted turn, the turn's request right after the
// summary unless it is among rest.
func (p Plan) assemble(summary *Message, rest []Message) []Message {
	out := make([]Message, 0, len(p.Pinned)+2+len(rest)+len(p.Window)+len(p.Turn))
	out = append(out, p.Pinned...)
	if summary != nil {
		out = append(out, *summary)
	}
	turn := p.Turn
	if p.Compacted && len(turn) > 0 {
		if !requestIn(rest, turn[0]) {
			out = append(out, applyClearing(turn[:1], p.Cleared)...)
		}
		turn = turn[1:]
	}
	out = append(out, applyClearing(rest, p.Cleared)...)
	out = append(out, applyClearing(p.Window, p.Cleared)...)
	return append(out, applyClearing(turn, p.Cleared)...)
}

// Boundary returns the ID of the last message of Summarize, which becomes
// the boundary when they are summarized, or "" if Summarize is empty. For a
// message sent without an ID, it is the ID derived for it (see [ChainIDs]).
func (p Plan) Boundary() string {
	if len(p.Summarize) == 0 {
		return ""
	}
	return p.Summarize[len(p.Summarize)-1].ID
}

// after returns the payload after the messages of Summarize up to s's
// boundary were folded into s: Pinned, s as a message of role (with hint,
// see summaryMessage), the rest of Summarize (if chunks were left), Window
// and Turn, in a fresh slice.
func (p Plan) after(s Summary, role Role, hint string) []Message {
	rest := p.Summarize
	for i, m := range rest {
		if m.ID == s.LastMessageID {
			rest = rest[i+1:]
			break
		}
	}
	sm := summaryMessage(s, role, p.Turn[0].Format, hint)
	return p.assemble(&sm, rest)
}

// summaryMessage returns s as a message of role in the chat's format (that
// of its current turn): a UIMessage with one text part, an OpenAI message
// with its content (and no "id" on the wire), or a plain message. Its text
// is summaryMessageText(s, hint).
func summaryMessage(s Summary, role Role, format Format, hint string) Message {
	return NewTextMessage(format, SummaryIDPrefix+s.LastMessageID, role, summaryMessageText(s, hint))
}

// Plan splits msgs, the whole chat in order with the current turn last,
// given the chat's existing summary. It is pure: it calls neither the
// Summarizer nor the Store, only the token counter, so tests of windowing
// logic can use it directly.
//
// The history starts after the boundary of the existing summary: after
// the message whose ID is existing.LastMessageID, or after an echo of the
// summary message itself (see [Plan.Echoed]), whichever comes later. When
// neither is in msgs before the current turn, msgs is either Older than
// the summary ([Plan.Older]) or edited ([Plan.Stale]).
//
// A message without an ID gets the one that [ChainIDs] derives for it,
// from its content and the ID of the message before it, so that a chat in
// a format without message IDs, such as OpenAI's, needs none; in a chat
// that mixes both, messages with an ID keep it, and it feeds the chain.
// The Plan's slices hold the messages with these IDs (see [Plan]), its
// Payload without them. AI SDK UIMessages ([FormatUI]) always carry an
// ID: one without is an error.
//
// The returned slices are fresh, but their messages share Parts and Extra
// with msgs. Plan never modifies msgs.
//
// Plan fails with [ErrNoMessages] for an empty msgs, with a
// [*MessageError] (matching [ErrInvalidMessage]) for a UIMessage without
// an ID, a duplicate ID, an unknown role or a tool result whose call is
// not before it, and with [ErrNoUserMessage] if
// there is no user message.
func (c *Compressor) Plan(msgs []Message, existing Summary) (Plan, error) {
	ch, err := index(msgs)
	if err != nil {
		return Plan{}, err
	}
	p, err := c.plan(ch, existing)
	if err != nil {
		return Plan{}, err
	}
	p.Echoed = fresh(p.Echoed)
	var covered []Message
	for _, m := range p.Covered {
		if !p.echo(m) {
			covered = append(covered, m)
		}
	}
	p.Covered = covered
	for _, part := range []*[]Message{&p.Pinned, &p.Summarize, &p.Window, &p.Turn} {
		*part = fresh(*part)
	}
	return p, nil
}

// echo reports whether m is one of p.Echoed.
func (p Plan) echo(m Message) bool {
	for _, e := range p.Echoed {
		if e.ID == m.ID {
			return true
		}
	}
	return false
}

// pinnable reports whether m may belong to the pinned prompt.
func pinnable(m Message) bool {
	return m.Role.pinned() && !strings.HasPrefix(m.ID, SummaryIDPrefix)
}

// plan is Plan on a validated chat, returning views of its messages
// rather than copies; Covered includes the echoes.
func (c *Compressor) plan(ch chat, existing Summary) (Plan, error) {
	msgs := ch.msgs
	p := Plan{Derived: ch.derivedIDs()}
	echoEnd := c.echoes(&p, msgs, existing)
	pinned, turn := pinnedEnd(p, msgs, echoEnd), turnStart(p, msgs, echoEnd)
	if turn < pinned {
		return Plan{}, ErrNoUserMessage
	}
	start, inTurn := c.inForce(&p, ch, existing, pinned, turn, echoEnd)
	history := msgs[start:max(start, turn)]
	w := c.windowStart(history)

	// Views of msgs: Plan copies them for its caller; Compress copies only
	// the payload it returns.
	p.Pinned = msgs[:pinned:pinned]
	p.Covered = msgs[pinned:start:start]
	p.Summarize = history[:w:w]
	p.Window = history[w:]
	p.Turn = msgs[turn:]
	if inTurn >= 0 {
		// The request, covered, is sent again before the steps after the
		// boundary.
		p.Turn = append([]Message{msgs[turn]}, msgs[inTurn+1:]...)
		p.Compacted = true
	}
	c.clearPlan(&p)
	fold := false
	if c.cfg.maxTurn > 0 && !p.Older {
		// The request is covered already when the boundary is inside the
		// turn, or when an echo of a compacted turn's summary stands
		// right before it.
		covered := inTurn >= 0 || p.SummaryMessage != nil && coversID(p.Summary.Covered, msgs[turn].ID)
		fold = c.foldTurn(&p, covered)
		p.Compacted = p.Compacted || fold
	}
	p.Tokens = c.tokens(p.SummaryMessage, applyClearing(p.Summarize, p.Cleared))
	p.Trigger = (fold || p.Tokens > c.cfg.trigger) && len(p.Summarize) > 0 && !p.Older
	return p, nil
}

// echoes sets p.Echoed to the echoes of the existing summary in msgs and
// returns the position of the last, or -1. They are recognized before
// anything is pinned: a system-role summary after the system prompt is
// not part of the prompt. In a format without IDs, where the text alone
// tells an echo, only a message in the summary's place is one: with
// nothing but the pinned prompt (or echoes) before it; the same text
// anywhere else (a one-word summary that a user says later, a summary a
// user pastes) is an ordinary message. Its role is not compared: a
// provider's format may send the summary in another role than recap's
// (Anthropic's Messages API takes no assistant message first).
func (c *Compressor) echoes(p *Plan, msgs []Message, existing Summary) int {
	echoEnd := -1
	if existing.IsZero() {
		return echoEnd
	}
	inPlace := true // every message before this one is pinnable or an echo
	for i, m := range msgs {
		echo := isEcho(m, existing, c.cfg.recallHint)
		if echo && m.idless() && !inPlace {
			echo = false
		}
		if echo {
			p.Echoed = append(p.Echoed, m)
			echoEnd = i
		}
		inPlace = inPlace && (echo || pinnable(m))
	}
	return echoEnd
}

// pinnedEnd returns the end of the pinned prompt: the leading system
// messages, up to an echo of the summary.
func pinnedEnd(p Plan, msgs []Message, echoEnd int) int {
	pinned := 0
	for pinned < len(msgs) && pinnable(msgs[pinned]) && !(pinned <= echoEnd && p.echo(msgs[pinned])) {
		pinned++
	}
	return pinned
}

// turnStart returns the position of the current turn's request: the last
// user message that is no echo of the summary, or -1.
func turnStart(p Plan, msgs []Message, echoEnd int) int {
	turn := len(msgs) - 1
	for turn >= 0 && (msgs[turn].Role != RoleUser || (turn <= echoEnd && p.echo(msgs[turn]))) {
		turn--
	}
	return turn
}

// inForce reconciles the chat with the existing summary, setting p's
// Older, Stale, Summary and SummaryMessage, and returns where the history
// starts: after the pinned prompt, or after the boundary of the summary
// in force (or its echo) before the current turn; and the boundary when it
// lies inside the current turn (WithMaxTurnTokens folded its older steps),
// or -1: the steps after it are the turn, still raw.
func (c *Compressor) inForce(p *Plan, ch chat, existing Summary, pinned, turn, echoEnd int) (start, inTurn int) {
	if existing.IsZero() {
		return pinned, -1
	}
	msgs := ch.msgs
	r := reconcile(request{msgs: msgs, ix: ch.ix, s: existing, turn: turn, echoEnd: echoEnd})
	p.Older, p.Stale = r.older, r.stale
	if !r.inForce() {
		return pinned, r.inTurn
	}
	p.Summary = existing
	sm := summaryMessage(existing, c.cfg.role, msgs[turn].Format, c.cfg.recallHint)
	p.SummaryMessage = &sm
	start = max(pinned, r.boundary+1)
	if r.boundary == echoEnd {
		// A compacted turn's request, which its payload sends again after
		// the summary that covers it, is covered once a later turn has
		// begun. (By ID only: in a format without IDs, the echo changes
		// the request's, and the summary then folds the request in a
		// second time.)
		for start < turn && coversID(existing.Covered, msgs[start].ID) {
			start++
		}
	}
	return start, r.inTurn
}

// windowStart returns where the window starts in history, which the
// current turn's request follows: the last WindowConversations-1
// conversations, fewer if the history has fewer. A conversation starts at
// a user message, or at the system messages right before it (per-request
// context, see ContextMark): they belong to it, so that they are never the
// last message folded into a summary.
func (c *Compressor) windowStart(history []Message) int {
	w := len(history)
	for i, n := len(history)-1, 0; i >= 0 && n < c.cfg.window-1; i-- {
		if history[i].Role == RoleUser {
			w, n = i, n+1
		}
	}
	for w > 0 && history[w-1].Role.pinned() {
		w--
	}
	return w
}

// sent returns the messages of Turn that a payload holds besides rest, the
// messages of Summarize not folded into a summary: all of Turn, less its
// request when a compacted turn's request is among rest.
func (p Plan) sent(rest []Message) []Message {
	if p.Compacted && len(p.Turn) > 0 && requestIn(rest, p.Turn[0]) {
		return p.Turn[1:]
	}
	return p.Turn
}

// fresh returns a copy of msgs in a new slice, or nil if it is empty.
func fresh(msgs []Message) []Message {
	if len(msgs) == 0 {
		return nil
	}
	return append([]Message(nil), msgs...)
}
