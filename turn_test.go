package recap

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agentStep returns step i of an agent loop: an assistant message calling
// a tool and the tool's result of size words.
func agentStep(i, size int) []Message {
	cid := fmt.Sprintf("call_%d", i)
	out := fmt.Sprintf("%q", fmt.Sprintf("result %d %s", i, strings.Repeat("data ", size-2)))
	return []Message{
		{ID: fmt.Sprintf("s%d", i), Role: RoleAssistant, Content: fmt.Sprintf("step %d: reading the next file", i),
			Parts: []Part{{Type: PartText, Text: fmt.Sprintf("step %d: reading the next file", i)}, {Type: PartToolCall, ToolCallID: cid, ToolName: "read", Input: []byte(fmt.Sprintf(`{"file":"f%d.go"}`, i))}}},
		{ID: fmt.Sprintf("s%d.r", i), Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: cid, ToolName: "read", Output: []byte(out)}}},
	}
}

// TestAgentLoop replays a 120-step agent loop with 1,500-token tool
// results, compressed before every model call, as an agent does: the raw
// turn grows to 180k tokens, the payload stays under a 25k ceiling, the
// user's request is always in it right after the summary, no tool result
// is an orphan, and each summarization folds only steps not folded before.
func TestAgentLoop(t *testing.T) {
	const (
		steps    = 120
		result   = 1500
		maxTurn  = 12000
		ceiling  = 25000
		prompted = "Refactor the storage layer of the service and keep the public API unchanged."
	)
	// Without compaction, for comparison: the turn overflows.
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(4000))
	chat := append([]Message{{ID: "sys", Role: RoleSystem, Content: "You are a coding agent."}}, conversation(3)[:6]...)
	chat = append(chat, Message{ID: "req", Role: RoleUser, Content: prompted})
	largest, sent := 0, 0
	for i := 1; i <= steps; i++ {
		chat = append(chat, agentStep(i, result)...)
		res, err := c.Compress(context.Background(), "raw", chat)
		if err != nil {
			t.Fatal(err)
		}
		largest, sent = max(largest, res.PayloadTokens), sent+res.PayloadTokens
	}
	if largest <= ceiling {
		t.Fatalf("without compaction the largest payload is %d tokens, under the ceiling", largest)
	}
	t.Logf("without compaction: largest payload %d, %d tokens sent over all calls", largest, sent)

	for _, clearing := range []bool{false, true} {
		t.Run(fmt.Sprint("clearing=", clearing), func(t *testing.T) {
			ctx := context.Background()
			sum := &recorder{}
			opts := []Option{WithTriggerTokens(4000), WithMaxTurnTokens(maxTurn), WithMaxPayloadTokens(ceiling)}
			if clearing {
				opts = append(opts, WithToolResultClearing(2, 100))
			}
			c := mustNew(t, sum, NewMemoryStore(), opts...)
			chat := []Message{{ID: "sys", Role: RoleSystem, Content: "You are a coding agent."}}
			chat = append(chat, conversation(3)[:6]...) // earlier conversations
			request := Message{ID: "req", Role: RoleUser, Content: prompted}
			chat = append(chat, request)
			folded := map[string]bool{}
			raw, calls, largest, sent := 0, 0, 0, 0
			for i := 1; i <= steps; i++ {
				chat = append(chat, agentStep(i, result)...)
				res, err := c.Compress(ctx, "agent", chat)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if res.Err != nil {
					t.Fatalf("step %d: absorbed %v", i, res.Err)
				}
				raw = c.tokens(nil, chat)
				largest, sent = max(largest, res.PayloadTokens), sent+res.PayloadTokens
				if res.PayloadTokens > ceiling || len(res.Dropped) > 0 {
					t.Fatalf("step %d: payload %d tokens (ceiling %d), dropped %v", i, res.PayloadTokens, ceiling, ids(res.Dropped))
				}
				if id := orphanResult(res.Payload); id != "" {
					t.Fatalf("step %d: orphan tool result %s in %v", i, id, ids(res.Payload))
				}
				at := -1
				for j, m := range res.Payload {
					if m.ID == request.ID {
						at = j
					}
				}
				if at < 0 {
					t.Fatalf("step %d: the request is not in the payload %v", i, ids(res.Payload))
				}
				if !res.Summary.IsZero() && (at != 2 || !strings.HasPrefix(res.Payload[1].ID, SummaryIDPrefix)) {
					t.Fatalf("step %d: the request is at %d, not right after the summary: %v", i, at, ids(res.Payload))
				}
				if last := res.Payload[len(res.Payload)-1]; last.ID != chat[len(chat)-1].ID {
					t.Fatalf("step %d: payload ends with %s, not the latest step", i, last.ID)
				}
				for _, req := range sum.calls[calls:] {
					for _, m := range req.Messages {
						if folded[m.ID] {
							t.Fatalf("step %d: %s folded again", i, m.ID)
						}
						folded[m.ID] = true
					}
				}
				calls = len(sum.calls)
				// Every message is in the payload, or folded into the summary.
				for _, m := range chat[1:] {
					in := false
					for _, p := range res.Payload {
						in = in || p.ID == m.ID
					}
					if !in && !folded[m.ID] {
						t.Fatalf("step %d: %s is neither in the payload nor summarized", i, m.ID)
					}
				}
			}
			if raw < 180000 {
				t.Fatalf("the raw turn is only %d tokens", raw)
			}
			if !clearing && (calls < 10 || !folded[request.ID]) {
				t.Fatalf("%d summarizations over %d steps, request folded: %v", calls, steps, folded[request.ID])
			}
			t.Logf("%d steps, raw chat %d tokens: %d summarizations, largest payload %d, %d tokens sent over all calls", steps, raw, calls, largest, sent)
		})
	}
}

