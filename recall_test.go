package recap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap/tokens"
)

// recallChat is a chat in English, German and Japanese, with identifiers
// and a tool call, whose summary (recallSummary) covers u1 to a5. With
// the default window of 2 conversations, u6 and a6 are the window and u7
// the current turn: they are in the payload.
func recallChat() []Message {
	return []Message{
		{ID: "sys", Role: RoleSystem, Content: "You are a helpful assistant for deploys, exams and travel."},
		{ID: "u1", Role: RoleUser, Content: "Our payments gateway 4.12.3 was deployed at 11:30; since 14:05 checkout fails. Ticket INC-20931."},
		{ID: "a1", Role: RoleAssistant, Content: "Understood: version 4.12.3, failures since 14:05, ticket INC-20931. Let's look at the ledger service first."},
		{ID: "u2", Role: RoleUser, Content: "Die Prüfung ist am 24. Mai in Leipzig, die Anmeldung läuft bis Ende April."},
		{ID: "a2", Role: RoleAssistant, Content: "Gut: Prüfungstermin 24. Mai in Leipzig. Ich plane die Wiederholung rückwärts ab diesem Datum."},
		{ID: "u3", Role: RoleUser, Content: "札幌のホテルは「グランドホテル」を予約しました。三泊です。"},
		{ID: "a3", Role: RoleAssistant, Content: "了解しました。札幌のホテルに三泊ですね。"},
		{ID: "u4", Role: RoleUser, Content: "Mail the report to ops-lead@example.com and add 10.0.0.7 to /etc/hosts."},
		{ID: "a4", Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "c1", ToolName: "lookup_order", Input: json.RawMessage(`{"order":"BW-58231"}`)}}},
		{ID: "t4", Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "c1", ToolName: "lookup_order",
			Output: json.RawMessage(`{"status":"shipped","carrier":"DHL","tracking":"JD014600006281234567"}`)}}},
		{ID: "a5", Role: RoleAssistant, Content: "The order has shipped with DHL."},
		{ID: "u6", Role: RoleUser, Content: "Should we roll back to 4.12.1? The ledger is still slow."},
		{ID: "a6", Role: RoleAssistant, Content: "Rolling back to 4.12.1 is safe; the ledger schema did not change."},
		{ID: "u7", Role: RoleUser, Content: "And how is the ledger latency now?"},
	}
}

var recallSummary = Summary{
	Text:          "A deploy incident, an exam in Leipzig, a hotel in Sapporo, an order that shipped.",
	LastMessageID: "a5",
	Covered:       []string{"u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4", "t4", "a5"},
}

// found returns the message IDs of excerpts.
func found(excerpts []Excerpt) []string {
	var ids []string
	for _, e := range excerpts {
		ids = append(ids, e.MessageID)
	}
	return ids
}

