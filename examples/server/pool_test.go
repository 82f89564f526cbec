package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/recapgo/recap/examples/sqlstore"
)

func TestPool(t *testing.T) {
	_, db, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sqlitePool.apply(db)
	if got := db.Stats().MaxOpenConnections; got != 1 {
		t.Errorf("SQLite: %d connections at most, want 1 (one writer)", got)
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("SQLite journal mode %q, %v; want wal", mode, err)
	}
	var busy int
	if err := db.QueryRow(`PRAGMA busy_timeout`).Scan(&busy); err != nil || busy < 1000 {
		t.Errorf("SQLite busy timeout %d ms, %v; want one", busy, err)
	}
	poolConfig{maxOpen: 7, maxIdle: 9}.apply(db)
	if got := db.Stats().MaxOpenConnections; got != 7 {
		t.Errorf("pool of 7: %d", got)
	}
}
