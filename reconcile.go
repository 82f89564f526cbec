package recap

import (
	"encoding/json"
	"strings"
)

// Reconciling a request with the summary in force: is the summary's
// boundary (or an echo of the summary) in the request before its current
// turn, inside a long turn that WithMaxTurnTokens compacted, or found by
// content (a chat without IDs whose chain changed); is the request an older
// snapshot of the chat than the summary; or is the summary stale? The
// cases are tried in the order of reconcileCases; the first that applies
// decides.

// A request is what reconciliation reads of a chat's messages.
type request struct {
	msgs    []Message
	ix      map[string]int // each ID to its message's position
	s       Summary        // the summary in force (not zero)
	turn    int            // the current turn's user message
	echoEnd int            // the last echo of s, or -1
}

// A reconciliation is how a request relates to the summary in force.
type reconciliation struct {
	// rule is the case of reconcileCases that decided.
	rule string
	// boundary is the last message the summary stands for (its boundary,
	// or its echo): the history starts after it. -1 when the summary is
	// not in force.
	boundary int
	// inTurn is the boundary when it lies inside the current turn (a turn
	// that WithMaxTurnTokens compacted), or -1.
	inTurn int
	// older reports an older snapshot of the chat than the summary.
	older bool
	// stale reports a summary whose boundary the request lacks: it was
	// edited or had messages deleted.
	stale bool
}

// inForce reports whether the summary stands for the messages up to r's
// boundary.
func (r reconciliation) inForce() bool { return r.boundary >= 0 }

// The reconciliations a case returns.
func older() reconciliation           { return reconciliation{boundary: -1, inTurn: -1, older: true} }
func stale() reconciliation           { return reconciliation{boundary: -1, inTurn: -1, stale: true} }
func boundaryAt(b int) reconciliation { return reconciliation{boundary: b, inTurn: -1} }
func boundaryInTurnAt(b int) reconciliation {
	return reconciliation{boundary: b, inTurn: b}
}

// reconcileCases are the ways a request relates to the summary in force,
// in the order they are tried. Each returns whether it applies and, if so,
// the reconciliation.
var reconcileCases = []struct {
	name string
	try  func(q request) (reconciliation, bool)
}{
	// The request has the summary's boundary, but a message the summary
	// covers was edited in place (the same ID, another digest), deleted
	// (missing between covered messages the request has) or has a message
	// inserted before it: the summary no longer stands for the history,
	// which is folded again.
	{"covered messages changed", func(q request) (reconciliation, bool) {
		return stale(), q.changed()
	}},
	// The summary's boundary is the last step of a compacted turn whose
	// request it covers: nothing is newer than the summary.
	{"compacted turn already covered", func(q request) (reconciliation, bool) {
		b, ok := q.boundaryInTurn()
		return older(), ok && b == len(q.msgs)-1
	}},
	// The boundary is a step of the current turn, which WithMaxTurnTokens
	// compacted: the steps after it are the turn, still raw.
	{"boundary inside the current turn", func(q request) (reconciliation, bool) {
		b, ok := q.boundaryInTurn()
		return boundaryInTurnAt(b), ok
	}},
	// The boundary, or an echo of the summary sent back by a client that
	// keeps the payload as its history, is before the current turn: the
	// later of the two.
	{"boundary or echo before the current turn", func(q request) (reconciliation, bool) {
		b := -1
		if i, ok := q.ix[q.s.LastMessageID]; ok && i < q.turn {
			b = i
		}
		if q.echoEnd < q.turn {
			b = max(b, q.echoEnd)
		}
		if b < 0 {
			return reconciliation{}, false
		}
		if q.s.Text == "" {
			return stale(), true
		}
		return boundaryAt(b), true
	}},
	// Not by ID: the history walked against what the summary covers (IDs
	// that ChainIDs derived change after an echo), from the start, since in
	// a format without IDs an echo of an earlier summary looks like part of
	// the pinned prompt. The walk goes on into the current turn, where a
	// boundary inside it continues the turn; a walk that covers the whole
	// request up to its turn is an older snapshot.
	{"walked by content", func(q request) (reconciliation, bool) {
		if q.s.Text == "" {
			return reconciliation{}, false
		}
		n, atBoundary := coveredRun(q.msgs, q.s.Covered)
		switch {
		case atBoundary && n-1 > q.turn && n < len(q.msgs):
			return boundaryInTurnAt(n - 1), true
		case n >= q.turn+1:
			return older(), true
		case atBoundary:
			return boundaryAt(n - 1), true
		}
		return reconciliation{}, false
	}},
	// Otherwise the request lacks the boundary before its current turn: it
	// was edited (new IDs from the edited message on) or had messages
	// deleted.
	{"stale", func(q request) (reconciliation, bool) {
		return stale(), true
	}},
}

// reconcile returns how q relates to its summary: the first of
// reconcileCases that applies (the last always does).
func reconcile(q request) reconciliation {
	for _, c := range reconcileCases {
		if r, ok := c.try(q); ok {
			r.rule = c.name
			return r
		}
	}
	return stale()
}

