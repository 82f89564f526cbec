package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recapgo/recap"
)

// LeaseTable is the table, beside a Store's own, that holds the
// summarization leases (see [recap.Leaser]) of every Store table of a
// database: one row per leased chat, keyed by the Store's table name (in
// lower case) and the chat ID, with the holder and the expiry in Unix
// milliseconds. [Store.Migrate] makes it (schema version 3).
const LeaseTable = "recap_leases"

// AcquireLease grants chatID's summarization lease to holder for ttl, or
// extends holder's lease, in one INSERT ... ON CONFLICT DO UPDATE ...
// WHERE statement, and returns an error matching [recap.ErrLeaseHeld] if
// another holder's lease has not expired; see [recap.Leaser]. Expiry is
// measured on the database server's clock on PostgreSQL
// (clock_timestamp()), so replicas' clocks need not agree, and on this
// machine's on SQLite, whose callers share the machine.
func (s *Store) AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("sqlstore: lease %q: time-to-live %v is not positive", chatID, ttl)
	}
	ms := int64((ttl + time.Millisecond - 1) / time.Millisecond)
	const upsert = `INSERT INTO ` + LeaseTable + ` (table_name, chat_id, holder, expires_at) VALUES (?, ?, ?, %[1]s + ?)
ON CONFLICT (table_name, chat_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
WHERE ` + LeaseTable + `.holder = excluded.holder OR ` + LeaseTable + `.expires_at <= %[1]s`
	var (
		q    string
		args = []any{strings.ToLower(s.table), chatID, holder}
	)
	if s.dialect == Postgres {
		q = fmt.Sprintf(upsert, `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT`)
		args = append(args, ms)
	} else {
		now := time.Now().UnixMilli()
		q = fmt.Sprintf(upsert, `?`)
		args = []any{args[0], args[1], args[2], now, ms, now}
	}
	res, err := s.exec(ctx, s.q(q), args...)
	if err != nil {
		return fmt.Errorf("sqlstore: lease %q: %w", chatID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlstore: lease %q: %w", chatID, err)
	}
	if n != 1 {
		return fmt.Errorf("sqlstore: lease %q: %w", chatID, recap.ErrLeaseHeld)
	}
	return nil
}

// ReleaseLease deletes chatID's lease row if holder holds it; see
// [recap.Leaser].
func (s *Store) ReleaseLease(ctx context.Context, chatID, holder string) error {
	_, err := s.exec(ctx, s.q(`DELETE FROM `+LeaseTable+` WHERE table_name = ? AND chat_id = ? AND holder = ?`),
		strings.ToLower(s.table), chatID, holder)
	if err != nil {
		return fmt.Errorf("sqlstore: release lease %q: %w", chatID, err)
	}
	return nil
}
