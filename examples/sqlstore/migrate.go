package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/sumdigest"
)

// SchemaVersion is the schema version that [Store.Migrate] brings a table
// to:
//
//  1. chat_id TEXT PRIMARY KEY, summary TEXT NOT NULL, last_message_id
//     TEXT NOT NULL; the schema of the sqlstore that had no version record.
//  2. covered TEXT NOT NULL DEFAULT '[]' (the Covered IDs as a JSON array)
//     and digest TEXT NOT NULL (the hex SHA-256 that Save's
//     compare-and-swap compares).
//  3. The lease table [LeaseTable], shared by the Store tables of a
//     database, made if it does not exist; the Store's own table is
//     unchanged.
//  4. digests TEXT NOT NULL DEFAULT '[]' ([recap.Summary.Digests] as a JSON
//     array) and forgotten TEXT NOT NULL DEFAULT '[]'
//     ([recap.Summary.Forgotten]); the digest column then covers them too.
//  5. The archive table [ArchiveTable], shared by the Store tables of a
//     database, made if it does not exist (see [Archive]); the Store's own
//     table is unchanged.
const SchemaVersion = 5

// VersionTable is the table, beside a Store's own, in which [Store.Migrate]
// records the schema version of each Store table, one row per table name
// (in lower case).
const VersionTable = "recap_schema_versions"

// advisoryLockKey is the PostgreSQL advisory lock that serializes Migrate
// calls on one database: "recapsql" in ASCII.
const advisoryLockKey int64 = 0x72656361_7073716c

// backfillBatch is how many rows version 2 reads at a time to compute their
// digests.
const backfillBatch = 500

// dbtx is what a migration step runs its statements on: the *sql.Tx of a
// PostgreSQL migration, or the *sql.Conn of a SQLite one, which is inside a
// BEGIN IMMEDIATE transaction.
type dbtx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Migrate brings the table to [SchemaVersion], creating it if it does not
// exist. It is safe to call on every start, and from several processes at
// once.
//
// It runs in one transaction that holds the database's migration lock (on
// PostgreSQL the transaction-scoped advisory lock 0x726563617073716c; on
// SQLite the write lock, taken by BEGIN IMMEDIATE, so give the database a
// busy timeout, as [OpenSQLite] does, for a concurrent Migrate to wait
// rather than fail with SQLITE_BUSY). Under the lock it reads the table's
// version from [VersionTable] (creating that table if needed), applies each
// later version in order and records the new version. A table that exists
// without a version record was made by the sqlstore that predates
// versions, and is at version 1. A table at SchemaVersion is left
// untouched: nothing is written. A table at a later version than this code
// knows is an error. If Migrate fails or ctx is done, the transaction rolls
// back and the table is as it was.
//
// Version 2 keeps existing rows, their text and boundary, with no Covered
// IDs. Stop processes running an sqlstore older than version 2 before
// migrating: they write summary and last_message_id but neither covered
// nor digest, and [Store.Load] reports a row whose digest does not match
// as an error. Version 2 computes the digest of every existing row while
// holding the lock, which on PostgreSQL also blocks the table's readers.
//
// Version 4 keeps existing rows with no Digests and no Forgotten, and does not rewrite
// them: the digest of a summary without Digests is the one version 2
// computed and Save wrote (see internal/sumdigest), so each row's digest
// still matches it, and adding a column with a constant default changes
// only the schema on both databases. Processes running an sqlstore of
// version 2 or 3 beside it keep working on the rows of summaries without
// Digests, but a row saved with Digests (recap gives every summary Digests
// at its next save) is to them an error for Load and a conflict for Save,
// never overwritten; stop them before migrating to avoid those failures.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.locked(ctx, s.migrate); err != nil {
		return fmt.Errorf("sqlstore: migrate %s: %w", s.table, err)
	}
	return nil
}