func TestRecall(t *testing.T) {
	tests := []struct {
		name, query string
		opts        []RecallOption
		want        []string
		reason      string
	}{
		{"english", "Which version was deployed?", nil, []string{"a1", "u1"},
			"a1 says it and answers u1, which says it too: a1 adds half of u1's score"},
		{"identifier", "INC-20931", nil, []string{"a1", "u1"},
			"an identifier is a term as a whole"},
		{"identifier in a question", "ticket number INC?", nil, []string{"a1", "u1"},
			"its parts are terms too"},
		{"email", "ops-lead@example.com", nil, []string{"u4"}, "an email address is an identifier"},
		{"path", "what went into /etc/hosts?", nil, []string{"u4"}, "a path is an identifier"},
		{"german", "Wann ist die Prüfung?", nil, []string{"u2", "a2"},
			"Prüfungstermin matches Prüfung by its prefix; both say when"},
		{"german without umlaut", "Prufung Leipzig", nil, []string{"a2", "u2"},
			"diacritics are folded"},
		{"japanese", "どのホテルを予約した？", nil, []string{"u3", "a3"},
			"bigrams: ホテル, 予約 and した are in u3, ホテル and した in a3"},
		{"tool input", "order BW-58231", nil, []string{"a4", "t4", "a5"},
			"the tool call's input holds the order number; its result follows it"},
		{"tool output", "DHL tracking", nil, []string{"t4", "a5"},
			"the tool's output is searched as Message.Text renders it"},
		{"not in the payload", "ledger", nil, []string{"a1"},
			"u6, a6 (the window) and u7 (the turn) mention the ledger too, but the payload sends them"},
		{"only in the payload", "roll back 4.12.1", nil, []string{"a1", "u1"},
			"4.12.1 is only in the window; its parts 4 and 12 are in 4.12.3"},
		{"nothing", "zebra", nil, nil, "no message has it"},
		{"k", "INC-20931", []RecallOption{RecallResults(1)}, []string{"a1"}, "at most k"},
		{"dropped", "ledger latency rolling back", []RecallOption{RecallDropped([]Message{{ID: "a6"}, {ID: SummaryIDPrefix + "a5"}, {ID: "gone"}})},
			[]string{"a6", "a1"}, "a dropped message is searchable; the summary and unknown IDs are passed over"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs := recallChat()
			before := fmt.Sprint(msgs)
			got, err := Recall(msgs, recallSummary, tc.query, append([]RecallOption{RecallCounter(words)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, found(got)); diff != "" {
				t.Errorf("%s\nRecall(%q) mismatch (-want +got):\n%s", tc.reason, tc.query, diff)
			}
			checkExcerpts(t, msgs, got, DefaultRecallExcerptTokens, words)
			if fmt.Sprint(msgs) != before {
				t.Error("Recall modified msgs")
			}
		})
	}
}

// checkExcerpts checks what every excerpt of msgs guarantees: its message,
// text cut from the message's within n tokens, best first.
func checkExcerpts(t *testing.T, msgs []Message, got []Excerpt, n int, tc TokenCounter) {
	t.Helper()
	for i, e := range got {
		if e.Position < 0 || e.Position >= len(msgs) {
			t.Fatalf("excerpt %d: position %d out of range", i, e.Position)
		}
		m := msgs[e.Position]
		if e.MessageID != m.ID || e.Role != m.Role {
			t.Errorf("excerpt %d: %s %s at %d, but the message there is %s %s", i, e.MessageID, e.Role, e.Position, m.ID, m.Role)
		}
		if inner := strings.TrimSuffix(strings.TrimPrefix(e.Text, recallEllipsis), recallEllipsis); !strings.Contains(m.Text(), inner) {
			t.Errorf("excerpt %d: %q is not cut from %q", i, e.Text, m.Text())
		}
		if k := tc.CountTokens(e.Text); k > n && e.Text != recallEllipsis {
			t.Errorf("excerpt %d: %d tokens, over %d", i, k, n)
		}
		if i > 0 {
			prev := got[i-1]
			if prev.Score < e.Score || (prev.Score == e.Score && prev.Position > e.Position) {
				t.Errorf("excerpts %d and %d out of order: %v then %v", i-1, i, prev, e)
			}
		}
	}
}

func TestRecallFails(t *testing.T) {
	msgs := recallChat()
	tests := []struct {
		name  string
		msgs  []Message
		query string
		opts  []RecallOption
		want  error
	}{
		{"empty query", msgs, "", nil, ErrNoQuery},
		{"no words", msgs, " …?! ", nil, ErrNoQuery},
		{"k", msgs, "x", []RecallOption{RecallResults(0)}, ErrInvalidOption},
		{"tokens", msgs, "x", []RecallOption{RecallExcerptTokens(MinRecallExcerptTokens - 1)}, ErrInvalidOption},
		{"counter", msgs, "x", []RecallOption{RecallCounter(nil)}, ErrInvalidOption},
		{"nil option", msgs, "x", []RecallOption{nil}, ErrInvalidOption},
		{"no messages", nil, "x", nil, ErrNoMessages},
		{"duplicate ID", append(recallChat(), Message{ID: "u1", Role: RoleUser, Content: "again"}), "x", nil, ErrInvalidMessage},
		{"no user message", msgs[:1], "x", nil, ErrNoUserMessage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Recall(tc.msgs, recallSummary, tc.query, tc.opts...)
			if !errors.Is(err, tc.want) || got != nil {
				t.Errorf("Recall = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestRecallSummaryState: nothing is searchable without a summary, with a
// stale one, or in an older snapshot of the chat; a compacted turn's
// request, covered and sent again, is not searchable.
func TestRecallSummaryState(t *testing.T) {
	msgs := recallChat()
	tests := []struct {
		name string
		msgs []Message
		s    Summary
		want []string
	}{
		{"no summary", msgs, Summary{}, nil},
		{"stale", append(msgs[:3:3], msgs[4:]...), Summary{Text: "x", LastMessageID: "u2", Covered: []string{"u1", "a1", "u2"}}, nil},
		{"older", msgs[:4], Summary{Text: "x", LastMessageID: "a2", Covered: []string{"u1", "a1", "u2", "a2"}}, nil},
		{"in force", msgs, recallSummary, []string{"a1", "u1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Recall(tc.msgs, tc.s, "INC-20931")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, found(got)); diff != "" {
				t.Errorf("found mismatch (-want +got):\n%s", diff)
			}
		})
	}

	// A compacted turn: the boundary is a step of the current turn, and
	// the turn's request is covered but sent again after the summary.
	turn := []Message{
		{ID: "sys", Role: RoleSystem, Content: "agent"},
		{ID: "q", Role: RoleUser, Content: "find the invoice INV-7 please"},
		{ID: "s1", Role: RoleAssistant, Content: "searching the archive for INV-7"},
		{ID: "s2", Role: RoleAssistant, Content: "still searching"},
	}
	s := Summary{Text: "The user wants INV-7.", LastMessageID: "s1", Covered: []string{"q", "s1"}}
	got, err := Recall(turn, s, "INV-7")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"s1"}, found(got)); diff != "" {
		t.Errorf("compacted turn: found mismatch (-want +got):\n%s", diff)
	}
}

// TestRecallWithoutIDs: messages without IDs get the IDs ChainIDs
// derives, which the summary covers.
func TestRecallWithoutIDs(t *testing.T) {
	msgs := recallChat()
	for i := range msgs {
		msgs[i].ID = ""
	}
	derived := ChainIDs(msgs)
	s := recallSummary
	s.LastMessageID = derived[10].ID
	s.Covered = found(func() []Excerpt {
		var e []Excerpt
		for _, m := range derived[1:11] {
			e = append(e, Excerpt{MessageID: m.ID})
		}
		return e
	}())
	got, err := Recall(msgs, s, "INC-20931")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{derived[2].ID, derived[1].ID}, found(got)); diff != "" {
		t.Errorf("found mismatch (-want +got):\n%s", diff)
	}
	if msgs[0].ID != "" {
		t.Error("Recall gave the caller's messages IDs")
	}
}

// TestRecallExcerptTokens: a long message is cut around its best matches,
// within the bound, with "…" where it is cut, for a word counter and for
// the tiktoken counter.
func TestRecallExcerptTokens(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "filler%d ", i)
		if i == 200 {
			b.WriteString("the storage quota is 512 GiB for team NEEDLE-42 ")
		}
	}
	long := b.String()
	msgs := []Message{
		{ID: "u1", Role: RoleUser, Content: long},
		{ID: "a1", Role: RoleAssistant, Content: "noted"},
		{ID: "u2", Role: RoleUser, Content: "next"},
	}
	s := Summary{Text: "x", LastMessageID: "a1", Covered: []string{"u1", "a1"}}
	tiktoken, _ := tokens.NewTiktoken(tokens.O200kBase)
	for _, tc := range []struct {
		name    string
		counter TokenCounter
		n       int
	}{
		{"words 16", words, 16},
		{"words 40", words, 40},
		{"tiktoken 16", tiktoken, 16},
		{"tiktoken 60", tiktoken, 60},
		{"tiktoken default", tiktoken, DefaultRecallExcerptTokens},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Recall(msgs, s, "storage quota NEEDLE-42", RecallCounter(tc.counter), RecallExcerptTokens(tc.n))
			if err != nil || len(got) != 1 {
				t.Fatalf("Recall = %v, %v", got, err)
			}
			checkExcerpts(t, msgs, got, tc.n, tc.counter)
			text := got[0].Text
			if !strings.HasPrefix(text, recallEllipsis) || !strings.HasSuffix(text, recallEllipsis) || !strings.Contains(text, "NEEDLE-42") {
				t.Errorf("excerpt %q: want the hits, cut on both sides", text)
			}
			if n := tc.counter.CountTokens(text); n < tc.n*3/4 {
				t.Errorf("excerpt %q: %d tokens, want near %d", text, n, tc.n)
			}
			inner := strings.Trim(text, recallEllipsis)
			if inner != strings.TrimSpace(inner) || !strings.Contains(long, " "+inner+" ") {
				t.Errorf("excerpt %q is not cut at white space", text)
			}
		})
	}
}

