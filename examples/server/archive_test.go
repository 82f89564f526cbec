package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/sqlstore"
)

// factChat is a chat of n conversations, each user message stating a
// fact of its own (an identifier found nowhere else), and a question.
func factChat(n int) []recap.Message {
	var msgs []recap.Message
	for i := 1; i <= n; i++ {
		msgs = append(msgs,
			recap.Message{ID: fmt.Sprintf("u%d", i), Role: recap.RoleUser, Content: fmt.Sprintf("Item %d: the tracking number of parcel %d is TRK-%d-QX, sent from depot %d in Leeds.", i, i, 88000+i, i*3)},
			recap.Message{ID: fmt.Sprintf("a%d", i), Role: recap.RoleAssistant, Content: fmt.Sprintf("Noted parcel %d; I will watch the carrier's updates for it over the next days.", i)})
	}
	return append(msgs, recap.Message{ID: "now", Role: recap.RoleUser, Content: "Which parcels are still on the way?"})
}

func body(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// recallAnswer is the answer of the recall route.
type recallAnswer struct {
	Excerpts []struct {
		ID, Role, Text string
	}
	Text string
}

func recallAs(t *testing.T, base, chat, key, query string) (int, recallAnswer, string) {
	t.Helper()
	status, raw := do(t, "POST", base+"/api/chats/"+chat+"/recall", key, body(t, map[string]any{"query": query, "k": 3}))
	var out recallAnswer
	if status == 200 {
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			t.Fatalf("recall answer: %v: %s", err, raw)
		}
	}
	return status, out, raw
}

// found reports whether an excerpt of a holds s.
func (a recallAnswer) found(s string) bool {
	for _, e := range a.Excerpts {
		if strings.Contains(e.Text, s) {
			return true
		}
	}
	return false
}

// TestRecallArchive: a client that keeps its payloads (echo) recalls the
// messages its summary covers from the server's archive, which only its
// tenant sees; deleting a message takes it out of the archive and the
// summary; deleting the summary erases the archive.
func TestRecallArchive(t *testing.T) {
	base := startServer(t, nil, "-api-keys", keyFile(t), "-trigger", "150")
	// Bob's first request is his whole chat: most of it is folded.
	status, raw := do(t, "POST", base+"/api/chats/parcels/payload", keyBob, body(t, map[string]any{"messages": factChat(8)}))
	var res struct {
		Payload    []recap.Message
		Summarized bool
		Summary    recap.Summary
	}
	if status != 200 || json.Unmarshal([]byte(raw), &res) != nil || !res.Summarized || !strings.Contains(strings.Join(res.Summary.Covered, ","), "u1") {
		t.Fatalf("payload: %d %.400s", status, raw)
	}
	// From now on he sends back what he got, plus the new turn.
	echo := append(res.Payload, recap.Message{ID: "a-now", Role: recap.RoleAssistant, Content: "Parcels 7 and 8."},
		recap.Message{ID: "q2", Role: recap.RoleUser, Content: "Thanks. Anything else due this week?"})
	if status, raw := do(t, "POST", base+"/api/chats/parcels/payload", keyBob, body(t, map[string]any{"messages": echo})); status != 200 || strings.Contains(raw, `"stale":true`) {
		t.Fatalf("echo: %d %.400s", status, raw)
	}
	status, got, raw := recallAs(t, base, "parcels", keyBob, "tracking number of parcel 1")
	if status != 200 || !got.found("TRK-88001-QX") || !strings.Contains(got.Text, "TRK-88001-QX") {
		t.Fatalf("bob's recall from the archive: %d %s", status, raw)
	}
	// Alice, with the same chat ID, sees nothing of Bob's.
	if status, got, raw := recallAs(t, base, "parcels", keyAlice, "tracking number of parcel 1"); status != 200 || len(got.Excerpts) != 0 {
		t.Errorf("alice recalls bob's chat: %d %s", status, raw)
	}
	if status, raw := do(t, "DELETE", base+"/api/chats/parcels/messages/u1", keyAlice, ""); status != 404 {
		t.Errorf("alice deletes bob's message: %d %s, want 404", status, raw)
	}
	// Bob deletes the message: gone from recall and from the summary.
	if status, raw := do(t, "DELETE", base+"/api/chats/parcels/messages/u1", keyBob, ""); status != 204 {
		t.Fatalf("bob deletes u1: %d %s", status, raw)
	}
	if status, got, raw := recallAs(t, base, "parcels", keyBob, "tracking number of parcel 1"); status != 200 || got.found("TRK-88001-QX") {
		t.Errorf("recall after deleting u1: %d %s", status, raw)
	}
	if status, raw := do(t, "GET", base+"/api/chats/parcels/summary", keyBob, ""); status != 200 || strings.Contains(raw, "TRK-88001") || !strings.Contains(raw, "deleted at the user") {
		t.Errorf("summary after deleting u1: %d %.300s", status, raw)
	}
	if status, raw := do(t, "DELETE", base+"/api/chats/parcels/messages/u1", keyBob, ""); status != 404 {
		t.Errorf("deleting u1 again: %d %s, want 404", status, raw)
	}
	// The other messages are still there, until the summary is deleted.
	if status, got, raw := recallAs(t, base, "parcels", keyBob, "tracking number of parcel 3"); status != 200 || !got.found("TRK-88003-QX") {
		t.Errorf("recall of u3 after deleting u1: %d %s", status, raw)
	}
	if status, raw := do(t, "DELETE", base+"/api/chats/parcels/summary", keyBob, ""); status != 204 {
		t.Fatalf("delete summary: %d %s", status, raw)
	}
	if status, got, raw := recallAs(t, base, "parcels", keyBob, "tracking number of parcel 3"); status != 200 || len(got.Excerpts) != 0 {
		t.Errorf("recall after deleting the summary: %d %s", status, raw)
	}
	// Bad requests.
	for _, tt := range []struct{ name, body, want string }{
		{"NoWords", `{"query":"  ?! "}`, "query"},
		{"K", `{"query":"parcel","k":99}`, "k: must be 1 to"},
		{"NotJSON", `{"query":`, ""},
	} {
		if status, raw := do(t, "POST", base+"/api/chats/parcels/recall", keyBob, tt.body); status != 400 || !strings.Contains(raw, tt.want) {
			t.Errorf("%s: %d %s, want a 400 with %q", tt.name, status, raw, tt.want)
		}
	}
}

