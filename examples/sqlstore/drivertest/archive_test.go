package drivertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/sqlstore"
)

// checkArchive runs the Archive's contract on st: what Sync archives, the
// order, an echo that adds, a whole history that edits and deletes,
// Remove, Erase, the tenant's cap and the ttl by a fake clock, and the
// isolation of another Store table's and another chat's archive.
func checkArchive(t *testing.T, st, other *sqlstore.Store) {
	ctx := context.Background()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var chat []recap.Message
	for i := 1; i <= 6; i++ {
		chat = append(chat,
			recap.Message{ID: fmt.Sprintf("u%d", i), Role: recap.RoleUser, Content: fmt.Sprintf("Parcel %d: tracking TRK-%d.", i, 88000+i)},
			recap.Message{ID: fmt.Sprintf("a%d", i), Role: recap.RoleAssistant, Content: fmt.Sprintf("Noted parcel %d.", i)})
	}
	ids := func(msgs []recap.Message) string {
		var out []string
		for _, m := range msgs {
			out = append(out, m.ID)
		}
		return strings.Join(out, ",")
	}
	covering := func(msgs []recap.Message) recap.Summary {
		s := recap.Summary{Text: "s", LastMessageID: msgs[len(msgs)-1].ID}
		for _, m := range msgs {
			s.Covered = append(s.Covered, m.ID)
		}
		return s
	}
	messages := func(a *sqlstore.Archive, chat string) []recap.Message {
		t.Helper()
		msgs, err := a.Messages(ctx, chat)
		if err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	sync := func(a *sqlstore.Archive, tenant, chat string, msgs []recap.Message, s recap.Summary) {
		t.Helper()
		if err := a.Sync(ctx, tenant, chat, msgs, s); err != nil {
			t.Fatal(err)
		}
	}
	a, err := st.Archive(time.Hour, 1<<20, clock)
	if err != nil {
		t.Fatal(err)
	}
	sync(a, "t", "c", chat, covering(chat[:6]))
	if got := ids(messages(a, "c")); got != "u1,a1,u2,a2,u3,a3" {
		t.Fatalf("archived %s, want the 6 covered", got)
	}
	sync(a, "t", "c", chat[6:9], covering(chat[:9])) // an echo: adds
	edited := append([]recap.Message(nil), chat[:9]...)
	edited[2].Content = "Parcel 2: tracking TRK-99999."
	edited = append(edited[:3], edited[4:]...) // a2 deleted
	sync(a, "t", "c", edited, covering(edited))
	got := messages(a, "c")
	if ids(got) != "u1,a1,u2,u3,a3,u4,a4,u5" || got[2].Content != edited[2].Content || got[2].Role != recap.RoleUser {
		t.Errorf("after an echo, an edit and a deletion: %s (u2 %+v)", ids(got), got[2])
	}
	// Another chat, and the same chat of another Store table, are apart.
	if msgs := messages(a, "other"); msgs != nil {
		t.Errorf("another chat: %s", ids(msgs))
	}
	b, err := other.Archive(time.Hour, 1<<20, clock)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := messages(b, "c"); msgs != nil {
		t.Errorf("another table's archive: %s", ids(msgs))
	}
	if ok, err := a.Remove(ctx, "c", "u3"); !ok || err != nil {
		t.Errorf("Remove u3 = %v, %v", ok, err)
	}
	if ok, err := a.Remove(ctx, "c", "u3"); ok || err != nil {
		t.Errorf("Remove u3 again = %v, %v", ok, err)
	}
	if n, err := a.Stored(ctx, "t"); n <= 0 || err != nil {
		t.Errorf("Stored = %d, %v", n, err)
	}
	// The ttl: renewed by a write, gone an hour after the last.
	now = now.Add(50 * time.Minute)
	sync(a, "t", "c", edited, covering(edited))
	now = now.Add(50 * time.Minute)
	if len(messages(a, "c")) == 0 {
		t.Error("gone 50 minutes after its last write, ttl 1h")
	}
	now = now.Add(time.Hour)
	if msgs := messages(a, "c"); msgs != nil {
		t.Errorf("after the ttl: %s", ids(msgs))
	}
	if n, _ := a.Stored(ctx, "t"); n != 0 {
		t.Errorf("Stored after the ttl = %d", n)
	}
	// The cap: the oldest go first.
	small, err := st.Archive(time.Hour, 400, clock)
	if err != nil {
		t.Fatal(err)
	}
	sync(small, "capped", "k", chat, covering(chat))
	if n, _ := small.Stored(ctx, "capped"); n > 400 || n == 0 {
		t.Errorf("the tenant stores %d bytes, cap 400", n)
	}
	if got := messages(small, "k"); len(got) == 0 || got[len(got)-1].ID != "a6" || got[0].ID == "u1" {
		t.Errorf("after the cap: %s, want the newest kept", ids(got))
	}
	if err := small.Erase(ctx, "k"); err != nil || messages(small, "k") != nil {
		t.Errorf("Erase: %v", err)
	}
	if _, err := st.Archive(0, 1, nil); err == nil {
		t.Error("Archive with ttl 0: no error")
	}
}

func TestSQLiteArchive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recap.db")
	st, db, err := sqlstore.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := sqlstore.New(db, sqlstore.SQLite, "other_summaries")
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkArchive(t, st, other)
}

