package drivertest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/sqlstore"
	"github.com/recapgo/recap/storetest"
)

func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) recap.Store {
		st, db, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "recap.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return st
	})
}

func TestSQLiteMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) recap.Store {
		st, db, err := sqlstore.OpenSQLite(context.Background(), ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return st
	})
}

func TestSQLiteTwoHandlesOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, dba, err := sqlstore.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer dba.Close()
	b, dbb, err := sqlstore.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer dbb.Close()
	s1 := recap.Summary{Text: "one", LastMessageID: "m1"}
	if err := a.Save(ctx, "c", recap.Summary{}, s1); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(ctx, "c", recap.Summary{}, recap.Summary{Text: "two", LastMessageID: "m2"}); err == nil {
		t.Fatal("second handle overwrote the first one's summary")
	}
	if got, err := b.Load(ctx, "c"); err != nil || !got.Equal(s1) {
		t.Fatalf("Load via second handle = %+v, %v; want %+v", got, err, s1)
	}
}

func TestNewRejectsBadTable(t *testing.T) {
	_, db, err := sqlstore.OpenSQLite(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlstore.New(db, sqlstore.SQLite, "x; DROP TABLE y"); err == nil {
		t.Fatal("New accepted an injected table name")
	}
	if _, err := sqlstore.New(db, sqlstore.SQLite, strings.ToUpper(sqlstore.VersionTable)); err == nil {
		t.Fatal("New accepted the version table as a Store's table")
	}
}

// TestSaveRejectsInvalidUTF8: the covered and digests columns are JSON,
// which cannot hold invalid UTF-8, so Save says so, changes nothing, and
// is not a conflict.
func TestSaveRejectsInvalidUTF8(t *testing.T) {
	ctx := context.Background()
	st, db, err := sqlstore.OpenSQLite(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sum := recap.Summary{Text: "t", LastMessageID: "m1", Covered: []string{"m1"}, Digests: []string{"0a1b2c3d"}}
	if err := st.Save(ctx, "c", recap.Summary{}, sum); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		next recap.Summary
		want string // in the error
	}{
		{"Covered", recap.Summary{Text: "t", LastMessageID: "m2", Covered: []string{"m1", "m2\xff"}, Digests: []string{"0a1b2c3d", "4e5f6a7b"}}, "covered ID 1"},
		{"Digests", recap.Summary{Text: "t", LastMessageID: "m2", Covered: []string{"m1", "m2"}, Digests: []string{"0a1b2c3d", "\xed\xa0\x80"}}, "digest 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := st.Save(ctx, "c", sum, tc.next)
			if err == nil || errors.Is(err, recap.ErrConflict) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "UTF-8") {
				t.Errorf("Save = %v, want an error about the UTF-8 of %s", err, tc.want)
			}
			if got, err := st.Load(ctx, "c"); err != nil || !got.Equal(sum) {
				t.Errorf("Load = %+v, %v; want %+v, unchanged", got, err, sum)
			}
		})
	}
}

// postgresDSN returns the DSN of the test PostgreSQL server, from
// RECAP_TEST_POSTGRES_DSN (.ci/run starts a server and sets it). Without
// it the test is skipped, except under CI=true, where it fails.
func postgresDSN(t *testing.T) string {
	dsn := os.Getenv("RECAP_TEST_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but RECAP_TEST_POSTGRES_DSN is not set: .ci/run must start PostgreSQL")
		}
		t.Skip("RECAP_TEST_POSTGRES_DSN is not set; run .ci/postgres.sh to start a server")
	}
	return dsn
}

var tableSeq atomic.Int64

// postgresStore returns a Store on a table of its own, dropped at the end.
func postgresStore(t *testing.T, db *sql.DB) recap.Store {
	table := fmt.Sprintf("recap_test_%d_%d", os.Getpid(), tableSeq.Add(1))
	st, err := sqlstore.New(db, sqlstore.Postgres, table)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("DROP TABLE " + table)
		db.Exec("DELETE FROM "+sqlstore.VersionTable+" WHERE table_name = $1", table)
	})
	return st
}

