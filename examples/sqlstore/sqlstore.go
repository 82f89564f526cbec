// Package sqlstore is a [recap.Store] on database/sql, for SQLite and
// PostgreSQL. It depends on database/sql alone: the program imports the
// driver it wants, and the supported ones, which its tests run against, are
//
//   - modernc.org/sqlite (pure Go; driver name "sqlite"), for [OpenSQLite];
//   - github.com/jackc/pgx/v5/stdlib (driver name "pgx"), for [OpenPostgres].
//
// For example:
//
//	import _ "modernc.org/sqlite" // registers the "sqlite" driver
//
//	st, db, err := sqlstore.OpenSQLite(ctx, "summaries.db")
//
// Another driver works through [New] and [Store.Migrate] on a *sql.DB the
// program opens. The store reads driver errors through the interfaces the
// drivers export, not their types: a SQLite error's Code() int (to wait out
// SQLITE_BUSY while switching to write-ahead logging) and a PostgreSQL
// error's SQLState() string (57P01, a connection the server ended, is
// retried on another connection).
//
// Each row holds a chat's summary text, boundary, Covered IDs and Digests
// (each a JSON array) and digest, the hex SHA-256 of a canonical encoding
// of the whole [recap.Summary]. Save's compare-and-swap is one statement
// that compares the digest, UPDATE ... SET summary, last_message_id,
// covered, digests, digest WHERE chat_id = ? AND digest = ? (an INSERT ...
// ON CONFLICT (chat_id) DO NOTHING for a chat without a summary, a DELETE
// ... WHERE chat_id = ? AND digest = ? to clear one), so two processes
// racing on one chat cannot both win and nothing is ever half written.
//
// The schema is versioned (see [SchemaVersion]) and brought up to date by
// an explicit call to [Store.Migrate], which [OpenSQLite] and
// [OpenPostgres] make.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/sumdigest"
)

// The database/sql driver names that OpenSQLite and OpenPostgres use, and
// the packages that register them.
const (
	SQLiteDriver   = "sqlite" // modernc.org/sqlite
	PostgresDriver = "pgx"    // github.com/jackc/pgx/v5/stdlib
)

// needDriver returns an error saying which package to import when no
// database/sql driver named name is registered.
func needDriver(name, pkg string) error {
	for _, d := range sql.Drivers() {
		if d == name {
			return nil
		}
	}
	return fmt.Errorf("sqlstore: no database/sql driver %q is registered: import _ %q in your program", name, pkg)
}

// Dialect is the SQL flavour of a database.
type Dialect int

// The dialects a Store speaks.
const (
	SQLite Dialect = iota
	Postgres
)

// DefaultTable is the table a Store uses unless told otherwise.
const DefaultTable = "recap_summaries"

// Store is a [recap.Store] and a [recap.Leaser] on a *sql.DB. It is safe for concurrent use by
// multiple goroutines and processes.
type Store struct {
	db      *sql.DB
	dialect Dialect
	table   string
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// New returns a Store on db in the table named table ("" for
// [DefaultTable]). The table name must be a plain SQL identifier, other
// than [VersionTable]. The Store is usable once [Store.Migrate] has
// succeeded on the table.
func New(db *sql.DB, dialect Dialect, table string) (*Store, error) {
	if db == nil {
		return nil, errors.New("sqlstore: nil *sql.DB")
	}
	if table == "" {
		table = DefaultTable
	}
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("sqlstore: table name %q is not a plain identifier", table)
	}
	if strings.EqualFold(table, VersionTable) || strings.EqualFold(table, LeaseTable) {
		return nil, fmt.Errorf("sqlstore: table name %q is the version or the lease table", table)
	}
	if dialect != SQLite && dialect != Postgres {
		return nil, fmt.Errorf("sqlstore: unknown dialect %d", dialect)
	}
	return &Store{db: db, dialect: dialect, table: table}, nil
}

