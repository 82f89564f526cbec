package recap

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// What chat apps do to a history (edits in place, deletions, insertions,
// per-request context, branches sent alternately), each against the
// promise that a message of a request is in the payload, dropped, or
// covered by the summary in force, as it says now.

// factChat returns n messages, user and assistant in turn, message i
// saying "fact<i>" and some filler, with IDs "m<i>".
func factChat(n int) []Message {
	msgs := make([]Message, n)
	for i := range msgs {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		msgs[i] = Message{ID: fmt.Sprint("m", i), Role: role, Content: fmt.Sprintf("fact%d and some words to fold", i)}
	}
	return msgs
}

// factSummarizer is a Summarizer whose summary is the previous one and
// the words with a digit of every message folded ("fact3", "doc7"): what
// each message said reaches the summary, so a test can tell which texts a
// summary stands for, and a text makes the same summary whichever
// messages it is split into. It counts its calls.
type factSummarizer struct {
	calls  int
	folded int // messages folded, over all calls
}

func (f *factSummarizer) Summarize(_ context.Context, req SummarizeRequest) (string, error) {
	f.calls++
	f.folded += len(req.Messages)
	parts := []string{req.Previous}
	for _, m := range req.Messages {
		for _, w := range strings.Fields(m.Text()) {
			if strings.ContainsAny(w, "0123456789") {
				parts = append(parts, w)
			}
		}
	}
	return strings.TrimSpace(strings.Join(parts, " ")), nil
}

// factsOf returns the words of a factSummarizer's summary.
func factsOf(s Summary) []string { return strings.Fields(s.Text) }