// TestExcerptText covers the windows of excerptText: whole, cut at white
// space or between CJK characters, the best cluster of hits.
func TestExcerptText(t *testing.T) {
	runes := TokenCounterFunc(func(s string) int { return utf8.RuneCountInString(s) })
	hitsOf := func(text string, terms ...string) []hit {
		var hs []hit
		for _, term := range terms {
			for i := 0; ; {
				j := strings.Index(text[i:], term)
				if j < 0 {
					break
				}
				hs = append(hs, hit{start: i + j, end: i + j + len(term), term: term, weight: 1})
				i += j + len(term)
			}
		}
		sort.Slice(hs, func(a, b int) bool { return hs[a].start < hs[b].start })
		return hs
	}
	tests := []struct {
		name, text string
		terms      []string
		n          int
		want       string
		reason     string
	}{
		{"whole", "short text", []string{"text"}, 20, "short text", "a text that fits is whole, unmarked"},
		{"cut both", "aaa bbb ccc ddd eee fff ggg", []string{"ddd"}, 13, "…ccc ddd eee…", "cut at white space around the hit"},
		{"at the start", "aaa bbb ccc ddd eee fff ggg", []string{"aaa"}, 12, "aaa bbb ccc…", "the room before the start goes after it"},
		{"at the end", "aaa bbb ccc ddd eee fff ggg", []string{"ggg"}, 12, "…eee fff ggg", "the room after the end goes before it"},
		{"cluster", "xx aa yy zz bb cc dd ee ff gg aa bb hh ii jj kk ll mm", []string{"aa", "bb"}, 16, "…gg aa bb hh…", "the terms found together win"},
		{"cjk", "あいうえおかきくけこさしすせそ", []string{"かき"}, 6, "…おかきく…", "cut between characters"},
		{"hit too long", "aaa " + strings.Repeat("x", 40) + " bbb", []string{strings.Repeat("x", 40)}, 12, "…xxxxxxxxxx…", "the hit's first characters"},
		{"nothing fits", "aaa bbb ccc", []string{"bbb"}, 2, "…", "not even one character with its marks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := excerptText(tc.text, runes.CountTokens(tc.text), hitsOf(tc.text, tc.terms...), tc.n, runes.CountTokens)
			if got != tc.want {
				t.Errorf("%s\nexcerptText(%q, %d) = %q, want %q", tc.reason, tc.text, tc.n, got, tc.want)
			}
		})
	}
}