// migrate does the work of Migrate under the migration lock.
func (s *Store) migrate(ctx context.Context, tx dbtx) error {
	ok, err := s.exists(ctx, tx, VersionTable)
	if err != nil {
		return err
	}
	if !ok {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE `+VersionTable+` (
	table_name TEXT PRIMARY KEY,
	version INTEGER NOT NULL
)`); err != nil {
			return err
		}
	}
	key := strings.ToLower(s.table) // both dialects fold unquoted names
	var version int
	err = tx.QueryRowContext(ctx, s.q(`SELECT version FROM `+VersionTable+` WHERE table_name = ?`), key).Scan(&version)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	ok, err = s.exists(ctx, tx, s.table)
	switch {
	case err != nil:
		return err
	case !ok:
		version = 0 // a record left behind by a dropped table counts for nothing
	case version == 0:
		version = 1 // made before versions were recorded
	}
	if version > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this code's %d", version, SchemaVersion)
	}
	if version == SchemaVersion {
		return nil
	}
	steps := []func(context.Context, dbtx) error{s.createV1, s.addCoveredV2, s.addLeasesV3, s.addDigestsV4, s.addArchiveV5}
	for v := version + 1; v <= SchemaVersion; v++ {
		if err := steps[v-1](ctx, tx); err != nil {
			return fmt.Errorf("to version %d: %w", v, err)
		}
	}
	_, err = tx.ExecContext(ctx, s.q(`INSERT INTO `+VersionTable+` (table_name, version) VALUES (?, ?)
ON CONFLICT (table_name) DO UPDATE SET version = excluded.version`), key, SchemaVersion)
	return err
}

// createV1 creates the table of version 1, exactly as the sqlstore before
// versions did.
func (s *Store) createV1(ctx context.Context, tx dbtx) error {
	_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+s.table+` (
	chat_id TEXT PRIMARY KEY,
	summary TEXT NOT NULL,
	last_message_id TEXT NOT NULL
)`)
	return err
}

// addCoveredV2 adds the covered and digest columns and computes the digest
// of every existing row, whose Covered is empty.
func (s *Store) addCoveredV2(ctx context.Context, tx dbtx) error {
	for _, q := range []string{
		`ALTER TABLE ` + s.table + ` ADD COLUMN covered TEXT NOT NULL DEFAULT '[]'`,
		// SQLite cannot add a NOT NULL column without a default; every
		// statement of Save sets the digest, and the loop below sets it
		// for the rows that exist now.
		`ALTER TABLE ` + s.table + ` ADD COLUMN digest TEXT NOT NULL DEFAULT ''`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	// Page by primary key; the rows of a page are read before they are
	// updated, as a connection runs one statement at a time.
	type row struct{ chatID, digest string }
	var (
		after string
		first = true
	)
	for {
		q := `SELECT chat_id, summary, last_message_id FROM ` + s.table + ` WHERE chat_id > ? ORDER BY chat_id LIMIT ?`
		args := []any{after, backfillBatch}
		if first { // "" is a chat ID too
			q = `SELECT chat_id, summary, last_message_id FROM ` + s.table + ` ORDER BY chat_id LIMIT ?`
			args = args[1:]
		}
		rows, err := tx.QueryContext(ctx, s.q(q), args...)
		if err != nil {
			return err
		}
		var page []row
		for rows.Next() {
			var (
				id  string
				sum recap.Summary
			)
			if err := rows.Scan(&id, &sum.Text, &sum.LastMessageID); err != nil {
				rows.Close()
				return err
			}
			page = append(page, row{id, sumdigest.Of(sum)})
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range page {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE `+s.table+` SET digest = ? WHERE chat_id = ?`), r.digest, r.chatID); err != nil {
				return err
			}
		}
		if len(page) < backfillBatch {
			return nil
		}
		after, first = page[len(page)-1].chatID, false
	}
}

// addLeasesV3 makes the lease table, unless another Store table's
// migration made it.
func (s *Store) addLeasesV3(ctx context.Context, tx dbtx) error {
	_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+LeaseTable+` (
	table_name TEXT NOT NULL,
	chat_id TEXT NOT NULL,
	holder TEXT NOT NULL,
	expires_at BIGINT NOT NULL,
	PRIMARY KEY (table_name, chat_id)
)`)
	return err
}

// addDigestsV4 adds the digests and forgotten columns. Existing rows hold no Digests, and
// their digests, of summaries without Digests, are unchanged by it: there
// is nothing to recompute.
func (s *Store) addDigestsV4(ctx context.Context, tx dbtx) error {
	for _, col := range []string{"digests", "forgotten"} {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+s.table+` ADD COLUMN `+col+` TEXT NOT NULL DEFAULT '[]'`); err != nil {
			return err
		}
	}
	return nil
}

// exists reports whether the table name exists, as an unqualified name in
// a statement would find it.
func (s *Store) exists(ctx context.Context, tx dbtx, name string) (bool, error) {
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE`
	if s.dialect == Postgres {
		q = `SELECT count(*) FROM (SELECT to_regclass($1) AS c) AS r WHERE c IS NOT NULL`
	}
	var n int
	if err := tx.QueryRowContext(ctx, q, name).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// locked runs f in a transaction that holds the migration lock, and
// commits if f succeeds. Otherwise it rolls back.
func (s *Store) locked(ctx context.Context, f func(context.Context, dbtx) error) error {
	if s.dialect == Postgres {
		// Read committed, whatever the database's default, so that each
		// statement after the lock sees what the previous holder
		// committed; a repeatable-read snapshot would be taken by the
		// lock statement itself, before the wait.
		tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			return err
		}
		defer tx.Rollback() // a no-op after Commit
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, advisoryLockKey); err != nil {
			return err
		}
		if err := f(ctx, tx); err != nil {
			return err
		}
		return tx.Commit()
	}
	// database/sql's BeginTx would issue the driver's BEGIN, DEFERRED
	// unless the DSN says _txlock=immediate; a deferred transaction that
	// reads the version and then writes can fail to upgrade its lock.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	err = f(ctx, conn)
	if err == nil {
		_, err = conn.ExecContext(ctx, `COMMIT`)
	}
	if err != nil {
		// ctx may be done; the rollback must run regardless. A connection
		// that cannot roll back is closed, not returned to the pool inside
		// a transaction.
		if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`); rerr != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}
	return err
}
