package sqlstore_test

import (
	"context"
	"path/filepath"
	"testing"

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
	if got, err := b.Load(ctx, "c"); err != nil || got != s1 {
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
}
