// Package sqlstore is a [recap.Store] on database/sql, for SQLite
// (modernc.org/sqlite, pure Go) and PostgreSQL (github.com/jackc/pgx/v5
// through its database/sql driver).
//
// The compare-and-swap of Save is one conditional statement, so two
// processes racing on one chat cannot both win and nothing is ever half
// written. The schema is created by an explicit call to [Store.Migrate].
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/recapgo/recap"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Dialect is the SQL flavour of a database.
type Dialect int

// The dialects a Store speaks.
const (
	SQLite Dialect = iota
	Postgres
)

// DefaultTable is the table a Store uses unless told otherwise.
const DefaultTable = "recap_summaries"

// Store is a [recap.Store] on a *sql.DB. It is safe for concurrent use by
// multiple goroutines and processes.
type Store struct {
	db      *sql.DB
	dialect Dialect
	table   string
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// New returns a Store on db in the table named table ("" for
// [DefaultTable]). The table name must be a plain SQL identifier.
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
	if dialect != SQLite && dialect != Postgres {
		return nil, fmt.Errorf("sqlstore: unknown dialect %d", dialect)
	}
	return &Store{db: db, dialect: dialect, table: table}, nil
}

// OpenSQLite opens (creating if needed) the SQLite database file at path,
// with a busy timeout and write-ahead logging so that several processes can
// share it, and returns a migrated Store on it with the *sql.DB to close.
// path ":memory:" gives a private in-memory database.
func OpenSQLite(ctx context.Context, path string) (*Store, *sql.DB, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: open %s: %w", path, err)
	}
	if path == ":memory:" {
		db.SetMaxOpenConns(1) // each connection would get its own database
	}
	st, err := New(db, SQLite, "")
	if err == nil {
		err = st.Migrate(ctx)
	}
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return st, db, nil
}

// OpenPostgres connects to the PostgreSQL database of dsn (a URL such as
// "postgres://user:pass@127.0.0.1:5432/app?sslmode=disable", or key=value
// pairs), checks the connection, and returns a migrated Store on it with
// the *sql.DB to close.
func OpenPostgres(ctx context.Context, dsn string) (*Store, *sql.DB, error) {
	db, err := sql.Open("pgx", dsn)
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

// Migrate creates the table if it does not exist. It is safe to call on
// every start.
func (s *Store) Migrate(ctx context.Context) error {
	q := `CREATE TABLE IF NOT EXISTS ` + s.table + ` (
	chat_id TEXT PRIMARY KEY,
	summary TEXT NOT NULL,
	last_message_id TEXT NOT NULL
)`
	if _, err := s.db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("sqlstore: migrate: %w", err)
	}
	return nil
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
func (s *Store) Load(ctx context.Context, chatID string) (recap.Summary, error) {
	var sum recap.Summary
	err := s.db.QueryRowContext(ctx,
		s.q(`SELECT summary, last_message_id FROM `+s.table+` WHERE chat_id = ?`), chatID).
		Scan(&sum.Text, &sum.LastMessageID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return recap.Summary{}, nil
	case err != nil:
		return recap.Summary{}, fmt.Errorf("sqlstore: load %q: %w", chatID, err)
	}
	return sum, nil
}

// Save stores next for chatID if the stored summary equals prev, in one
// statement, and returns an error matching [recap.ErrConflict] otherwise.
func (s *Store) Save(ctx context.Context, chatID string, prev, next recap.Summary) error {
	var (
		res sql.Result
		err error
	)
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
		res, err = s.db.ExecContext(ctx, s.q(`INSERT INTO `+s.table+
			` (chat_id, summary, last_message_id) VALUES (?, ?, ?) ON CONFLICT (chat_id) DO NOTHING`),
			chatID, next.Text, next.LastMessageID)
	case next.IsZero():
		res, err = s.db.ExecContext(ctx, s.q(`DELETE FROM `+s.table+
			` WHERE chat_id = ? AND summary = ? AND last_message_id = ?`),
			chatID, prev.Text, prev.LastMessageID)
	default:
		res, err = s.db.ExecContext(ctx, s.q(`UPDATE `+s.table+
			` SET summary = ?, last_message_id = ? WHERE chat_id = ? AND summary = ? AND last_message_id = ?`),
			next.Text, next.LastMessageID, chatID, prev.Text, prev.LastMessageID)
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