// TestCompressorRecall: the Compressor's Recall finds what Recall finds
// with the Store's summary, also from its cached index after the chat
// grew, was edited or went back to an older snapshot; it adds the
// messages a payload dropped; and an unknown chat has nothing.
func TestCompressorRecall(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	if err := st.Save(ctx, "chat", Summary{}, recallSummary); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, SummarizerFunc(noSummary), st, WithTokenCounter(words), WithTriggerTokens(10_000))
	msgs := recallChat()
	same := func(msgs []Message, query string) {
		t.Helper()
		got, err := c.Recall(ctx, "chat", msgs, query)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Recall(msgs, recallSummary, query, RecallCounter(words))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Compressor.Recall(%q) mismatch (-Recall +Compressor.Recall):\n%s", query, diff)
		}
	}
	same(msgs, "ledger INC-20931")
	same(msgs, "Prüfung")
	grown := append(recallChat(), Message{ID: "a7", Role: RoleAssistant, Content: "ledger p99 is 80 ms"}, Message{ID: "u8", Role: RoleUser, Content: "good"})
	same(grown, "ledger INC-20931")
	edited := recallChat()
	edited[2].Content = "Understood, ledger first."
	same(edited, "ledger INC-20931")
	same(msgs, "ledger INC-20931")
	same(msgs[:12], "ledger INC-20931") // an older snapshot: the turn is u6

	if got, err := c.Recall(ctx, "unknown", msgs, "ledger"); err != nil || got != nil {
		t.Errorf("unknown chat: Recall = %v, %v; want nothing", got, err)
	}

	// With a ceiling the payload drops the oldest conversation after the
	// summary: u6 and a6 become searchable.
	cc := mustNew(t, SummarizerFunc(noSummary), st, WithTokenCounter(words), WithTriggerTokens(10_000), WithMaxPayloadTokens(45))
	res, err := cc.Compress(ctx, "chat", msgs)
	if err != nil || len(res.Dropped) == 0 {
		t.Fatalf("Compress = %+v, %v; want messages dropped", res, err)
	}
	got, err := cc.Recall(ctx, "chat", msgs, "4.12.1")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Recall(msgs, recallSummary, "4.12.1", RecallCounter(words), RecallDropped(res.Dropped))
	if diff := cmp.Diff(want, got); diff != "" || !contains(found(got), "u6") || !contains(found(got), "a6") {
		t.Errorf("dropped: Compressor.Recall = %v; want %v, with u6 and a6", found(got), found(want))
	}
}