// TestAgentLoopNextTurn: when a new turn starts after a compacted one, the
// rest of the old turn is history like any other, and the old turn's
// request is not summarized again.
func TestAgentLoopNextTurn(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{}
	c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(300), WithMaxTurnTokens(300), WithWindowConversations(1))
	chat := []Message{{ID: "req", Role: RoleUser, Content: "do the task"}}
	for i := 1; i <= 4; i++ {
		chat = append(chat, agentStep(i, 100)...)
	}
	res, err := c.Compress(ctx, "c", chat)
	if err != nil || !res.Summarized {
		t.Fatal(err, res)
	}
	if diff := cmp.Diff([]string{"req", "s1", "s1.r", "s2", "s2.r", "s3", "s3.r"}, ids(sum.calls[0].Messages)); diff != "" {
		t.Fatalf("first fold (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{SummaryIDPrefix + "s3.r", "req", "s4", "s4.r"}, ids(res.Payload)); diff != "" {
		t.Fatalf("payload (-want +got):\n%s", diff)
	}
	// The same turn, one more step: the boundary inside the turn stands.
	chat = append(chat, agentStep(5, 100)...)
	p, err := c.Plan(chat, res.Summary)
	if err != nil || p.Stale || p.Older || !p.Compacted || p.Summary.LastMessageID != "s3.r" {
		t.Fatalf("plan on the in-turn boundary: %v %+v", err, p)
	}
	// A new turn: the old turn's rest is history; its request is not
	// folded again.
	chat = append(append(chat, agentStep(6, 100)...), Message{ID: "a", Role: RoleAssistant, Content: "done"}, Message{ID: "next", Role: RoleUser, Content: "thanks, now the docs"})
	p, err = c.Plan(chat, res.Summary)
	if err != nil || p.Stale {
		t.Fatal(err, p.Stale)
	}
	if diff := cmp.Diff([]string{"req", "s1", "s1.r", "s2", "s2.r", "s3", "s3.r"}, ids(p.Covered)); diff != "" {
		t.Fatalf("covered after the turn (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s4", "s4.r", "s5", "s5.r", "s6", "s6.r", "a"}, ids(p.Summarize)); diff != "" {
		t.Fatalf("to summarize after the turn (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"next"}, ids(p.Turn)); diff != "" {
		t.Fatalf("turn (-want +got):\n%s", diff)
	}
	res, err = c.Compress(ctx, "c", chat)
	if err != nil || !res.Summarized || res.Payload[len(res.Payload)-1].ID != "next" {
		t.Fatal(err, res.Summarized, ids(res.Payload))
	}
	// An older snapshot of the compacted turn (a delayed retry) leaves the
	// summary alone.
	before, _ := c.store.Load(ctx, "c")
	old, err := c.Compress(ctx, "c", chat[:8])
	if err != nil || !old.Older || old.Summarized {
		t.Fatalf("older snapshot: %v %+v", err, old)
	}
	after, _ := c.store.Load(ctx, "c")
	if !after.Equal(before) {
		t.Fatalf("an older snapshot changed the summary: %+v", after)
	}
}

// TestAgentLoopEchoNextTurn: a client that keeps the payloads it got as its
// history sends a compacted turn's request again after the summary that
// covers it; once a new turn begins, the request is covered, not folded a
// second time (found by FuzzCompress: the boundary moved back to it).
func TestAgentLoopEchoNextTurn(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{}
	c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(300), WithMaxTurnTokens(300), WithWindowConversations(1))
	chat := []Message{{ID: "req", Role: RoleUser, Content: "do the task"}}
	for i := 1; i <= 4; i++ {
		chat = append(chat, agentStep(i, 100)...)
	}
	res, err := c.Compress(ctx, "c", chat)
	if err != nil || !res.Summarized || res.Payload[1].ID != "req" {
		t.Fatal(err, ids(res.Payload))
	}
	echoed := append(append([]Message(nil), res.Payload...), Message{ID: "a", Role: RoleAssistant, Content: "done"},
		Message{ID: "next", Role: RoleUser, Content: "thanks, now the docs"})
	p, err := c.Plan(echoed, res.Summary)
	if err != nil || p.Stale || p.Older {
		t.Fatal(err, p.Stale, p.Older)
	}
	if diff := cmp.Diff([]string{"req"}, ids(p.Covered)); diff != "" {
		t.Errorf("covered after the echo (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s4", "s4.r", "a"}, ids(p.Summarize)); diff != "" {
		t.Errorf("to summarize (-want +got):\n%s", diff)
	}
	next, err := c.Compress(ctx, "c", echoed)
	if err != nil || next.Err != nil {
		t.Fatal(err, next.Err)
	}
	if next.Summarized {
		covered := next.Summary.Covered
		if covered[len(covered)-1] != next.Summary.LastMessageID || next.Summary.LastMessageID == "req" {
			t.Errorf("summary %+v: the boundary went back to the request", next.Summary)
		}
	}
}