func TestPostgresConformance(t *testing.T) {
	_, db, err := sqlstore.OpenPostgres(context.Background(), postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.Run(t, func(t *testing.T) recap.Store { return postgresStore(t, db) })
}

// TestPostgresTwoPools: two connection pools (two processes) on one table
// race on one Save; exactly one wins.
func TestPostgresTwoPools(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	_, dba, err := sqlstore.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dba.Close()
	_, dbb, err := sqlstore.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dbb.Close()
	a := postgresStore(t, dba)
	table := fmt.Sprintf("recap_test_%d_%d", os.Getpid(), tableSeq.Load())
	b, err := sqlstore.New(dbb, sqlstore.Postgres, table)
	if err != nil {
		t.Fatal(err)
	}
	s1 := recap.Summary{Text: "one", LastMessageID: "m1"}
	if err := a.Save(ctx, "c", recap.Summary{}, s1); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(ctx, "c", recap.Summary{}, recap.Summary{Text: "two", LastMessageID: "m2"}); err == nil {
		t.Fatal("the second pool overwrote the first one's summary")
	}
	if got, err := b.Load(ctx, "c"); err != nil || !got.Equal(s1) {
		t.Fatalf("Load via the second pool = %+v, %v", got, err)
	}
}

func TestPostgresBadDSN(t *testing.T) {
	if _, _, err := sqlstore.OpenPostgres(context.Background(), "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"); err == nil {
		t.Fatal("OpenPostgres to a closed port succeeded")
	}
}

// TestPostgresTerminatedConnections: after PostgreSQL ends the pool's idle
// connections (as a restart does), every Load, Save and lease call still
// succeeds: a statement that meets an ended connection runs again on
// another one.
func TestPostgresTerminatedConnections(t *testing.T) {
	dsn := postgresDSN(t)
	app := fmt.Sprintf("recap_terminate_%d", os.Getpid())
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	_, db, err := sqlstore.OpenPostgres(context.Background(), dsn+sep+"application_name="+app)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(4)
	st := postgresStore(t, db).(*sqlstore.Store)
	ctx := context.Background()
	prev := recap.Summary{}
	for round := 1; round <= 3; round++ {
		// Fill the pool with idle connections, then end them all.
		conns := make([]*sql.Conn, 4)
		for i := range conns {
			if conns[i], err = db.Conn(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range conns {
			c.Close()
		}
		_, admin, err := sqlstore.OpenPostgres(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		var ended int
		// pg_terminate_backend with a timeout (PostgreSQL 14 and later)
		// returns once the backend has exited: the next statement meets
		// a connection that is gone, without the test guessing how long
		// an exit takes. The minute is only a hang guard. The backends
		// are chosen first (a materialized CTE): in one WHERE, the planner
		// may call the function before it filters, on every backend.
		err = admin.QueryRow(`WITH t AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE application_name = $1)
			SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 60000)) FROM t`, app).Scan(&ended)
		admin.Close()
		if err != nil || ended == 0 {
			t.Fatalf("round %d: ended %d connections: %v", round, ended, err)
		}
		next := recap.Summary{Text: fmt.Sprintf("summary %d", round), LastMessageID: fmt.Sprintf("m%d", round)}
		switch round {
		case 1:
			if err := st.Save(ctx, "c", prev, next); err != nil {
				t.Fatalf("round %d: Save after the connections ended: %v", round, err)
			}
			prev = next
		case 2:
			if got, err := st.Load(ctx, "c"); err != nil || !got.Equal(prev) {
				t.Fatalf("round %d: Load after the connections ended: %+v, %v", round, got, err)
			}
		case 3:
			if err := st.AcquireLease(ctx, "c", "h", time.Minute); err != nil {
				t.Fatalf("round %d: AcquireLease after the connections ended: %v", round, err)
			}
		}
	}
}