func TestPostgresArchive(t *testing.T) {
	_, db, err := sqlstore.OpenPostgres(context.Background(), postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, other := postgresStore(t, db).(*sqlstore.Store), postgresStore(t, db).(*sqlstore.Store)
	t.Cleanup(func() { db.Exec("DELETE FROM " + sqlstore.ArchiveTable + " WHERE table_name LIKE 'recap_test_%'") })
	checkArchive(t, st, other)
}

// archiveGrowth archives the CLI's long sample chat (522 messages) as
// covered and returns the archived messages and the bytes their rows hold
// (Stored); the caller measures the database.
func archiveGrowth(t *testing.T, st *sqlstore.Store) (int, int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "recap", "testdata", "chats", "long.json"))
	if err != nil {
		t.Skipf("the CLI's sample chat is not beside this module: %v", err)
	}
	var msgs []recap.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	msgs = recap.ChainIDs(msgs)
	s := recap.Summary{Text: "s", LastMessageID: msgs[len(msgs)-1].ID}
	for _, m := range msgs {
		s.Covered = append(s.Covered, m.ID)
	}
	ctx := context.Background()
	a, err := st.Archive(time.Hour, 1<<30, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Sync(ctx, "t", "long", msgs, s); err != nil {
		t.Fatal(err)
	}
	n, err := a.Stored(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	return len(msgs), n
}

// TestArchiveGrowth measures the archive per 1,000 messages in SQLite and
// PostgreSQL:
//
//	go test -run TestArchiveGrowth -v ./examples/sqlstore/drivertest/
func TestArchiveGrowth(t *testing.T) {
	ctx := context.Background()
	t.Run("SQLite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "recap.db")
		st, db, err := sqlstore.OpenSQLite(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		size := func() int64 {
			if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			return fi.Size()
		}
		before := size()
		n, rows := archiveGrowth(t, st)
		grown := size() - before
		t.Logf("%d messages: rows %d bytes (%d per 1,000 messages), file +%d bytes (%d per 1,000 messages)", n, rows, rows*1000/int64(n), grown, grown*1000/int64(n))
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		_, db, err := sqlstore.OpenPostgres(ctx, postgresDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		st := postgresStore(t, db).(*sqlstore.Store)
		t.Cleanup(func() { db.Exec("DELETE FROM " + sqlstore.ArchiveTable + " WHERE table_name LIKE 'recap_test_%'") })
		var before int64
		size := func() int64 {
			var n int64
			if err := db.QueryRowContext(ctx, "SELECT pg_total_relation_size('"+sqlstore.ArchiveTable+"')").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before = size()
		n, rows := archiveGrowth(t, st)
		grown := size() - before
		t.Logf("%d messages: rows %d bytes (%d per 1,000 messages), table, TOAST and indexes +%d bytes (%d per 1,000 messages)", n, rows, rows*1000/int64(n), grown, grown*1000/int64(n))
	})
}