// TestAgentLoopBudget: when the Summarizer fails, the ceiling still holds
// by leaving out the turn's oldest steps, never the request or the last
// step; ErrBudget only when those alone exceed it.
func TestAgentLoopBudget(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{fail: errors.New("down")}
	c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(400), WithMaxTurnTokens(300), WithMaxPayloadTokens(350))
	chat := []Message{{ID: "req", Role: RoleUser, Content: "do the task"}}
	for i := 1; i <= 6; i++ {
		chat = append(chat, agentStep(i, 100)...)
	}
	res, err := c.Compress(ctx, "c", chat)
	if err != nil || res.Err == nil || res.PayloadTokens > 350 {
		t.Fatalf("%v %+v", err, res)
	}
	if got := ids(res.Payload); got[0] != "req" || got[len(got)-1] != "s6.r" || orphanResult(res.Payload) != "" {
		t.Fatalf("payload %v", got)
	}
	if len(res.Dropped) == 0 || res.Dropped[0].ID != "s1" {
		t.Fatalf("dropped %v", ids(res.Dropped))
	}
	c = mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(400), WithMaxTurnTokens(300), WithMaxPayloadTokens(100))
	if _, err := c.Compress(ctx, "c", chat); !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
}

// TestAgentLoopInvariants runs the invariants of FuzzCompress on random
// agent loops: a system prompt, a few conversations, then one request
// followed by many steps (assistant text, and tool calls with one or two
// parallel results), compacted by WithMaxTurnTokens, with random faults,
// ceilings, schedulers, echoes, retries and edits: 800 loops, 200 under the
// race detector.
func TestAgentLoopInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	before := compactedPlans.Load()
	n := 800
	switch {
	case testing.Short():
		n = 150
	case raceEnabled:
		n = 200 // the first 200 loops: all of them run without -race
	}
	for i := 0; i < n; i++ {
		spec := []byte{0 | 5<<3} // the system prompt
		for j := r.Intn(4); j > 0; j-- {
			spec = append(spec, byte(1|r.Intn(8)<<3), byte(2|r.Intn(8)<<3))
		}
		spec = append(spec, byte(1|r.Intn(8)<<3)) // the request
		for j := 5 + r.Intn(40); j > 0; j-- {
			low := byte(3)
			if r.Intn(4) == 0 {
				low = 2
			}
			spec = append(spec, low|byte(r.Intn(32))<<3|byte(r.Intn(2))<<2)
		}
		seq := make([]byte, 6+r.Intn(20))
		for j := range seq {
			seq[j] = byte(r.Intn(256))
			if r.Intn(3) > 0 {
				seq[j] &^= 3 // mostly the next messages of the loop
			}
		}
		budget := uint16(0)
		if r.Intn(2) == 0 {
			budget = uint16(60 + r.Intn(300))
		}
		trigger, mode, flags := uint8(10+r.Intn(120)), uint8(r.Intn(256)), uint8(r.Intn(3)|r.Intn(4)<<2|16)
		ok := t.Run(fmt.Sprint(i), func(t *testing.T) { checkSequence(t, spec, seq, budget, trigger, mode, flags) })
		if !ok {
			t.Fatalf("case: spec=%v seq=%v budget=%d trigger=%d mode=%d flags=%d", spec, seq, budget, trigger, mode, flags)
		}
	}
	if got := compactedPlans.Load() - before; got < int64(n) {
		t.Fatalf("only %d requests over %d loops were planned as compacted turns", got, n)
	} else {
		t.Logf("%d requests planned as compacted turns", got)
	}
}