func TestCompressorRecallFails(t *testing.T) {
	ctx := context.Background()
	msgs := recallChat()
	if _, err := mustNew(t, nil, nil).Recall(ctx, "c", msgs, "x"); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("without a Store: %v, want ErrInvalidOption", err)
	}
	c := mustNew(t, SummarizerFunc(noSummary), &failingStore{loadErr: errors.New("down")})
	if _, err := c.Recall(ctx, "c", msgs, "x"); err == nil || !strings.Contains(err.Error(), "down") {
		t.Errorf("failing Load: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	c = mustNew(t, SummarizerFunc(noSummary), NewMemoryStore())
	if _, err := c.Recall(cancelled, "c", msgs, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := c.Recall(ctx, "c", msgs, "?"); !errors.Is(err, ErrNoQuery) {
		t.Errorf("no words: %v", err)
	}
	if _, err := c.Recall(ctx, "c", msgs, "x", RecallResults(-1)); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("bad option: %v", err)
	}
}

// TestRecallCacheBounded: the indexes of many chats stay within the
// cache's budget, and a chat evicted is indexed again, the same.
func TestRecallCacheBounded(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	c := mustNew(t, SummarizerFunc(noSummary), st, WithTokenCounter(words), WithTriggerTokens(1_000_000))
	chat := longChat(t, 2000, true)
	var covered []string
	for _, m := range chat[1 : len(chat)-2] {
		covered = append(covered, m.ID)
	}
	s := Summary{Text: "x", LastMessageID: covered[len(covered)-1], Covered: covered}
	first, err := Recall(chat, s, "quick river trees", RecallCounter(words))
	if err != nil || len(first) == 0 {
		t.Fatal(first, err)
	}
	size := 0
	for i := 0; i < 40; i++ {
		id := fmt.Sprint("chat", i)
		if err := st.Save(ctx, id, Summary{}, s); err != nil {
			t.Fatal(err)
		}
		got, err := c.Recall(ctx, id, chat, "quick river trees")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, got); diff != "" {
			t.Fatalf("chat %d: mismatch (-Recall +Compressor.Recall):\n%s", i, diff)
		}
		rc := c.recalls
		rc.mu.Lock()
		if i == 0 {
			size = rc.cur[id].bytes
		}
		total := 0
		for _, m := range []map[string]*chatIndex{rc.cur, rc.old} {
			for _, e := range m {
				total += e.bytes
			}
		}
		rc.mu.Unlock()
		if total > 2*recallGenerationBytes {
			t.Fatalf("after %d chats the cache holds %d bytes, over %d", i+1, total, 2*recallGenerationBytes)
		}
	}
	t.Logf("the index of a 2,000-message chat takes about %d KiB", size/1024)
	if size == 0 || size > recallGenerationBytes/4 {
		t.Errorf("index of %d bytes: want some, and a few chats per generation", size)
	}
	// chat0 was evicted long ago: indexed again, the same.
	got, err := c.Recall(ctx, "chat0", chat, "quick river trees")
	if err != nil || !cmp.Equal(first, got) {
		t.Errorf("evicted chat: %v, %v", found(got), err)
	}
}