// OpenSQLite opens (creating if needed) the SQLite database file at path,
// with a busy timeout and write-ahead logging so that several processes can
// share it, and returns a migrated Store on it with the *sql.DB to close.
// path ":memory:" gives a private in-memory database. It needs the driver
// of modernc.org/sqlite (whose DSN parameters it sets), registered by
// importing that package.
func OpenSQLite(ctx context.Context, path string) (*Store, *sql.DB, error) {
	if err := needDriver(SQLiteDriver, "modernc.org/sqlite"); err != nil {
		return nil, nil, err
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_txlock=immediate"
	db, err := sql.Open(SQLiteDriver, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: open %s: %w", path, err)
	}
	if path == ":memory:" {
		db.SetMaxOpenConns(1) // each connection would get its own database
	}
	st, err := New(db, SQLite, "")
	if err == nil {
		err = walMode(ctx, db)
	}
	if err == nil {
		err = st.Migrate(ctx)
	}
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return st, db, nil
}

// walAttempts is how many times walMode tries to switch to WAL.
const walAttempts = 10

// walMode puts the SQLite database of db in write-ahead-log mode, which
// the file keeps. It is not a DSN pragma because switching a new file
// fails with SQLITE_BUSY, busy timeout or not, when another connection
// switches it at the same time; a failed switch here waits for the other
// one, by taking and releasing the write lock, and tries again, which is
// then a no-op, at most walAttempts times.
func walMode(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: write-ahead log: %w", err)
	}
	defer conn.Close()
	for attempt := 1; ; attempt++ {
		var mode string // "wal", or "memory" for ":memory:"
		err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		if err == nil {
			return nil
		}
		if attempt == walAttempts || sqliteCode(err)&0xff != sqliteBusy {
			return fmt.Errorf("sqlstore: write-ahead log: %w", err)
		}
		for _, q := range []string{`BEGIN IMMEDIATE`, `ROLLBACK`} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("sqlstore: write-ahead log: %w", err)
			}
		}
	}
}

// OpenPostgres connects to the PostgreSQL database of dsn (a URL such as
// "postgres://user:pass@127.0.0.1:5432/app?sslmode=disable", or key=value
// pairs), checks the connection, and returns a migrated Store on it with
// the *sql.DB to close. It needs the database/sql driver of
// github.com/jackc/pgx/v5, registered by importing
// github.com/jackc/pgx/v5/stdlib.
func OpenPostgres(ctx context.Context, dsn string) (*Store, *sql.DB, error) {
	if err := needDriver(PostgresDriver, "github.com/jackc/pgx/v5/stdlib"); err != nil {
		return nil, nil, err
	}
	db, err := sql.Open(PostgresDriver, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: open postgres: %w", err)
	}
	st, err := New(db, Postgres, "")
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err == nil {
		err = st.Migrate(ctx)
	}
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("sqlstore: postgres: %w", err)
	}
	return st, db, nil
}

// q rewrites the ? placeholders of query for the dialect.
func (s *Store) q(query string) string {
	if s.dialect != Postgres {
		return query
	}
	out := make([]byte, 0, len(query)+8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			out = append(out, fmt.Sprintf("$%d", n)...)
			continue
		}
		out = append(out, query[i])
	}
	return string(out)
}

// Load returns the summary of chatID, or the zero Summary if it has none.
// Its Covered and Digests are fresh slices, nil for none (Digests is nil
// for a summary saved before schema version 4). A row whose digest does
// not match its contents (written by something other than this version of
// the package) is an error.
func (s *Store) Load(ctx context.Context, chatID string) (recap.Summary, error) {
	var (
		sum                      recap.Summary
		covered, digests, stored string
	)
	err := s.retry(func() error {
		return s.db.QueryRowContext(ctx,
			s.q(`SELECT summary, last_message_id, covered, digests, digest FROM `+s.table+` WHERE chat_id = ?`), chatID).
			Scan(&sum.Text, &sum.LastMessageID, &covered, &digests, &stored)
	})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return recap.Summary{}, nil
	case err != nil:
		return recap.Summary{}, fmt.Errorf("sqlstore: load %q: %w", chatID, err)
	}
	if sum.Covered, err = decodeStrings("covered", covered); err != nil {
		return recap.Summary{}, fmt.Errorf("sqlstore: load %q: %w", chatID, err)
	}
	if sum.Digests, err = decodeStrings("digests", digests); err != nil {
		return recap.Summary{}, fmt.Errorf("sqlstore: load %q: %w", chatID, err)
	}
	if sumdigest.Of(sum) != stored {
		return recap.Summary{}, fmt.Errorf("sqlstore: load %q: the row's digest does not match its contents "+
			"(was it written by an sqlstore older than schema version 2, or by hand?)", chatID)
	}
	return sum, nil
}

