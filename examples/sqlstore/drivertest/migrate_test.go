package drivertest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/sqlstore"
)

// The statements of the sqlstore before schema versions (commit 1c52c5a),
// copied so that the tests can make a version-1 database as it made them.
const (
	v1Create = `CREATE TABLE IF NOT EXISTS recap_summaries (
	chat_id TEXT PRIMARY KEY,
	summary TEXT NOT NULL,
	last_message_id TEXT NOT NULL
)`
	v1Insert = `INSERT INTO recap_summaries (chat_id, summary, last_message_id) VALUES (?, ?, ?) ON CONFLICT (chat_id) DO NOTHING`
	v1Update = `UPDATE recap_summaries SET summary = ?, last_message_id = ? WHERE chat_id = ? AND summary = ? AND last_message_id = ?`
)

// v1Rows are the rows that the version-1 database holds, with v1Many
// more ("chat-0000"...) to make version 2 compute digests over more than
// one page.
var v1Rows = map[string]recap.Summary{
	"c1":                   {Text: "The user planned a trip to Paris.", LastMessageID: "m4"},
	"chat with 'odd' id/🙂": {Text: "Ünïcödé, 中文\nnew lines; quotes ' \" `", LastMessageID: "id with spaces/slashes:and'quotes\""},
	"":                     {Text: "the chat whose ID is empty, first in key order", LastMessageID: ""},
}

const v1Many = 1234

// env is one dialect's test database.
type env struct {
	dialect sqlstore.Dialect
	// open returns n separate pools (as n processes would have) on one
	// fresh, empty database, closed at the end of the test. On PostgreSQL
	// the pools after the first default to serializable transactions,
	// which Migrate must not depend on.
	open func(t *testing.T, n int) []*sql.DB
}

// forEachDialect runs f as a subtest per dialect; the PostgreSQL one skips
// as postgresDSN says.
func forEachDialect(t *testing.T, f func(t *testing.T, e env)) {
	t.Run("SQLite", func(t *testing.T) {
		f(t, env{sqlstore.SQLite, func(t *testing.T, n int) []*sql.DB {
			// Not OpenSQLite, which migrates; and no _txlock, as Migrate must
			// not depend on it. The busy timeout is what Migrate's doc asks.
			// The file is in WAL mode, as OpenSQLite leaves it, before the
			// pools open it (TestOpenSQLiteConcurrently races that switch).
			dsn := "file:" + filepath.Join(t.TempDir(), "recap.db") + "?_pragma=busy_timeout(10000)"
			db := openN(t, "sqlite", dsn, 1)[0]
			if _, err := db.Exec(`PRAGMA journal_mode = WAL`); err != nil {
				t.Fatal(err)
			}
			return append([]*sql.DB{db}, openN(t, "sqlite", dsn, n-1)...)
		}})
	})
	t.Run("Postgres", func(t *testing.T) {
		dsn := postgresDSN(t)
		f(t, env{sqlstore.Postgres, func(t *testing.T, n int) []*sql.DB {
			// A schema of its own, so that the version table is fresh too.
			admin, err := sql.Open("pgx", dsn)
			if err != nil {
				t.Fatal(err)
			}
			schema := fmt.Sprintf("recap_migrate_%d_%d", os.Getpid(), tableSeq.Add(1))
			if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				admin.Exec("DROP SCHEMA " + schema + " CASCADE")
				admin.Close()
			})
			u, err := url.Parse(dsn)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("search_path", schema)
			u.RawQuery = q.Encode()
			dbs := openN(t, "pgx", u.String(), 1)
			q.Set("default_transaction_isolation", "serializable")
			u.RawQuery = q.Encode()
			return append(dbs, openN(t, "pgx", u.String(), n-1)...)
		}})
	})
}