// TestRecallRequestMessages: a client that sends its history with the
// query is answered from it, where the stored summary covers it.
func TestRecallRequestMessages(t *testing.T) {
	base := startServer(t, nil, "-trigger", "150", "-archive-ttl", "0")
	chat := factChat(8)
	if status, raw := do(t, "POST", base+"/api/chats/c/payload", "", body(t, map[string]any{"messages": chat})); status != 200 || !strings.Contains(raw, `"summarized":true`) {
		t.Fatalf("payload: %d %.300s", status, raw)
	}
	status, raw := do(t, "POST", base+"/api/chats/c/recall", "", body(t, map[string]any{"query": "tracking number of parcel 2", "messages": chat}))
	if status != 200 || !strings.Contains(raw, "TRK-88002-QX") {
		t.Errorf("recall from the request's messages: %d %s", status, raw)
	}
	// Without an archive, and without messages, nothing to search.
	status, raw = do(t, "POST", base+"/api/chats/c/recall", "", body(t, map[string]any{"query": "tracking number of parcel 2"}))
	if status != 200 || strings.Contains(raw, "TRK-88002-QX") || !strings.Contains(raw, `"excerpts":[]`) {
		t.Errorf("recall without archive or messages: %d %s", status, raw)
	}
}

// TestArchiveGrowth measures what the archive holds per 1,000 messages of
// the CLI's long sample chat (examples/recap/testdata/chats/long.json,
// 522 messages) folded by the server's Compressor at trigger 1000: every
// message the summary covers is archived, and the rows' bytes.
//
//	go test -run TestArchiveGrowth -v ./examples/server/
func TestArchiveGrowth(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "recap", "testdata", "chats", "long.json"))
	if err != nil {
		t.Skipf("the CLI's sample chat is not beside this module: %v", err)
	}
	var msgs []recap.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, db, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "recap.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ar, err := st.Archive(DefaultArchiveTTL, DefaultTenantMaxStoredBytes, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Archive = ar
	h, _ := newHandlerConfig(t, nil, cfg, recap.WithTriggerTokens(1000))
	w := serve(h, ctx, "/api/chats/long/payload", body(t, map[string]any{"messages": msgs}))
	var res struct{ Summary recap.Summary }
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &res) != nil || len(res.Summary.Covered) == 0 {
		t.Fatalf("payload: %d %.300s", w.Code, w.Body.String())
	}
	archived, err := ar.Messages(ctx, storeKey(devTenant, "long"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := ar.Stored(ctx, devTenant)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(archived))
	if n != int64(len(res.Summary.Covered)) {
		t.Errorf("archived %d messages, the summary covers %d", n, len(res.Summary.Covered))
	}
	t.Logf("%d messages archived: %d bytes of rows, %d per 1,000 messages (the chat's JSON: %d bytes for %d messages; the database's growth: TestArchiveGrowth in examples/sqlstore/drivertest)",
		n, stored, stored*1000/n, len(data), len(msgs))
}

// countingArchive counts the Syncs that reach it.
type countingArchive struct {
	archive
	syncs int
}

func (c *countingArchive) Sync(context.Context, string, string, []recap.Message, recap.Summary) error {
	c.syncs++
	return nil
}

func (c *countingArchive) Remove(context.Context, string, string) (bool, error) { return true, nil }

// TestMemoArchive: a chat's archive is written once per summary, again
// when the summary changes or a message was removed.
func TestMemoArchive(t *testing.T) {
	ctx := context.Background()
	inner := &countingArchive{}
	m := newMemoArchive(inner)
	s1 := recap.Summary{Text: "one", LastMessageID: "a1", Covered: []string{"u1", "a1"}}
	s2 := recap.Summary{Text: "two", LastMessageID: "a2", Covered: []string{"u1", "a1", "u2", "a2"}}
	steps := []struct {
		key  string
		s    recap.Summary
		want int
	}{
		{"k", s1, 1}, {"k", s1, 1}, {"other", s1, 2}, {"k", s2, 3}, {"k", s2, 3},
	}
	for i, st := range steps {
		if err := m.Sync(ctx, "t", st.key, nil, st.s); err != nil {
			t.Fatal(err)
		}
		if inner.syncs != st.want {
			t.Fatalf("step %d: %d syncs, want %d", i, inner.syncs, st.want)
		}
	}
	if _, err := m.Remove(ctx, "k", "u1"); err != nil {
		t.Fatal(err)
	}
	if err := m.Sync(ctx, "t", "k", nil, s2); err != nil || inner.syncs != 4 {
		t.Errorf("after a removal: %d syncs, want 4 (%v)", inner.syncs, err)
	}
}