// changed reports whether, up to the summary's boundary, the request
// differs from what the summary covers (see Summary.Digests): a covered
// message whose digest changed; a covered message missing after another
// one the request has (a per-request context message, an echo or a
// message without a digest may be); or a message the summary does not
// cover among or before the covered ones (the pinned prompt and echoes of
// summaries aside; a message without an ID of its own, whose derived ID
// chains to the messages before it, cannot be inserted unseen). A summary
// without Digests is not checked.
func (q request) changed() bool {
	b, ok := q.ix[q.s.LastMessageID]
	if !ok || !q.s.checked() || q.s.Text == "" {
		return false
	}
	pos := make(map[string]int, len(q.s.Covered))
	for i, id := range q.s.Covered {
		pos[id] = i
	}
	last := -1 // the position in Covered of the last covered message met
	var dg digester
	for _, m := range q.msgs[:b+1] {
		j, ok := pos[m.ID]
		if k, echo := pos[strings.TrimPrefix(m.ID, SummaryIDPrefix)]; !ok && echo && strings.HasPrefix(m.ID, SummaryIDPrefix) {
			last = max(last, k) // an echoed summary stands for what it covered
			continue
		}
		switch {
		case !ok && (last < 0 && m.Role.pinned() || strings.HasPrefix(m.ID, SummaryIDPrefix) || m.idless() || contentKey(m.ID) != ""):
			continue
		case !ok:
			return true // inserted
		}
		for k := last + 1; k < j && last >= 0; k++ {
			if d := q.s.Digests[k]; d != "" && !strings.HasPrefix(d, ContextMark) && contentKey(q.s.Covered[k]) == "" {
				return true // deleted (a derived ID's message may have another chain now: walked by content)
			}
		}
		if d := strings.TrimPrefix(q.s.Digests[j], ContextMark); d != "" && !hasPlaceholder(m) && !dg.is(m, d) {
			return true // edited
		}
		last = max(last, j) // a compacted turn's request comes again after its summary
	}
	return false
}

// boundaryInTurn returns the summary's boundary when it lies after the
// current turn's request, which the summary covers: a step of a turn that
// WithMaxTurnTokens compacted.
func (q request) boundaryInTurn() (int, bool) {
	b, ok := q.ix[q.s.LastMessageID]
	return b, ok && b > q.turn && q.s.Text != "" && coversID(q.s.Covered, q.msgs[q.turn].ID)
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

// isEcho reports whether m is an echo of the summary message of s: its
// text is s.Text, with or without hint (see summaryMessageText), and its ID is
// the one recap gave it (or m comes from a format without IDs, where its
// ID was derived or made up by the caller); or its text is that of a
// summary Forget withdrew (see Summary.Forgotten), with a summary's ID or
// none.
func isEcho(m Message, s Summary, hint string) bool {
	switch {
	case s.Text == "" || m.Role == RoleTool:
		return false
	case len(s.Forgotten) > 0 && (m.idless() || strings.HasPrefix(m.ID, SummaryIDPrefix)) && s.forgets(m.Text(), hint):
		return true // a summary that Forget withdrew: never history
	case m.idless():
		if m.Format == FormatAnthropic && m.Content == "" && len(m.Parts) == 1 && m.Parts[0].Type == PartText {
			// A lone text block: EncodeAnthropic writes a system-role
			// summary as a system block, which a client may give a
			// cache_control.
			return isSummaryText(m.Parts[0].Text, s, hint)
		}
		return len(m.Parts) == 0 && isSummaryText(m.Content, s, hint) // recap writes it as {"role","content"}
	case len(m.ID) != len(SummaryIDPrefix)+len(s.LastMessageID) || !strings.HasPrefix(m.ID, SummaryIDPrefix) || m.ID[len(SummaryIDPrefix):] != s.LastMessageID:
		return false
	case len(m.Parts) == 0:
		return isSummaryText(m.Content, s, hint)
	}
	return isSummaryText(m.Text(), s, hint)
}

// summaryMessageText returns the text of the summary message of s: s.Text, and
// hint after a blank line unless it is "".
func summaryMessageText(s Summary, hint string) string {
	if hint == "" {
		return s.Text
	}
	return s.Text + "\n\n" + hint
}

// isSummaryText reports whether text is that of a summary message of s,
// with hint or without a hint.
func isSummaryText(text string, s Summary, hint string) bool {
	if text == s.Text {
		return true
	}
	return hint != "" && len(text) == len(s.Text)+2+len(hint) && text == summaryMessageText(s, hint)
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

// placeholderText returns the text of p when it is a tool result that
// recap cleared (see WithToolResultClearing).
func placeholderText(p Part) (string, bool) {
	var text string
	if !p.isResult() || p.Wire != WireString || json.Unmarshal(p.Output, &text) != nil {
		return "", false
	}
	return text, strings.HasPrefix(text, "[recap: the output of ")
}

// hasPlaceholder reports whether m has a tool result that recap cleared:
// its digest is not that of the message.
func hasPlaceholder(m Message) bool {
	for _, p := range m.Parts {
		if _, ok := placeholderText(p); ok {
			return true
		}
	}
	return false
}

// clearedRef returns the content key that a placeholder of m's keeps (see
// placeholder), or "".
func clearedRef(m Message) string {
	for _, p := range m.Parts {
		text, ok := placeholderText(p)
		if !ok {
			continue
		}
		if i := strings.LastIndex(text, "; ref "); i >= 0 && strings.HasSuffix(text, "]") {
			return text[i+len("; ref ") : len(text)-1]
		}
	}
	return ""
}
