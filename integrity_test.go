package recap

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The invariants recap promises, checked over random chats (with parallel
// tool calls), random options, random Summarizer faults and random request
// sequences: full histories, echoed payloads, older snapshots replayed
// (delayed retries) and edits.
//
//   - every message of a request is in its payload (once), dropped, or
//     covered by the summary in force;
//   - no payload holds a tool result whose call is not before it;
//   - the payload ends with the current turn and fits the ceiling whenever
//     the pinned prompt and the turn do (ErrBudget otherwise);
//   - the stored summary never covers less: except across an edit, the
//     Covered list stored before a request is a prefix of the one after.

// fuzzChat builds a chat from spec, one step per byte: its low two bits
// pick a system, user or assistant message, or an assistant message with
// one or two parallel tool calls followed by their results; the rest of
// the byte is its length in words. Each message's text is its own, as in
// a real chat: without IDs, recap recognizes covered messages by content
// after an echo (see ChainIDs), which a text repeated right there makes
// ambiguous.
func fuzzChat(spec []byte) []Message {
	var msgs []Message
	for i, b := range spec {
		words := strings.Repeat("w ", int(b>>3))
		id := fmt.Sprint("m", i)
		switch b & 3 {
		case 0:
			msgs = append(msgs, Message{ID: id, Role: RoleSystem, Content: fmt.Sprintf("rules%d %s", i, words)})
		case 1:
			msgs = append(msgs, Message{ID: id, Role: RoleUser, Content: fmt.Sprintf("ask%d %s", i, words)})
		case 2:
			msgs = append(msgs, Message{ID: id, Role: RoleAssistant, Content: fmt.Sprintf("say%d %s", i, words)})
		case 3:
			calls := 1 + int(b>>2&1)
			call := Message{ID: id, Role: RoleAssistant}
			var results []Message
			for j := 0; j < calls; j++ {
				cid := fmt.Sprintf("call_%d_%d", i, j)
				call.Parts = append(call.Parts, Part{Type: PartToolCall, ToolCallID: cid, ToolName: "look", Input: []byte(fmt.Sprintf(`{"q":"x%d"}`, i))})
				results = append(results, Message{ID: fmt.Sprintf("%s.r%d", id, j), Role: RoleTool,
					Parts: []Part{{Type: PartToolResult, ToolCallID: cid, ToolName: "look", Output: []byte(fmt.Sprintf("%q", fmt.Sprintf("out%d.%d %s", i, j, words)))}}})
			}
			msgs = append(append(msgs, call), results...)
		}
	}
	return msgs
}

// edited returns chat with new IDs (and new texts) from message k on, as
// when a user edits message k.
func edited(chat []Message, k, gen int) []Message {
	out := append([]Message(nil), chat...)
	for i := k; i < len(out); i++ {
		m := out[i].clone()
		m.ID = fmt.Sprintf("%s~%d", m.ID, gen)
		if m.Content != "" {
			m.Content += " edited"
		}
		out[i] = m
	}
	return out
}

// changeAt changes chat at or after message k of its first end messages,
// as a chat app does, and returns the chat and the ID of a message it
// deleted, or "": kind 0 gives the messages from k on new IDs (and new
// texts), as when a user edits message k and the app starts a branch;
// kind 1 edits a message's text in place (same ID); kind 2 deletes a
// message; kind 3 inserts a user message before it. Deletions and
// insertions keep tool calls beside their results (the message changed is
// the first from k on that neither is nor precedes a tool result); when
// there is none, message k is edited as kind 0. A deletion leaves the
// first message after the pinned prompt (a history without its first
// messages is a client that trims its front, not a deletion) and never
// deletes a system message (one before a user message is per-request
// context, which may be missing later).
func changeAt(chat []Message, k, end, kind, gen int) ([]Message, string) {
	k %= end
	if kind == 0 {
		return edited(chat, k, gen), ""
	}
	lead := 0 // the leading system messages: pinned, never covered
	for lead < len(chat) && chat[lead].Role == RoleSystem {
		lead++
	}
	if kind == 2 {
		k = max(k, lead+1) // a deletion is a gap after a message that stays (see Summary.Digests)
	}
	at := -1
	for i := k; i < end && at < 0; i++ {
		if chat[i].Role != RoleTool && (i+1 >= len(chat) || chat[i+1].Role != RoleTool) && (kind != 1 || chat[i].Content != "") && (kind != 2 || chat[i].Role != RoleSystem) {
			at = i
		}
	}
	if at < 0 {
		return edited(chat, k, gen), ""
	}
	out := append([]Message(nil), chat...)
	switch kind {
	case 1:
		m := out[at].clone()
		m.Content += fmt.Sprintf(" changed%d", gen)
		out[at] = m
		return out, ""
	case 2:
		return append(out[:at], out[at+1:]...), chat[at].ID
	}
	ins := Message{ID: fmt.Sprintf("ins%d", gen), Role: RoleUser, Content: fmt.Sprintf("inserted%d w w", gen)}
	return append(out[:at], append([]Message{ins}, out[at:]...)...), ""
}

// orphanResult returns the ID of the first message of payload with a tool
// result whose call is not before it, or "".
func orphanResult(payload []Message) string {
	calls := map[string]bool{}
	for _, m := range payload {
		for _, p := range m.Parts {
			if p.Type == PartToolResult && !calls[p.ToolCallID] {
				return m.ID
			}
		}
		if m.Role == RoleTool && len(m.Parts) == 0 {
			return m.ID
		}
		for _, p := range m.Parts {
			if p.Type == PartToolCall {
				calls[p.ToolCallID] = true
			}
		}
	}
	return ""
}

// withoutIDs returns msgs as a client of format f without message IDs
// would send them: an OpenAI client sends no IDs at all; one of recap's
// own format, built without IDs, sends none but the summary messages',
// which recap wrote with theirs.
func withoutIDs(msgs []Message, f Format) []Message {
	out := cloneMessages(msgs)
	for i := range out {
		if f == FormatOpenAI || !strings.HasPrefix(out[i].ID, SummaryIDPrefix) {
			out[i].ID = ""
		}
		out[i].Format = f
	}
	return out
}

// checkTwin fails t unless res and err, what Compress returned for the
// request twin sent without IDs, are what it returned for ChainIDs of it
// (want and wantErr) less the derived IDs, and unless the payload's JSON
// has no "id" member twin did not have but the summary message's.
func checkTwin(t *testing.T, step int, twin []Message, res Result, err error, want Result, wantErr error) {
	t.Helper()
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || fmt.Sprint(res.Err) != fmt.Sprint(want.Err) {
		t.Fatalf("step %d: sent without IDs: err %v, absorbed %v; with ChainIDs: err %v, absorbed %v", step, err, res.Err, wantErr, want.Err)
	}
	derived := derivedIDs(twin)
	want.Payload, want.Dropped = clearIDs(want.Payload, derived), clearIDs(want.Dropped, derived)
	if want.Check != nil {
		// The check reads what the Summarizer gets: the messages without
		// the IDs derived for them (see derivedSet.own).
		chk := *want.Check
		for _, items := range []*[]KeyItem{&chk.Missing, &chk.Repaired, &chk.Unfit} {
			*items = append([]KeyItem(nil), *items...)
			for i := range *items {
				if derived[(*items)[i].MessageID] {
					(*items)[i].MessageID = ""
				}
			}
		}
		want.Check = &chk
	}
	if diff := cmp.Diff(want, res, cmpopts.IgnoreFields(Result{}, "Err")); diff != "" {
		t.Fatalf("step %d: sent without IDs, the result is not that of ChainIDs less the derived IDs (-want +got):\n%s", step, diff)
	}
	checkWireIDs(t, res.Payload, twin)
	checkWireIDs(t, res.Dropped, twin)
}

// minTurn returns what of turn a payload must hold: all of it, or with
// WithMaxTurnTokens (compact), its request and its last step.
func minTurn(turn []Message, compact bool) []Message {
	if !compact {
		return turn
	}
	cuts := cutPoints(turn)
	for i := len(turn) - 1; i >= 1; i-- {
		if turn[i].Role == RoleAssistant && cuts[i] {
			return append([]Message{turn[0]}, turn[i:]...)
		}
	}
	return turn
}

// endsWithTurn reports whether payload holds the turn's request and ends
// with the rest of the turn, less what was dropped.
func endsWithTurn(payload, turn, dropped []Message) bool {
	gone := map[string]bool{}
	for _, m := range dropped {
		gone[m.ID] = true
	}
	var rest []Message
	for _, m := range turn[1:] {
		if !gone[m.ID] {
			rest = append(rest, m)
		}
	}
	if len(payload) < len(rest)+1 {
		return false
	}
	for i, m := range rest {
		if payload[len(payload)-len(rest)+i].ID != m.ID {
			return false
		}
	}
	for _, m := range payload[:len(payload)-len(rest)] {
		if m.ID == turn[0].ID {
			return true
		}
	}
	return false
}

var debugSeq = false

// compactedPlans counts the requests of checkSequence planned as Compacted
// turns, so that a test can show it exercised them.
var compactedPlans atomic.Int64

// midSystem reports whether msgs has a system message after its first
// message.
func midSystem(msgs []Message) bool {
	for i, m := range msgs {
		if i > 0 && m.Role == RoleSystem {
			return true
		}
	}
	return false
}

func isPrefix(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkSequence replays one random case and fails t on a broken
// invariant.
//
// flags%3 picks how summaries are made: in the request, or with
// WithBackground by a scheduler that runs each task at once, or one that
// queues tasks and runs them after each request. flags&4 sends every
// request as a format without message IDs would: OpenAI messages whose IDs
// ChainIDs makes, so that an echoed summary is known by its text alone;
// a twin Compressor (its own Store, Summarizer and scheduler) gets each
// request without IDs, as the client sends it, and must answer what the
// first answers less the derived IDs (see checkTwin). flags&192 == 128
// (with flags&4) makes the client's format recap's own, built without IDs,
// which writes the summary message's ID, rather than OpenAI's.
// flags&8 clears old tool results (WithToolResultClearing). flags&16
// compacts long current turns (WithMaxTurnTokens). flags&32 reserves a
// quarter of the ceiling (WithReservedTokens).
func checkSequence(t *testing.T, spec, seq []byte, budget uint16, trigger, mode, flags uint8) {
	truth := fuzzChat(spec)
	if len(truth) == 0 || len(truth) > 400 {
		return
	}
	overhead := int(mode>>5) % 3
	idless := flags&4 != 0
	format := FormatOpenAI // of a client without IDs
	if flags&192 == 128 {
		format = FormatPlain
	}
	newSummarizer := func() Summarizer {
		var calls int
		return SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
			calls++
			switch mode & 3 {
			case 1:
				if calls%3 == 2 {
					return "", errors.New("down")
				}
			case 2:
				if calls%2 == 0 {
					panic("bug")
				}
			case 3:
				if calls%4 == 1 {
					return strings.Repeat("long ", 1000), nil
				}
			}
			last := req.Messages[len(req.Messages)-1]
			name := last.ID
			if idless {
				// The twin's Summarizer gets no derived IDs: both name
				// the message by its first word.
				name = strings.Fields(last.Text() + " -")[0]
			}
			return fmt.Sprintf("s%d through %s", calls, name), nil
		})
	}
	role := []Role{RoleSystem, RoleUser, RoleAssistant}[int(mode>>4&1)*(1+int(mode&1))]
	if idless {
		role = RoleSystem // without IDs, an echo of an older user or assistant summary looks like an edit
	}
	opts := []Option{WithTokenCounter(words), WithTriggerTokens(int(trigger) + 1), WithWindowConversations(int(mode>>2&3) + 1),
		WithMaxPayloadTokens(int(budget)), WithMessageOverhead(overhead), WithSummaryRole(role)}
	if mode&16 != 0 {
		opts = append(opts, WithMaxSummarizeInput(int(trigger)+60))
	}
	if trigger%4 == 3 {
		opts = append(opts, WithSummaryCheck())
	}
	if flags&8 != 0 {
		opts = append(opts, WithToolResultClearing(1, 3))
	}
	if flags&16 != 0 {
		opts = append(opts, WithMaxTurnTokens(int(trigger)/2+5))
	}
	ceiling := int(budget) // what a payload must fit in
	if flags&32 != 0 && budget > 1 {
		opts = append(opts, WithReservedTokens(int(budget)/4))
		ceiling -= int(budget) / 4
	}
	var q, twinQ queue
	twinOpts := opts
	switch flags % 3 {
	case 1:
		inline := WithBackground(func(task func(context.Context)) { task(context.Background()) })
		opts, twinOpts = append(opts, inline), append(twinOpts, inline)
	case 2:
		opts, twinOpts = append(opts, WithBackground(q.run)), append(twinOpts, WithBackground(twinQ.run))
	}
	st, twinStore := NewMemoryStore(), NewMemoryStore()
	c, err := New(newSummarizer(), st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := New(newSummarizer(), twinStore, twinOpts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	load := func(st Store) Summary {
		s, _ := st.Load(ctx, "c") // a MemoryStore does not fail
		return s
	}
	type sent struct {
		msgs []Message
		twin []Message // msgs as sent without IDs, when idless
		res  Result
		end  int // the truth's messages it carries: truth[:end]
	}
	var history []sent // since the last edit
	end, gen := 0, 0
	savedGen := 0                           // the edit generation of the chat when the stored summary was saved
	deleted := map[string]bool{}            // the IDs of messages deleted from the chat
	summaries := map[string]bool{"": false} // every summary text stored so far
	for step, op := range seq {
		if step > 24 {
			break
		}
		var req, twinReq []Message
		switch {
		case op%4 == 2 && len(history) > 0: // a delayed retry of an earlier request
			old := history[int(op>>2)%len(history)]
			req, twinReq = old.msgs, old.twin
		case op%4 == 3 && end > 1: // an edit, deletion or insertion at message k
			gen++
			var gone string
			truth, gone = changeAt(truth, int(op>>4), end, int(op>>2&3), gen)
			if gone != "" {
				deleted[gone] = true
			}
			end = min(end, len(truth))
			history = nil
			fallthrough
		default:
			end = min(len(truth), end+1+int(op>>3)%4)
			req = truth[:end]
			// Without IDs, a client that clears tool results or compacts
			// turns, or whose chat has system messages after the first,
			// and mixes echoed payloads with full histories is out of
			// scope (see WithToolResultClearing and ChainIDs): this one
			// sends full histories.
			echoes := flags&12 != 12 && (flags&4 == 0 || !midSystem(truth[:end]) && flags&16 == 0)
			if last := len(history) - 1; echoes && op%4 == 1 && last >= 0 && !history[last].res.Older && len(history[last].res.Dropped) == 0 && history[last].res.Payload != nil {
				// The client keeps the payload it got as its history.
				req = append(append([]Message(nil), history[last].res.Payload...), truth[history[last].end:end]...)
			}
		}
		if idless && !(op%4 == 2 && len(history) > 0) {
			twinReq = withoutIDs(req, format)
			req = ChainIDs(twinReq)
		}
		before, _ := st.Load(ctx, "c")
		res, err := c.Compress(ctx, "c", req)
		if idless {
			twinRes, twinErr := twin.Compress(ctx, "c", twinReq)
			checkTwin(t, step, twinReq, twinRes, twinErr, res, err)
			if stored, want := load(twinStore), load(st); !stored.Equal(want) {
				t.Fatalf("step %d: sent without IDs, the twin stored %+v, with ChainIDs %+v", step, stored, want)
			}
		}
		if debugSeq {
			t.Logf("step %d op %d: req %v\n  before %v %v\n  payload %v older=%v stale=%v summarized=%v compacted err=%v", step, op%4, ids(req), before.LastMessageID, before.Covered, ids(res.Payload), res.Older, res.Stale, res.Summarized, err)
		}
		if errors.Is(err, ErrNoUserMessage) {
			continue
		}
		after, _ := st.Load(ctx, "c")
		if savedGen == gen && !isPrefix(before.Covered, after.Covered) {
			t.Fatalf("step %d (op %d): the stored summary covers less:\nbefore %v\nafter  %v", step, op%4, before.Covered, after.Covered)
		}
		if savedGen == gen && res.Stale && !before.IsZero() {
			t.Fatalf("step %d (op %d): summary through %s taken for stale, with no edit since it was saved", step, op%4, before.LastMessageID)
		}
		if !after.Equal(before) {
			savedGen = gen
		}
		summaries[after.Text] = true
		if !after.IsZero() && after.Covered[len(after.Covered)-1] != after.LastMessageID {
			t.Fatalf("step %d: Covered %v does not end with the boundary %q", step, after.Covered, after.LastMessageID)
		}
		if err != nil && !errors.Is(err, ErrBudget) {
			t.Fatalf("step %d: Compress: %v", step, err)
		}
		if id := orphanResult(res.Payload); id != "" {
			t.Fatalf("step %d: payload %v: tool result %s without its call before it", step, ids(res.Payload), id)
		}
		p, perr := c.Plan(req, before) // what the request was planned against
		if perr != nil {
			t.Fatalf("Plan: %v", perr)
		}
		if p.Stale {
			// Compress planned against the summary a save replaced that
			// stands for this history, if one does (see branches): its
			// turn may be compacted, its results cleared otherwise.
			ch, _ := index(req)
			if q := c.planBranch("c", ch, p); !q.Stale {
				p, _ = c.Plan(req, q.Summary)
			}
		}
		if p.Compacted {
			compactedPlans.Add(1)
		}
		// The smallest payload: the pinned prompt and the turn, as sent
		// (its results cleared: over the ceiling, every eligible one, in
		// whole batches or not).
		cleared := p.Cleared
		if flags&8 != 0 {
			cleared = c.clearable(p, false)
		}
		floor := c.tokens(nil, p.Pinned) + c.tokens(nil, applyClearing(minTurn(p.Turn, flags&16 != 0), cleared))
		if debugSeq {
			t.Logf("plan pinned %v turn %v stale %v; floor %d; res payload tokens %d cleared %v", ids(p.Pinned), ids(p.Turn), p.Stale, floor, res.PayloadTokens, res.Cleared)
		}
		switch {
		case budget > 0 && floor > ceiling:
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("step %d: pinned+turn = %d over budget %d, err = %v, want ErrBudget", step, floor, ceiling, err)
			}
		case err != nil:
			t.Fatalf("step %d: Compress: %v", step, err)
		case budget > 0 && res.PayloadTokens > ceiling:
			t.Fatalf("step %d: payload %d tokens over budget %d", step, res.PayloadTokens, ceiling)
		}
		count := map[string]int{}
		recount := 0
		for _, m := range res.Payload {
			count[m.ID]++
			recount += words(m.Text()) + overhead
		}
		if err == nil && recount != res.PayloadTokens {
			t.Fatalf("step %d: PayloadTokens = %d, the payload counts %d", step, res.PayloadTokens, recount)
		}
		if m := c.Measure(res.Payload); err == nil && m != res.PayloadTokens {
			t.Fatalf("step %d: PayloadTokens = %d, Measure of the payload %d", step, res.PayloadTokens, m)
		}
		for _, m := range res.Dropped {
			count[m.ID]++
		}
		// Covered is the truth: a message is covered when the summary in
		// force lists its ID with the digest of what it says now (an echo,
		// a placeholder or a summary saved without digests aside).
		covered := map[string]string{}
		for i, id := range res.Summary.Covered {
			d := "*"
			if res.Summary.checked() && res.Summary.Digests[i] != "" {
				d = strings.TrimPrefix(res.Summary.Digests[i], ContextMark)
			}
			covered[id] = d
			if k := contentKey(id); k != "" {
				covered[k] = d // IDs of ChainIDs change after an echo; their content keys do not
			}
			if deleted[id] {
				t.Fatalf("step %d (op %d): the summary in force covers %s, deleted from the chat: %v", step, op%4, id, res.Summary.Covered)
			}
		}
		isCovered := func(m Message) bool {
			for _, key := range []string{m.ID, messageKey(m)} {
				if d, ok := covered[key]; ok && (d == "*" || d == Digest(m) || hasPlaceholder(m)) {
					return true
				}
			}
			return false
		}
		for _, m := range req {
			switch n := count[m.ID]; {
			case n > 1:
				t.Fatalf("step %d: message %s is %d times in payload and dropped", step, m.ID, n)
			case n == 0 && !isCovered(m) && !strings.HasPrefix(m.ID, SummaryIDPrefix) && !summaries[m.Text()]:
				t.Fatalf("step %d (op %d): message %s of %v is lost: not in the payload %v, not dropped, not covered by %v %v", step, op%4, m.ID, ids(req), ids(res.Payload), res.Summary.Covered, res.Summary.Digests)
			}
		}
		if !endsWithTurn(res.Payload, p.Turn, res.Dropped) {
			t.Fatalf("step %d: payload %v does not end with the turn %v", step, ids(res.Payload), ids(p.Turn))
		}
		if res.Older && (res.Summarized || !res.Summary.IsZero()) {
			t.Fatalf("step %d: an older snapshot summarized or used the summary: %+v", step, res)
		}
		q.drain() // the scheduler runs what was queued before the next request
		twinQ.drain()
		if drained, want := load(twinStore), load(st); idless && !drained.Equal(want) {
			t.Fatalf("step %d: sent without IDs, the twin's background tasks stored %+v, with ChainIDs %+v", step, drained, want)
		}
		if drained, _ := st.Load(ctx, "c"); savedGen == gen && !isPrefix(after.Covered, drained.Covered) {
			t.Fatalf("step %d (op %d): a background task made the stored summary cover less:\nbefore %v\nafter  %v", step, op%4, after.Covered, drained.Covered)
		} else if !drained.Equal(after) {
			savedGen = gen
		}
		history = append(history, sent{msgs: req, twin: twinReq, res: res, end: end})
		if op%4 == 2 && len(history) > 1 {
			history[len(history)-1].end = 0 // a replayed request is not echoed onwards
			history = history[:len(history)-1]
		}
	}
}

// FuzzCompress checks the invariants above on the fuzzer's cases.
func FuzzCompress(f *testing.F) {
	f.Add([]byte{0, 41, 42, 43, 45, 42, 47, 49, 50, 43, 41, 42, 41}, []byte{0, 1, 1, 1, 2, 1, 6, 1, 3, 1, 1, 10}, uint16(0), uint8(20), uint8(16), uint8(0))
	f.Add([]byte{0, 0, 9, 19, 10, 17, 15, 9, 90, 9}, []byte{0, 4, 8, 2, 1, 1, 1, 3, 0}, uint16(60), uint8(5), uint8(3|16), uint8(1))
	f.Add([]byte{9, 250, 9, 250, 9, 255, 250, 9}, []byte{0, 0, 1, 1, 2, 6, 1}, uint16(0), uint8(1), uint8(2|32), uint8(2))
	f.Add([]byte{0, 41, 42, 43, 45, 42, 47, 49, 50, 43, 41, 42, 41}, []byte{0, 1, 1, 1, 2, 1, 6, 1, 3, 1, 1, 10}, uint16(0), uint8(20), uint8(16), uint8(4|8)) // OpenAI, without IDs
	f.Add([]byte{0, 0, 9, 19, 10, 17, 15, 9, 90, 9}, []byte{0, 4, 8, 2, 1, 1, 1, 3, 0}, uint16(60), uint8(5), uint8(3|16), uint8(4|16|128))                    // recap's own format, without IDs
	f.Fuzz(func(t *testing.T, spec, seq []byte, budget uint16, trigger, mode, flags uint8) {
		if len(spec) > 120 || len(seq) > 40 {
			return
		}
		checkSequence(t, spec, seq, budget, trigger, mode, flags)
	})
}

// TestCompressInvariants runs the invariants of FuzzCompress on 3,000
// random cases (750 under the race detector), so that every test run
// checks them.
func TestCompressInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 3000
	switch {
	case testing.Short():
		n = 300
	case raceEnabled:
		n = 750 // the first 750 cases: all of them run without -race
	}
	for i := 0; i < n; i++ {
		spec := make([]byte, 5+r.Intn(40))
		for j := range spec {
			spec[j] = byte(r.Intn(256))
			if j > 0 && spec[j]&3 == 0 && r.Intn(4) > 0 {
				spec[j] |= 1 // few mid-chat system messages
			}
			spec[j] &^= 0xC0 // messages of 0 to 7 words
		}
		seq := make([]byte, 4+r.Intn(20))
		for j := range seq {
			seq[j] = byte(r.Intn(256))
		}
		budget := uint16(0)
		if r.Intn(3) == 0 {
			budget = uint16(20 + r.Intn(200))
		}
		trigger, mode, flags := uint8(r.Intn(80)), uint8(r.Intn(256)), uint8(r.Intn(3)|r.Intn(16)<<2)
		if flags&4 != 0 && i%3 == 0 {
			flags |= 128 // a client of recap's own format, without IDs
		}
		ok := t.Run(fmt.Sprint(i), func(t *testing.T) { checkSequence(t, spec, seq, budget, trigger, mode, flags) })
		if !ok {
			t.Fatalf("case: spec=%v seq=%v budget=%d trigger=%d mode=%d flags=%d", spec, seq, budget, trigger, mode, flags)
		}
	}
}