// Save stores next for chatID if the stored summary equals prev (compared
// by digest), in one statement, and returns an error matching
// [recap.ErrConflict] otherwise. A Covered ID or a digest that is not
// valid UTF-8 is an error: the covered and digests columns are JSON.
func (s *Store) Save(ctx context.Context, chatID string, prev, next recap.Summary) error {
	covered, err := encodeStrings("covered ID", next.Covered)
	if err != nil {
		return fmt.Errorf("sqlstore: save %q: %w", chatID, err)
	}
	digests, err := encodeStrings("digest", next.Digests)
	if err != nil {
		return fmt.Errorf("sqlstore: save %q: %w", chatID, err)
	}
	var res sql.Result
	switch {
	case prev.IsZero() && next.IsZero():
		// Nothing to write; succeed only if there is nothing stored.
		cur, err := s.Load(ctx, chatID)
		if err != nil {
			return err
		}
		if !cur.IsZero() {
			return fmt.Errorf("sqlstore: save %q: %w", chatID, recap.ErrConflict)
		}
		return nil
	case prev.IsZero():
		res, err = s.exec(ctx, s.q(`INSERT INTO `+s.table+
			` (chat_id, summary, last_message_id, covered, digests, digest) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO NOTHING`),
			chatID, next.Text, next.LastMessageID, covered, digests, sumdigest.Of(next))
	case next.IsZero():
		res, err = s.exec(ctx, s.q(`DELETE FROM `+s.table+` WHERE chat_id = ? AND digest = ?`),
			chatID, sumdigest.Of(prev))
	default:
		res, err = s.exec(ctx, s.q(`UPDATE `+s.table+
			` SET summary = ?, last_message_id = ?, covered = ?, digests = ?, digest = ? WHERE chat_id = ? AND digest = ?`),
			next.Text, next.LastMessageID, covered, digests, sumdigest.Of(next), chatID, sumdigest.Of(prev))
	}
	if err != nil {
		return fmt.Errorf("sqlstore: save %q: %w", chatID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlstore: save %q: %w", chatID, err)
	}
	if n != 1 {
		return fmt.Errorf("sqlstore: save %q: %w", chatID, recap.ErrConflict)
	}
	return nil
}

// exec runs a statement, once more if the server ended the connection
// before it ran (see retry).
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := s.retry(func() (err error) {
		res, err = s.db.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

// retry calls f, and again while it fails because PostgreSQL ended its
// connection (SQLSTATE 57P01, admin_shutdown: a restart or a
// pg_terminate_backend) and the pool may hold more such connections:
// database/sql retries only the connections the driver reports bad before
// use, so after a restart each idle pooled connection would fail one
// statement. A statement that met an ended connection did not run, so
// running it again is safe; the pool drops the ended connection. It tries
// at most once per idle connection, plus one.
func (s *Store) retry(f func() error) error {
	err := f()
	if s.dialect != Postgres || !adminShutdown(err) {
		return err
	}
	for tries := s.db.Stats().Idle + 1; tries > 0 && adminShutdown(err); tries-- {
		err = f()
	}
	return err
}

// adminShutdown reports whether err is PostgreSQL's 57P01.
func adminShutdown(err error) bool {
	var pe interface{ SQLState() string } // pgx's *pgconn.PgError, lib/pq's *Error
	return errors.As(err, &pe) && pe.SQLState() == "57P01"
}

// sqliteBusy is SQLite's SQLITE_BUSY result code.
const sqliteBusy = 5

// sqliteCode returns the SQLite result code of err (extended codes
// included: the primary one is its low byte), or -1 for another error.
func sqliteCode(err error) int {
	var se interface{ Code() int } // modernc.org/sqlite's *Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return -1
}