// FuzzRecall checks Recall's invariants on chats and queries of the
// fuzzer's making: it never panics and fails only as documented; its
// excerpts are cut from their messages, within the token bound, never of
// a message the payload sends, best first then by position, at most k;
// it is deterministic; and the Compressor finds the same.
func FuzzRecall(f *testing.F) {
	f.Add("deploy 4.12.3|ok|ticket INC-20931 at 14:05|noted|ホテルの予約|はい|next", "INC-20931 ticket", uint8(5), uint8(3), uint8(0))
	f.Add("Die Prüfung ist am 24. Mai|gut|a b c d e f g h i j k l m n o p q r s t u v w x y z|z|last", "Prüfung z", uint8(4), uint8(1), uint8(200))
	f.Add("…|\xff\xfe|"+strings.Repeat("x", 300)+"|y", "x …", uint8(3), uint8(9), uint8(7))
	f.Fuzz(func(t *testing.T, text, query string, boundary, k, n uint8) {
		if len(text) > 4000 || len(query) > 200 {
			return
		}
		msgs := []Message{{ID: "sys", Role: RoleSystem, Content: "system prompt"}}
		for i, part := range strings.Split(text, "|") {
			role := RoleUser
			if i%2 == 1 {
				role = RoleAssistant
			}
			msgs = append(msgs, Message{ID: fmt.Sprint("m", i), Role: role, Content: part})
		}
		msgs = append(msgs, Message{ID: "turn", Role: RoleUser, Content: "the current turn"})
		var s Summary
		if b := int(boundary) % len(msgs); b > 0 {
			for _, m := range msgs[1 : b+1] {
				s.Covered = append(s.Covered, m.ID)
			}
			s.Text, s.LastMessageID = "summary", s.Covered[len(s.Covered)-1]
		}
		k1, tokens := int(k%10)+1, MinRecallExcerptTokens+int(n)
		opts := []RecallOption{RecallResults(k1), RecallExcerptTokens(tokens), RecallCounter(words)}
		got, err := Recall(msgs, s, query, opts...)
		if err != nil {
			if !errors.Is(err, ErrNoQuery) && !errors.Is(err, ErrNoUserMessage) {
				t.Fatalf("Recall: unexpected error %v", err)
			}
			return
		}
		if len(got) > k1 {
			t.Errorf("%d excerpts, more than k = %d", len(got), k1)
		}
		checkExcerpts(t, msgs, got, tokens, words)
		c, err := New(SummarizerFunc(noSummary), NewMemoryStore(), WithTokenCounter(words))
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Plan(msgs, s)
		if err != nil {
			t.Fatal(err)
		}
		sent := map[string]bool{}
		for _, m := range p.Payload() {
			sent[m.ID] = true
		}
		for _, e := range got {
			if sent[e.MessageID] {
				t.Errorf("excerpt of %s, which the payload sends", e.MessageID)
			}
		}
		again, _ := Recall(msgs, s, query, opts...)
		if !cmp.Equal(got, again) {
			t.Errorf("not deterministic:\n%v\n%v", got, again)
		}
		ctx := context.Background()
		if err := c.store.Save(ctx, "c", Summary{}, s); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // the index built, then cached
			viaC, err := c.Recall(ctx, "c", msgs, query, opts...)
			if err != nil || !cmp.Equal(got, viaC) {
				t.Errorf("Compressor.Recall = %v, %v; Recall found %v", viaC, err, got)
			}
		}
	})
}

// TestCompressorRecallConcurrent: concurrent searches of the same chats,
// some of them growing, find what Recall finds (run with -race).
func TestCompressorRecallConcurrent(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	for _, id := range []string{"a", "b"} {
		if err := st.Save(ctx, id, Summary{}, recallSummary); err != nil {
			t.Fatal(err)
		}
	}
	c := mustNew(t, SummarizerFunc(noSummary), st, WithTriggerTokens(10_000))
	grown := append(recallChat(), Message{ID: "a7", Role: RoleAssistant, Content: "ledger p99 is 80 ms"}, Message{ID: "u8", Role: RoleUser, Content: "good"})
	chats := [][]Message{recallChat(), grown}
	queries := []string{"INC-20931", "Prüfung Leipzig", "ホテル", "DHL tracking"}
	want := map[string][]Excerpt{}
	for i, msgs := range chats {
		for _, q := range queries {
			got, err := Recall(msgs, recallSummary, q, RecallCounter(words))
			if err != nil {
				t.Fatal(err)
			}
			want[fmt.Sprint(i, q)] = got
		}
	}
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for n := 0; n < 8; n++ {
				i, q := (g+n)%2, queries[(g*3+n)%len(queries)]
				got, err := c.Recall(ctx, []string{"a", "b"}[n%2], chats[i], q, RecallCounter(words))
				if err == nil && !cmp.Equal(want[fmt.Sprint(i, q)], got) {
					err = fmt.Errorf("chat %d, %q: %v, want %v", i, q, found(got), found(want[fmt.Sprint(i, q)]))
				}
				errs <- err
			}
		}(g)
	}
	for n := 0; n < 64; n++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
