package main

import (
	"database/sql"
	"time"
)

// Defaults of the PostgreSQL pool: 20 connections serve hundreds of
// clients (a request holds one for a Load or a Save, milliseconds), far
// under PostgreSQL's default max_connections of 100, so that several
// instances fit; idle ones are closed after 5 minutes, and every one is
// replaced after 30, so that a failover or a DNS change is picked up.
const (
	DefaultPGMaxConns     = 20               // see -pg-max-conns
	DefaultPGMaxIdle      = 5                // see -pg-max-idle-conns
	DefaultPGIdleTime     = 5 * time.Minute  // see -pg-conn-idle-time
	DefaultPGConnLifetime = 30 * time.Minute // see -pg-conn-lifetime
)

// poolConfig is the pool of a *sql.DB.
type poolConfig struct {
	maxOpen, maxIdle   int
	idleTime, lifetime time.Duration
}

func (p poolConfig) apply(db *sql.DB) {
	db.SetMaxOpenConns(p.maxOpen)
	db.SetMaxIdleConns(min(p.maxIdle, p.maxOpen))
	db.SetConnMaxIdleTime(p.idleTime)
	db.SetConnMaxLifetime(p.lifetime)
}

// sqlitePool is SQLite's: one connection, the single writer SQLite allows
// at a time (sqlstore.OpenSQLite sets WAL and a 10 s busy timeout, for
// other processes), kept open.
var sqlitePool = poolConfig{maxOpen: 1, maxIdle: 1}