func openN(t *testing.T, driver, dsn string, n int) []*sql.DB {
	dbs := make([]*sql.DB, n)
	for i := range dbs {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	return dbs
}

// exec runs query, written with ? placeholders, on db.
func (e env) exec(t *testing.T, db interface {
	Exec(string, ...any) (sql.Result, error)
}, query string, args ...any) sql.Result {
	t.Helper()
	if e.dialect == sqlstore.Postgres {
		for n := 1; strings.Contains(query, "?"); n++ {
			query = strings.Replace(query, "?", fmt.Sprintf("$%d", n), 1)
		}
	}
	res, err := db.Exec(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res
}

// makeV1 fills db as the sqlstore before versions would have: its table
// and v1Rows, plus v1Many more.
func (e env) makeV1(t *testing.T, db *sql.DB) {
	t.Helper()
	e.exec(t, db, v1Create)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for id, sum := range v1Rows {
		e.exec(t, tx, v1Insert, id, sum.Text, sum.LastMessageID)
	}
	for i := range v1Many {
		e.exec(t, tx, v1Insert, fmt.Sprintf("chat-%04d", i), fmt.Sprintf("summary %d", i), fmt.Sprintf("m%d", i))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func newStore(t *testing.T, e env, db *sql.DB) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.New(db, e.dialect, "")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// query returns the rows of query, each as its columns' values quoted.
func query(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			fmt.Fprintf(&b, "%s=%q ", cols[i], v.String)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// schema describes the tables of db: their DDL on SQLite, their columns on
// PostgreSQL.
func (e env) schema(t *testing.T, db *sql.DB) []string {
	if e.dialect == sqlstore.Postgres {
		return query(t, db, `SELECT table_name, column_name, data_type, is_nullable, column_default
FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`)
	}
	return query(t, db, `SELECT type, name, sql FROM sqlite_master ORDER BY name`)
}

// snapshot is what Migrate must leave untouched on a database at the latest
// version: the schema, every row and version record, and what tells a
// rewrite of equal values: PRAGMA schema_version on SQLite, the rows' xmin
// (the transaction that wrote them) on PostgreSQL.
func (e env) snapshot(t *testing.T, db *sql.DB) []string {
	out := e.schema(t, db)
	if e.dialect == sqlstore.Postgres {
		out = append(out, query(t, db, `SELECT xmin::text, * FROM recap_summaries ORDER BY chat_id`)...)
		return append(out, query(t, db, `SELECT xmin::text, * FROM `+sqlstore.VersionTable+` ORDER BY table_name`)...)
	}
	out = append(out, query(t, db, `PRAGMA schema_version`)...)
	out = append(out, query(t, db, `SELECT * FROM recap_summaries ORDER BY chat_id`)...)
	return append(out, query(t, db, `SELECT * FROM `+sqlstore.VersionTable+` ORDER BY table_name`)...)
}

func versionOf(t *testing.T, e env, db *sql.DB) int {
	t.Helper()
	var v int
	q := `SELECT version FROM ` + sqlstore.VersionTable + ` WHERE table_name = 'recap_summaries'`
	if err := db.QueryRow(q).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

func mustLoad(t *testing.T, st *sqlstore.Store, chat string, want recap.Summary) {
	t.Helper()
	got, err := st.Load(context.Background(), chat)
	if err != nil {
		t.Fatalf("Load(%q): %v", chat, err)
	}
	if !got.Equal(want) {
		t.Fatalf("Load(%q) = %+v, want %+v", chat, got, want)
	}
}

// TestMigrateUpgradesV1 upgrades a database made by the sqlstore before
// versions, then checks its rows, the compare-and-swap on them, a second
// Migrate, and the schema against a fresh database's.
func TestMigrateUpgradesV1(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e env) {
		ctx := context.Background()
		db := e.open(t, 1)[0]
		e.makeV1(t, db)
		st := newStore(t, e, db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if v := versionOf(t, e, db); v != sqlstore.SchemaVersion {
			t.Fatalf("version after Migrate = %d, want %d", v, sqlstore.SchemaVersion)
		}

		// Every row keeps its text and boundary, with no Covered; Load
		// checks its digest.
		for id, sum := range v1Rows {
			mustLoad(t, st, id, sum)
		}
		for i := range v1Many {
			mustLoad(t, st, fmt.Sprintf("chat-%04d", i), recap.Summary{Text: fmt.Sprintf("summary %d", i), LastMessageID: fmt.Sprintf("m%d", i)})
		}

		// A second Migrate, at the latest version, changes nothing.
		before := e.snapshot(t, db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
		if diff := cmp.Diff(before, e.snapshot(t, db)); diff != "" {
			t.Errorf("second Migrate changed the database (-before +after):\n%s", diff)
		}

		// The compare-and-swap works on upgraded rows.
		old := v1Rows["c1"]
		next := recap.Summary{Text: old.Text + " Then Rome.", LastMessageID: "m8", Covered: []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"},
			Digests: []string{"", "", "", "", "0a1b2c3d", "~4e5f6a7b", "8c9d0e1f", "2a3b4c5d"}}
		if err := st.Save(ctx, "c1", old, next); err != nil {
			t.Fatalf("Save on an upgraded row: %v", err)
		}
		mustLoad(t, st, "c1", next)
		if err := st.Save(ctx, "c1", old, recap.Summary{Text: "stale", LastMessageID: "m9"}); !errors.Is(err, recap.ErrConflict) {
			t.Errorf("Save with the pre-upgrade summary as prev = %v, want ErrConflict", err)
		}
		odd := "chat with 'odd' id/🙂"
		withCovered := v1Rows[odd]
		withCovered.Covered = []string{v1Rows[odd].LastMessageID}
		if err := st.Save(ctx, odd, withCovered, next); !errors.Is(err, recap.ErrConflict) {
			t.Errorf("Save with a Covered the upgraded row lacks = %v, want ErrConflict", err)
		}
		if err := st.Save(ctx, "", v1Rows[""], recap.Summary{}); err != nil {
			t.Errorf("Save clearing an upgraded row: %v", err)
		}
		mustLoad(t, st, "", recap.Summary{})
		mustLoad(t, st, odd, v1Rows[odd])

		// An upgraded database has the schema of a fresh one.
		fresh := e.open(t, 1)[0]
		if err := newStore(t, e, fresh).Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(e.schema(t, fresh), e.schema(t, db)); diff != "" {
			t.Errorf("upgraded schema mismatch (-fresh +upgraded):\n%s", diff)
		}
	})
}

// The statements by which the sqlstore of schema version 3 (commit
// 35749b5) made its tables and wrote its rows, copied so that the tests
// can make a version-3 database as it made them.
var (
	v3Create = []string{
		v1Create,
		`ALTER TABLE recap_summaries ADD COLUMN covered TEXT NOT NULL DEFAULT '[]'`,
		`ALTER TABLE recap_summaries ADD COLUMN digest TEXT NOT NULL DEFAULT ''`,
		`CREATE TABLE recap_leases (
	table_name TEXT NOT NULL,
	chat_id TEXT NOT NULL,
	holder TEXT NOT NULL,
	expires_at BIGINT NOT NULL,
	PRIMARY KEY (table_name, chat_id)
)`,
		`CREATE TABLE recap_schema_versions (
	table_name TEXT PRIMARY KEY,
	version INTEGER NOT NULL
)`,
		`INSERT INTO recap_schema_versions (table_name, version) VALUES ('recap_summaries', 3)`,
	}
	v3Insert = `INSERT INTO recap_summaries (chat_id, summary, last_message_id, covered, digest) VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO NOTHING`
	v3Update = `UPDATE recap_summaries SET summary = ?, last_message_id = ?, covered = ?, digest = ? WHERE chat_id = ? AND digest = ?`
)

// v3Row is a row as the sqlstore of version 3 wrote it: the digest is
// what its internal/sumdigest computed, pinned here.
type v3Row struct {
	sum             recap.Summary
	covered, digest string
}

var v3Rows = map[string]v3Row{
	"c1": {recap.Summary{Text: "text", LastMessageID: "m2", Covered: []string{"m1", "m2"}},
		`["m1","m2"]`, "2804cf9365944a27c307c7df00f1e3efeaa057134dd78ead87f551099522839f"},
	"chat with 'odd' id/🙂": {recap.Summary{Text: "Ünïcödé, 中文\nnew lines; quotes ' \" `", LastMessageID: "id with spaces/slashes:and'quotes\"",
		Covered: []string{"a,b", "id with spaces/slashes:and'quotes\""}},
		`["a,b","id with spaces/slashes:and'quotes\""]`, "a98482d05d044b5ffee99ce24c62373b38349850dfa6acc9f34d44491a0652b3"},
	"": {recap.Summary{Text: "the chat whose ID is empty", LastMessageID: "", Covered: []string{""}},
		`[""]`, "a2d74b65c53969a36f5411657c598fc2c6a33d4fe7caa099dcad902a40dddc94"},
	"uncovered": {recap.Summary{Text: "no covered IDs, as version 2 left the rows of version 1", LastMessageID: "m9"},
		`[]`, "ed459bed6d4be94b6b4b1ff3fd907104c6caab02c0c40e654b605567a5f8c54e"},
}

// makeV3 fills db as the sqlstore of version 3 would have: its tables and
// v3Rows.
func (e env) makeV3(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range v3Create {
		e.exec(t, db, q)
	}
	for id, r := range v3Rows {
		e.exec(t, db, v3Insert, id, r.sum.Text, r.sum.LastMessageID, r.covered, r.digest)
	}
}

// TestMigrateUpgradesV3 upgrades a database of schema version 3, whose
// rows have no Digests, then checks that they load with none, the
// compare-and-swap on them, a second Migrate, the schema against a fresh
// database's, and a process of version 3 still writing beside it.
func TestMigrateUpgradesV3(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e env) {
		ctx := context.Background()
		db := e.open(t, 1)[0]
		e.makeV3(t, db)
		st := newStore(t, e, db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if v := versionOf(t, e, db); v != sqlstore.SchemaVersion {
			t.Fatalf("version after Migrate = %d, want %d", v, sqlstore.SchemaVersion)
		}

		// Every row loads as it was, without Digests; Load checks its
		// digest, which Migrate did not need to recompute.
		for id, r := range v3Rows {
			got, err := st.Load(ctx, id)
			if err != nil {
				t.Fatalf("Load(%q): %v", id, err)
			}
			if diff := cmp.Diff(r.sum, got); diff != "" {
				t.Errorf("Load(%q) mismatch (-want +got):\n%s", id, diff)
			}
		}

		// A second Migrate, at the latest version, changes nothing.
		before := e.snapshot(t, db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
		if diff := cmp.Diff(before, e.snapshot(t, db)); diff != "" {
			t.Errorf("second Migrate changed the database (-before +after):\n%s", diff)
		}

		// The compare-and-swap works on upgraded rows: the loaded summary
		// is prev; the same one with Digests is not what is stored.
		old := v3Rows["c1"].sum
		withDigests := old
		withDigests.Digests = []string{"0a1b2c3d", "~4e5f6a7b"}
		next := recap.Summary{Text: "text, then more", LastMessageID: "m3", Covered: []string{"m1", "m2", "m3"}, Digests: []string{"0a1b2c3d", "~4e5f6a7b", "8c9d0e1f"}}
		if err := st.Save(ctx, "c1", withDigests, next); !errors.Is(err, recap.ErrConflict) {
			t.Errorf("Save with Digests the upgraded row lacks = %v, want ErrConflict", err)
		}
		if err := st.Save(ctx, "c1", old, next); err != nil {
			t.Fatalf("Save on an upgraded row: %v", err)
		}
		mustLoad(t, st, "c1", next)
		if err := st.Save(ctx, "c1", old, recap.Summary{Text: "stale", LastMessageID: "m9"}); !errors.Is(err, recap.ErrConflict) {
			t.Errorf("Save with the pre-upgrade summary as prev = %v, want ErrConflict", err)
		}
		if err := st.Save(ctx, "", v3Rows[""].sum, recap.Summary{}); err != nil {
			t.Errorf("Save clearing an upgraded row: %v", err)
		}
		mustLoad(t, st, "", recap.Summary{})

		// A process of version 3 still running updates the rows of
		// summaries without Digests as before (here "uncovered" to c1's
		// old summary, with the digest it computes), and cannot overwrite
		// one with Digests: the digest of its prev, next as it would
		// read it (without Digests), is not the stored one.
		res := e.exec(t, db, v3Update, old.Text, old.LastMessageID, v3Rows["c1"].covered, v3Rows["c1"].digest, "uncovered", v3Rows["uncovered"].digest)
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			t.Errorf("a version-3 update of a row without Digests: %d rows, %v; want 1", n, err)
		}
		mustLoad(t, st, "uncovered", old)
		nextV3 := "31f4140909be1de4ce14b2aca0c3e31e0d7a937ef89461e3fa37686de2651e97" // next without Digests, by version 3
		res = e.exec(t, db, v3Update, "overwritten", "m4", `["m4"]`, "any", "c1", nextV3)
		if n, err := res.RowsAffected(); err != nil || n != 0 {
			t.Errorf("a version-3 update of a row with Digests: %d rows, %v; want 0", n, err)
		}
		mustLoad(t, st, "c1", next)

		// An upgraded database has the schema of a fresh one.
		fresh := e.open(t, 1)[0]
		if err := newStore(t, e, fresh).Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(e.schema(t, fresh), e.schema(t, db)); diff != "" {
			t.Errorf("upgraded schema mismatch (-fresh +upgraded):\n%s", diff)
		}
	})
}

// TestMigrateLatestUntouched: Migrate on a database already at the latest
// version writes nothing, however often it runs.
func TestMigrateLatestUntouched(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e env) {
		ctx := context.Background()
		db := e.open(t, 1)[0]
		st := newStore(t, e, db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for _, chat := range []string{"a", "b"} {
			if err := st.Save(ctx, chat, recap.Summary{}, recap.Summary{Text: "text of " + chat, LastMessageID: "m2", Covered: []string{"m1", "m2"}}); err != nil {
				t.Fatal(err)
			}
		}
		before := e.snapshot(t, db)
		var changes func() int64 // counts commits by other connections, on SQLite
		if e.dialect == sqlstore.SQLite {
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			changes = func() int64 {
				var v int64
				if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
					t.Fatal(err)
				}
				return v
			}
		}
		var dv int64
		if changes != nil {
			dv = changes()
		}
		for range 3 {
			if err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(before, e.snapshot(t, db)); diff != "" {
			t.Errorf("Migrate changed a database at the latest version (-before +after):\n%s", diff)
		}
		if changes != nil {
			if got := changes(); got != dv {
				t.Errorf("PRAGMA data_version went from %d to %d: Migrate committed a write", dv, got)
			}
		}
	})
}

// TestMigrateConcurrent: several Migrate calls from two pools at once, on
// an empty database and on a version-1 one, all succeed and migrate once.
func TestMigrateConcurrent(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e env) {
		for _, v1 := range []bool{false, true} {
			t.Run(map[bool]string{false: "Empty", true: "V1"}[v1], func(t *testing.T) {
				dbs := e.open(t, 2)
				if v1 {
					e.makeV1(t, dbs[0])
				}
				const perPool = 4
				var (
					wg    sync.WaitGroup
					start = make(chan struct{})
					errs  = make([]error, 2*perPool)
				)
				for i := range errs {
					st := newStore(t, e, dbs[i%2])
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[i] = st.Migrate(context.Background())
					}()
				}
				close(start)
				wg.Wait()
				for i, err := range errs {
					if err != nil {
						t.Errorf("Migrate %d: %v", i, err)
					}
				}
				if v := versionOf(t, e, dbs[1]); v != sqlstore.SchemaVersion {
					t.Errorf("version = %d, want %d", v, sqlstore.SchemaVersion)
				}
				st := newStore(t, e, dbs[1])
				if v1 {
					mustLoad(t, st, "c1", v1Rows["c1"])
				}
				if err := st.Save(context.Background(), "new", recap.Summary{}, recap.Summary{Text: "t", LastMessageID: "m1", Covered: []string{"m1"}}); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// TestOpenSQLiteConcurrently: processes starting at once on a new file
// all open it, switched to write-ahead logging, and migrated. Switching a
// new file to WAL from two connections at once fails about once in a
// hundred tries without OpenSQLite's retry, hence the rounds.
func TestOpenSQLiteConcurrently(t *testing.T) {
	for round := range 25 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("recap-%d.db", round))
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  = make([]error, 4)
		)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, db, err := sqlstore.OpenSQLite(context.Background(), path)
				if err != nil {
					errs[i] = err
					return
				}
				defer db.Close()
				var mode string
				if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
					errs[i] = fmt.Errorf("journal_mode = %q, %v; want wal", mode, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d: OpenSQLite %d: %v", round, i, err)
			}
		}
	}
}

// TestMigrateVersionRecord: the version record rules. A record left by a
// dropped table does not stop the table being made again; a version newer
// than the code's is an error that changes nothing; a canceled Migrate
// leaves a version-1 database as it was.
func TestMigrateVersionRecord(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e env) {
		ctx := context.Background()
		db := e.open(t, 1)[0]
		st := newStore(t, e, db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		e.exec(t, db, `DROP TABLE recap_summaries`)
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("Migrate after DROP TABLE: %v", err)
		}
		sum := recap.Summary{Text: "t", LastMessageID: "m1", Covered: []string{"m1"}}
		if err := st.Save(ctx, "c", recap.Summary{}, sum); err != nil {
			t.Fatalf("Save after the table was made again: %v", err)
		}

		e.exec(t, db, `UPDATE `+sqlstore.VersionTable+` SET version = ?`, sqlstore.SchemaVersion+1)
		before := e.snapshot(t, db)
		if err := st.Migrate(ctx); err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("Migrate of a newer schema = %v, want an error saying it is newer", err)
		}
		if diff := cmp.Diff(before, e.snapshot(t, db)); diff != "" {
			t.Errorf("Migrate of a newer schema changed the database (-before +after):\n%s", diff)
		}

		v1 := e.open(t, 1)[0]
		e.makeV1(t, v1)
		before = e.schema(t, v1)
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		if err := newStore(t, e, v1).Migrate(canceled); err == nil {
			t.Errorf("Migrate with a canceled context succeeded")
		}
		if diff := cmp.Diff(before, e.schema(t, v1)); diff != "" {
			t.Errorf("a canceled Migrate changed the schema (-before +after):\n%s", diff)
		}
	})
}

// TestLoadDetectsForeignWrite: a row written after the upgrade by the
// sqlstore before versions (or by hand) no longer matches its digest; Load
// says so rather than return a summary that every Save would conflict on.
func TestLoadDetectsForeignWrite(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e env) {
		ctx := context.Background()
		db := e.open(t, 1)[0]
		st := newStore(t, e, db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		sum := recap.Summary{Text: "t", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
		if err := st.Save(ctx, "updated", recap.Summary{}, sum); err != nil {
			t.Fatal(err)
		}
		e.exec(t, db, v1Update, "t2", "m3", "updated", sum.Text, sum.LastMessageID)
		e.exec(t, db, v1Insert, "inserted", "t", "m1")
		for _, chat := range []string{"updated", "inserted"} {
			got, err := st.Load(ctx, chat)
			if err == nil || errors.Is(err, recap.ErrConflict) || !strings.Contains(err.Error(), "digest") {
				t.Errorf("Load(%q) of a row written by version-1 statements = %+v, %v; want an error about the digest", chat, got, err)
			}
		}
	})
}
