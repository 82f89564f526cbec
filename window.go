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
	// with a user message.
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
// an ID, a duplicate ID or an unknown role, and with [ErrNoUserMessage] if
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

// isEcho reports whether m is an echo of the summary message of s: its
// text is s.Text, with or without hint (see summaryMessageText), and its ID is
// the one recap gave it (or m comes from a format without IDs, where its
// ID was derived or made up by the caller).
func isEcho(m Message, s Summary, hint string) bool {
	switch {
	case s.Text == "" || m.Role == RoleTool:
		return false
	case m.idless():
		return len(m.Parts) == 0 && isSummaryText(m.Content, s, hint) // recap writes it as {"role","content"}
	case len(m.ID) != len(SummaryIDPrefix)+len(s.LastMessageID) || !strings.HasPrefix(m.ID, SummaryIDPrefix) || m.ID[len(SummaryIDPrefix):] != s.LastMessageID:
		return false
	case len(m.Parts) == 0:
		return isSummaryText(m.Content, s, hint)
	}
	return isSummaryText(m.Text(), s, hint)
}

// pinnable reports whether m may belong to the pinned prompt.
func pinnable(m Message) bool {
	return m.Role.pinned() && !strings.HasPrefix(m.ID, SummaryIDPrefix)
}

// plan is Plan on a validated chat, returning views of its messages
// rather than copies; Covered includes the echoes.
func (c *Compressor) plan(ch chat, existing Summary) (Plan, error) {
	msgs, ix := ch.msgs, ch.ix
	var p Plan
	p.Derived = ch.derivedIDs()
	// Echoes of the existing summary, recognized before anything is
	// pinned: a system-role summary after the system prompt is not part
	// of the prompt.
	echoEnd := -1 // the history starts after the last echo
	if !existing.IsZero() {
		for i, m := range msgs {
			if isEcho(m, existing, c.cfg.recallHint) {
				p.Echoed = append(p.Echoed, m)
				echoEnd = i
			}
		}
	}
	// Pinned: the leading system messages.
	pinned := 0
	for pinned < len(msgs) && pinnable(msgs[pinned]) && !(pinned <= echoEnd && p.echo(msgs[pinned])) {
		pinned++
	}
	// Turn: the last user message and all after it.
	turn := len(msgs) - 1
	for turn >= pinned && (msgs[turn].Role != RoleUser || (turn <= echoEnd && p.echo(msgs[turn]))) {
		turn--
	}
	if turn < pinned {
		return Plan{}, ErrNoUserMessage
	}

	// History starts after the pinned prompt, or after the boundary of a
	// summary (or its echo) that lies before the current turn. A boundary
	// inside the current turn (WithMaxTurnTokens folded its older steps)
	// stands when the summary covers the turn's request: the steps after
	// it are the turn still raw.
	start := pinned
	inTurn := -1 // the boundary, when it lies inside the current turn
	if !existing.IsZero() {
		b, ok := ix[existing.LastMessageID]
		if ok && b > turn && existing.Text != "" && coversID(existing.Covered, msgs[turn].ID) {
			if b == len(msgs)-1 {
				p.Older = true // no step after the boundary: not newer than the summary
			} else {
				inTurn = b
			}
		}
		if !ok || b >= turn {
			b = -1
		}
		if inTurn >= 0 {
			b = inTurn
		}
		if echoEnd < turn {
			b = max(b, echoEnd)
		}
		if b < 0 && existing.Text != "" && !p.Older {
			// Not by ID: walk the history against what the summary
			// covers (IDs made by ChainIDs change after an echo), from
			// the start, since in a format without IDs an echo of an
			// earlier summary looks like part of the pinned prompt.
			// The walk goes on into the current turn, where a boundary
			// inside it (WithMaxTurnTokens) continues the turn.
			n, atBoundary := coveredRun(msgs, existing.Covered)
			switch {
			case atBoundary && n-1 > turn && n < len(msgs):
				b, inTurn = n-1, n-1
			case n >= turn+1:
				p.Older = true
			case atBoundary:
				b = n - 1
			}
		}
		switch {
		case p.Older:
		case b >= 0 && existing.Text != "":
			p.Summary = existing
			sm := summaryMessage(existing, c.cfg.role, msgs[turn].Format, c.cfg.recallHint)
			p.SummaryMessage = &sm
			start = max(start, b+1)
			if b == echoEnd {
				// A compacted turn's request, which its payload sends
				// again after the summary that covers it, is covered
				// once a later turn has begun. (By ID only: in a format
				// without IDs, the echo changes the request's, and the
				// summary then folds the request in a second time.)
				for start < turn && coversID(existing.Covered, msgs[start].ID) {
					start++
				}
			}
		default:
			p.Stale = true
		}
	}
	history := msgs[start:max(start, turn)]

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

// coversID reports whether covered lists id, searching from the end, where
// a current turn's request is.
func coversID(covered []string, id string) bool {
	for i := len(covered) - 1; i >= 0; i-- {
		if covered[i] == id {
			return true
		}
	}
	return false
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

// coveredRun walks msgs, a history up to and including its current
// turn's user message, against the IDs covered by a summary: it returns
// how many leading messages of msgs appear, in order, among covered (a
// message deleted since may be missing), and whether the last of them is
// the boundary, covered's last. When all of msgs appear, the history is
// an older snapshot of the chat than the summary.
//
// Leading system messages of msgs that the summary does not know are
// passed over: the app's prompt (pinned, never covered), and in a format
// without IDs an echo of an earlier summary of the default system role,
// which stands for the covered messages before the first one found after
// it. (An echo of a user or assistant summary cannot be told from an
// edited message there.)
func coveredRun(msgs []Message, covered []string) (n int, atBoundary bool) {
	if len(covered) == 0 {
		return 0, false
	}
	mt := newMatcher(covered)
	next := 0        // msgs[:n] are among covered[:next]
	echo := false    // the message before was passed over
	standIn := false // the message before stood for covered messages: a summary
	for k, m := range msgs {
		var i int
		var ok bool
		switch {
		case echo:
			var run int
			i, run = mt.resume(msgs[k:], next)
			ok = run > 0
			if m.Role == RoleUser && ok && k+1 < len(msgs) && mt.anywhere(m) {
				if j, after := mt.resume(msgs[k+1:], next); after > run || after > 0 && j+after == len(mt.covered) && i+run < len(mt.covered) {
					// A compacted turn's request sent again after an
					// earlier summary: the walk resumes after it.
					n++
					continue
				}
			}
		case next == 0:
			i, ok = mt.findID(m.ID, next) // the first is never matched by content alone
		default:
			i, ok = mt.find(m, next)
		}
		if !ok && standIn && m.Role == RoleUser && mt.anywhere(m) {
			// A compacted turn's request, covered before the summary's
			// boundary and sent again right after the summary (see
			// WithMaxTurnTokens).
			standIn = false
			n++
			continue
		}
		echo, standIn = false, false
		switch {
		case ok:
			next = i + 1
			standIn = strings.HasPrefix(m.ID, SummaryIDPrefix)
		case next == 0 && m.Role.pinned():
			echo, standIn = true, true
		default:
			return n, false
		}
		n++
		if next == len(covered) {
			return n, true
		}
	}
	return n, false
}

// matcher finds messages among the IDs a summary covers.
type matcher struct {
	covered   []string
	pos       map[string]int   // ID to its position
	byContent map[string][]int // content key to positions, made on first need
}

func newMatcher(covered []string) *matcher {
	mt := &matcher{covered: covered, pos: make(map[string]int, len(covered))}
	for i, id := range covered {
		mt.pos[id] = i
	}
	return mt
}

// resume returns where, at or after next, the covered list resumes with
// msgs after an echo of an earlier summary passed over: the position of
// msgs[0] (found by ID or by its content key) from which most of msgs
// follow one another, and of two such runs the one that does not end on a
// message that differs; and how many of msgs follow from there (0: none
// found).
func (mt *matcher) resume(msgs []Message, next int) (int, int) {
	best, bestRun, bestEnds := 0, 0, false
	candidates := mt.keyPositions(messageKey(msgs[0]))
	if i, ok := mt.find(msgs[0], next); ok {
		candidates = append([]int{i}, candidates...)
	}
	for _, j := range candidates {
		if j < next {
			continue
		}
		run := 1
		for run < len(msgs) && j+run < len(mt.covered) {
			if _, ok := mt.find(msgs[run], j+run); !ok {
				break
			}
			run++
		}
		// A run that ends with msgs or with covered (at the boundary)
		// wins over one as long that ends on a message that differs.
		ends := run == len(msgs) || j+run == len(mt.covered)
		if run > bestRun || (run == bestRun && ends && !bestEnds) {
			best, bestRun, bestEnds = j, run, ends
		}
	}
	return best, bestRun
}

// keyPositions returns the positions of the covered IDs with content key
// key, in order.
func (mt *matcher) keyPositions(key string) []int {
	if key == "" {
		return nil
	}
	if mt.byContent == nil {
		mt.byContent = make(map[string][]int)
		for j, c := range mt.covered {
			if k := contentKey(c); k != "" {
				mt.byContent[k] = append(mt.byContent[k], j)
			}
		}
	}
	return mt.byContent[key]
}

// find returns the position at or after next of the covered message that
// id stands for: id itself (after a gap: messages deleted since); for an
// echo "recap-summary:<x>" of an earlier summary, x, which it stands for
// with all before it; for an ID of ChainIDs whose chain differs (as after
// an echoed summary), the covered message at next if it has the same
// content key (for a message with a cleared tool result, the key of the
// message before it was cleared; see WithToolResultClearing).
func (mt *matcher) find(m Message, next int) (int, bool) {
	if i, ok := mt.findID(m.ID, next); ok {
		return i, true
	}
	for _, j := range mt.keyPositions(messageKey(m)) {
		if j == next || j > next && mt.refolds(next, j) {
			return j, true
		}
	}
	return 0, false
}

// anywhere reports whether m is among the covered messages, by ID or by
// content key.
func (mt *matcher) anywhere(m Message) bool {
	if _, ok := mt.pos[m.ID]; ok {
		return true
	}
	return len(mt.keyPositions(messageKey(m))) > 0
}

// refolds reports whether the covered IDs from i up to j are all
// messages folded in again: each with the content key of a covered ID
// before it, as a compacted turn's request is when it follows an echoed
// summary in a format without IDs (see WithMaxTurnTokens). A walk may pass
// over them.
func (mt *matcher) refolds(i, j int) bool {
	for ; i < j; i++ {
		k := contentKey(mt.covered[i])
		if k == "" {
			return false
		}
		ps := mt.keyPositions(k)
		if len(ps) == 0 || ps[0] >= i {
			return false
		}
	}
	return true
}

// messageKey returns the content key of m: that of its ID, or of the
// message it was before recap cleared its tool results.
func messageKey(m Message) string {
	if ref := clearedRef(m); ref != "" {
		return ref
	}
	return contentKey(m.ID)
}

// findID is find by ID alone, not by content.
func (mt *matcher) findID(id string, next int) (int, bool) {
	if i, ok := mt.pos[strings.TrimPrefix(id, SummaryIDPrefix)]; ok && strings.HasPrefix(id, SummaryIDPrefix) && i+1 >= next {
		return i, true
	}
	i, ok := mt.pos[id]
	return i, ok && i >= next
}

// fresh returns a copy of msgs in a new slice, or nil if it is empty.
func fresh(msgs []Message) []Message {
	if len(msgs) == 0 {
		return nil
	}
	return append([]Message(nil), msgs...)
}

// pinned reports whether r is a role of the app's prompt.
func (r Role) pinned() bool { return r == RoleSystem || r == RoleDeveloper }

// idless reports whether m comes from a wire format without message IDs
// (an OpenAI message that had no "id"), so that its ID was made up.
func (m Message) idless() bool {
	_, wire := m.Extra["id"]
	return m.Format == FormatOpenAI && !wire
}