func newFactCompressor(t *testing.T, window int, opts ...Option) (*Compressor, *factSummarizer, *MemoryStore) {
	t.Helper()
	f := &factSummarizer{}
	st := NewMemoryStore()
	c, err := New(f, st, append([]Option{WithTokenCounter(words), WithTriggerTokens(40), WithWindowConversations(window)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, f, st
}

// TestCoveredMessageChanges is a row of the table each: a covered
// message edited in place, one deleted, one inserted among covered ones.
// Each request after the change is planned stale and the summary is built
// again from the history as it is; the summary never says what a deleted
// message or an edited one's old text said, and an inserted message
// reaches the summary.
func TestCoveredMessageChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func([]Message) []Message
		want   []string // facts the new summary must have
		gone   []string // facts it must not have
	}{
		{"edit in place", func(msgs []Message) []Message {
			msgs[3].Content = "fact3edited and some words to fold"
			return msgs
		}, []string{"fact3edited"}, []string{"fact3"}},
		{"delete", func(msgs []Message) []Message {
			return slices.Delete(msgs, 5, 6)
		}, []string{"fact4", "fact6"}, []string{"fact5"}},
		{"insert", func(msgs []Message) []Message {
			ins := Message{ID: "new", Role: RoleUser, Content: "fact99new and some words to fold"}
			return slices.Insert(msgs, 4, ins)
		}, []string{"fact99new", "fact4"}, nil},
		{"edit the boundary in place", func(msgs []Message) []Message {
			msgs[9].Content = "fact9edited and some words to fold"
			return msgs
		}, []string{"fact9edited"}, []string{"fact9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f, st := newFactCompressor(t, 1)
			ctx := context.Background()
			chat := factChat(13)
			res, err := c.Compress(ctx, "c", chat)
			if err != nil || !res.Summarized {
				t.Fatalf("first request: summarized %v, err %v", res.Summarized, err)
			}
			if !slices.Contains(res.Summary.Covered, "m9") || !res.Summary.checked() {
				t.Fatalf("the first summary covers %v with digests %v; the test needs m9 covered, with digests", res.Summary.Covered, res.Summary.Digests)
			}
			calls := f.calls
			changed := tt.change(cloneMessages(chat))
			res, err = c.Compress(ctx, "c", changed)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Stale || !res.Summarized || f.calls == calls {
				t.Fatalf("after the change: stale %v, summarized %v, calls %d -> %d; want a summary built again", res.Stale, res.Summarized, calls, f.calls)
			}
			facts := factsOf(res.Summary)
			for _, w := range tt.want {
				if !slices.Contains(facts, w) {
					t.Errorf("summary %q lacks %s", res.Summary.Text, w)
				}
			}
			for _, g := range tt.gone {
				if slices.Contains(facts, g) {
					t.Errorf("summary %q still says %s", res.Summary.Text, g)
				}
			}
			checkAccounted(t, changed, res)
			// The next request of the same history plans against the new
			// summary: not stale, no call.
			calls = f.calls
			again, err := c.Compress(ctx, "c", changed)
			if err != nil || again.Stale || f.calls != calls {
				t.Fatalf("the same history again: stale %v, calls %d -> %d, err %v", again.Stale, calls, f.calls, err)
			}
			if stored, _ := st.Load(ctx, "c"); !stored.Equal(res.Summary) {
				t.Errorf("stored %+v, want %+v", stored, res.Summary)
			}
		})
	}
}

// checkAccounted fails t unless every message of req is in res's payload
// or dropped, or covered by res.Summary with the digest of what it says.
func checkAccounted(t *testing.T, req []Message, res Result) {
	t.Helper()
	in := map[string]bool{}
	for _, m := range append(slices.Clone(res.Payload), res.Dropped...) {
		in[m.ID] = true
	}
	digest := map[string]string{}
	for i, id := range res.Summary.Covered {
		digest[id] = strings.TrimPrefix(res.Summary.Digests[i], ContextMark)
	}
	for _, m := range req {
		if d, ok := digest[m.ID]; !in[m.ID] && (!ok || d != Digest(m)) {
			t.Errorf("message %s is neither in the payload nor covered as it says now", m.ID)
		}
	}
}

// TestPerRequestContext: an app adds a system message (retrieved
// documents, an instruction) right before each user message. Sent only
// with the current request, it never makes the summary stale and costs
// the same Summarizer calls as the chat without it; kept in the history,
// it costs no more calls than the same text inside the user messages
// (without WithMessageOverhead: a message of its own costs its overhead
// too, as the provider counts it, which can fire the trigger sooner).
func TestPerRequestContext(t *testing.T) {
	const turns = 30
	ctxMsg := func(i int) Message {
		return Message{ID: fmt.Sprint("ctx", i), Role: RoleSystem, Content: fmt.Sprintf("doc%d retrieved for this question", i)}
	}
	user := func(i int, inline bool) Message {
		m := Message{ID: fmt.Sprint("u", i), Role: RoleUser, Content: fmt.Sprintf("ask%d something long enough", i)}
		if inline {
			m.Content = fmt.Sprintf("doc%d retrieved for this question\n\n", i) + m.Content
		}
		return m
	}
	reply := func(i int) Message {
		return Message{ID: fmt.Sprint("a", i), Role: RoleAssistant, Content: fmt.Sprintf("answer%d with a few words", i)}
	}
	// run sends 30 turns and returns the Summarizer calls and how many
	// requests were stale. kept: the context messages stay in the
	// history; inline: their text is inside the user messages instead;
	// neither: sent with the current request only.
	run := func(t *testing.T, window int, withContext, kept, inline bool) (calls, stale int) {
		c, f, _ := newFactCompressor(t, window, WithMessageOverhead(0))
		var history []Message
		for i := 0; i < turns; i++ {
			req := slices.Clone(history)
			if withContext {
				req = append(req, ctxMsg(i))
			}
			req = append(req, user(i, inline))
			res, err := c.Compress(context.Background(), "c", req)
			if err != nil {
				t.Fatal(err)
			}
			checkAccounted(t, req, res)
			if res.Stale {
				stale++
			}
			if withContext && kept {
				history = append(history, ctxMsg(i))
			}
			history = append(history, user(i, inline), reply(i))
		}
		return f.calls, stale
	}
	for _, window := range []int{1, 2} {
		t.Run(fmt.Sprint("window ", window), func(t *testing.T) {
			plain, _ := run(t, window, false, false, false)
			once, staleOnce := run(t, window, true, false, false)
			kept, staleKept := run(t, window, true, true, false)
			inline, _ := run(t, window, false, false, true)
			t.Logf("Summarizer calls over %d turns: without context %d, context sent once %d, kept %d, inline %d", turns, plain, once, kept, inline)
			if staleOnce != 0 || staleKept != 0 {
				t.Errorf("stale requests: %d with context sent once, %d kept; want 0", staleOnce, staleKept)
			}
			if once != plain {
				t.Errorf("context sent once: %d calls, without it %d", once, plain)
			}
			if kept > inline {
				t.Errorf("context kept: %d calls, the same text inside the user messages %d", kept, inline)
			}
		})
	}
}

// TestBranchesAlternate: after an edit, two branches of one chat (two
// browser tabs) are sent alternately. Each branch's first request builds
// its summary; later ones reuse it instead of rebuilding on every
// request, and each payload carries its own branch's summary.
func TestBranchesAlternate(t *testing.T) {
	for _, inPlace := range []bool{false, true} {
		t.Run(fmt.Sprint("in place ", inPlace), func(t *testing.T) {
			c, f, _ := newFactCompressor(t, 1)
			ctx := context.Background()
			a := factChat(21)
			b := cloneMessages(a)
			if inPlace {
				b[4].Content = "fact4edited and some words to fold"
			} else {
				b = edited(b, 4, 1) // new IDs from the edit on, as most apps do
				b[4].Content = "fact4edited and some words to fold"
			}
			if _, err := c.Compress(ctx, "c", a); err != nil {
				t.Fatal(err)
			}
			first := f.calls
			for i := 0; i < 20; i++ {
				req, want, not := a, "fact4", "fact4edited"
				if i%2 == 0 {
					req, want, not = b, "fact4edited", "fact4"
				}
				res, err := c.Compress(ctx, "c", req)
				if err != nil {
					t.Fatal(err)
				}
				checkAccounted(t, req, res)
				if facts := factsOf(res.Summary); !slices.Contains(facts, want) || slices.Contains(facts, not) {
					t.Fatalf("request %d: summary %q, want its branch's %s", i, res.Summary.Text, want)
				}
			}
			if calls := f.calls - first; calls > 1 {
				t.Errorf("20 requests alternating two branches cost %d Summarizer calls; want 1 (the second branch's first)", calls)
			}
		})
	}
}

// TestEditReusesEarlierSummary: an edit at message k of a chat summarized
// in several steps plans against the newest earlier summary that covers
// only messages before k, so only what follows it is folded again.
func TestEditReusesEarlierSummary(t *testing.T) {
	c, f, _ := newFactCompressor(t, 1)
	ctx := context.Background()
	chat := factChat(61)
	for n := 11; n <= len(chat); n += 10 {
		if _, err := c.Compress(ctx, "c", chat[:n]); err != nil {
			t.Fatal(err)
		}
	}
	before, foldedBefore := f.calls, f.folded
	edit := cloneMessages(chat)
	edit[55].Content = "fact55edited and some words to fold"
	res, err := c.Compress(ctx, "c", edit)
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, edit, res)
	facts := factsOf(res.Summary)
	if !slices.Contains(facts, "fact55edited") || slices.Contains(facts, "fact55") || !slices.Contains(facts, "fact1") {
		t.Fatalf("summary after the edit: %q", res.Summary.Text)
	}
	// The summary of chat[:51] (through m49) stands; m50 to m59 are
	// folded again, m60 is the turn.
	if calls, folded := f.calls-before, f.folded-foldedBefore; calls != 1 || folded != 10 {
		t.Errorf("the edit cost %d calls folding %d messages, want 1 call folding 10", calls, folded)
	}
	if res.Stale {
		t.Errorf("Stale reported, though an earlier summary stood for the history")
	}
}
