package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/recapgo/recap"
)

// ArchiveTable is the table, shared by the Store tables of a database (one
// row per Store table, chat and message), in which an [Archive] keeps the
// messages that chats' summaries cover. [Store.Migrate] makes it (schema
// version 5).
const ArchiveTable = "recap_archive"

// An Archive keeps, per chat of a Store, the messages its summary covers,
// for a client that keeps the payloads it got as its history (echoed
// payloads) and no longer has them: a recall tool searches them (see
// [recap.Recall] and [recap.RecallDropped]). It is safe for concurrent use
// by multiple goroutines and processes.
//
// Each chat belongs to a tenant, whose archives hold at most
// maxTenantBytes (the JSON of the messages and their IDs): beyond, the
// chat being written loses its oldest messages first. A chat not written
// for ttl is dropped: reads leave it out, and each write deletes the
// expired rows of the Store's table.
type Archive struct {
	s              *Store
	ttl            time.Duration
	maxTenantBytes int64
	now            func() time.Time
}

// Archive returns the Archive of s's chats, with the clock now (nil for
// time.Now). ttl and maxTenantBytes must be positive.
func (s *Store) Archive(ttl time.Duration, maxTenantBytes int64, now func() time.Time) (*Archive, error) {
	if ttl <= 0 || maxTenantBytes <= 0 {
		return nil, fmt.Errorf("sqlstore: archive: ttl %v and maxTenantBytes %d must be positive", ttl, maxTenantBytes)
	}
	if now == nil {
		now = time.Now
	}
	return &Archive{s: s, ttl: ttl, maxTenantBytes: maxTenantBytes, now: now}, nil
}

// addArchiveV5 makes the archive table if it does not exist; the Store's
// own table is unchanged.
func (s *Store) addArchiveV5(ctx context.Context, tx dbtx) error {
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+ArchiveTable+` (
	table_name TEXT NOT NULL,
	chat_id TEXT NOT NULL,
	message_id TEXT NOT NULL,
	tenant TEXT NOT NULL,
	seq INTEGER NOT NULL,
	message TEXT NOT NULL,
	bytes BIGINT NOT NULL,
	expires_at BIGINT NOT NULL,
	PRIMARY KEY (table_name, chat_id, message_id)
)`); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS `+ArchiveTable+`_tenant ON `+ArchiveTable+` (table_name, tenant)`)
	return err
}

// Sync archives the messages of msgs (with the IDs recap gives them, see
// [recap.ChainIDs]) that s covers, in the order of s.Covered, replacing
// those of the same ID, and renews the chat's ttl. When msgs holds s's
// boundary (the client sent its history, not an echo), the chat's archived
// messages that s no longer covers (deleted, and folded again without
// them) are removed. Messages s covers that msgs does not hold stay as
// they are.
func (a *Archive) Sync(ctx context.Context, tenant, chatID string, msgs []recap.Message, s recap.Summary) error {
	pos := make(map[string]int, len(s.Covered))
	for i, id := range s.Covered {
		pos[id] = i
	}
	type row struct {
		m    recap.Message
		data []byte
	}
	var rows []row
	full := false
	for _, m := range recap.ChainIDs(msgs) {
		if _, ok := pos[m.ID]; !ok {
			continue
		}
		data, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("sqlstore: archive %q: message %s: %w", chatID, m.ID, err)
		}
		rows = append(rows, row{m, data})
		full = full || m.ID == s.LastMessageID
	}
	if len(rows) == 0 {
		return nil
	}
	return a.tx(ctx, func(tx *sql.Tx) error {
		now := a.now()
		q, table := a.s.q, a.s.table
		if _, err := tx.ExecContext(ctx, q(`DELETE FROM `+ArchiveTable+` WHERE table_name = ? AND expires_at <= ?`), table, now.UnixMilli()); err != nil {
			return err
		}
		have, err := a.archived(ctx, tx, chatID)
		if err != nil {
			return err
		}
		if full {
			for id := range have {
				if _, ok := pos[id]; ok {
					continue
				}
				if _, err := tx.ExecContext(ctx, q(`DELETE FROM `+ArchiveTable+` WHERE table_name = ? AND chat_id = ? AND message_id = ?`), table, chatID, id); err != nil {
					return err
				}
			}
		}
		expires := now.Add(a.ttl).UnixMilli()
		for _, r := range rows {
			if have[r.m.ID] == string(r.data) {
				continue // archived as it is: a whole history sends it again and again
			}
			if _, err := tx.ExecContext(ctx, q(`INSERT INTO `+ArchiveTable+
				` (table_name, chat_id, message_id, tenant, seq, message, bytes, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (table_name, chat_id, message_id) DO UPDATE SET seq = excluded.seq, message = excluded.message, bytes = excluded.bytes, expires_at = excluded.expires_at`),
				table, chatID, r.m.ID, tenant, pos[r.m.ID], string(r.data), int64(len(r.data)+len(r.m.ID)), expires); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, q(`UPDATE `+ArchiveTable+` SET expires_at = ? WHERE table_name = ? AND chat_id = ?`), expires, table, chatID); err != nil {
			return err
		}
		return a.evict(ctx, tx, tenant, chatID)
	})
}

// evict removes the chat's oldest messages while its tenant holds more
// than maxTenantBytes.
func (a *Archive) evict(ctx context.Context, tx *sql.Tx, tenant, chatID string) error {
	q, table := a.s.q, a.s.table
	for {
		var total sql.NullInt64
		if err := tx.QueryRowContext(ctx, q(`SELECT SUM(bytes) FROM `+ArchiveTable+` WHERE table_name = ? AND tenant = ?`), table, tenant).Scan(&total); err != nil {
			return err
		}
		if total.Int64 <= a.maxTenantBytes {
			return nil
		}
		var id string
		err := tx.QueryRowContext(ctx, q(`SELECT message_id FROM `+ArchiveTable+` WHERE table_name = ? AND chat_id = ? ORDER BY seq LIMIT 1`), table, chatID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // the tenant's other chats hold it
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q(`DELETE FROM `+ArchiveTable+` WHERE table_name = ? AND chat_id = ? AND message_id = ?`), table, chatID, id); err != nil {
			return err
		}
	}
}

// archived returns the chat's archived messages, by ID, as JSON.
func (a *Archive) archived(ctx context.Context, tx *sql.Tx, chatID string) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, a.s.q(`SELECT message_id, message FROM `+ArchiveTable+` WHERE table_name = ? AND chat_id = ?`), a.s.table, chatID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, data string
		if err := rows.Scan(&id, &data); err != nil {
			return nil, err
		}
		out[id] = data
	}
	return out, rows.Err()
}

// Messages returns the chat's archived messages, oldest first (by their
// place in the summary's Covered when they were archived), or nil.
func (a *Archive) Messages(ctx context.Context, chatID string) ([]recap.Message, error) {
	rows, err := a.s.db.QueryContext(ctx, a.s.q(`SELECT message FROM `+ArchiveTable+
		` WHERE table_name = ? AND chat_id = ? AND expires_at > ? ORDER BY seq, message_id`), a.s.table, chatID, a.now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("sqlstore: archive %q: %w", chatID, err)
	}
	defer rows.Close()
	var out []recap.Message
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("sqlstore: archive %q: %w", chatID, err)
		}
		var m recap.Message
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return nil, fmt.Errorf("sqlstore: archive %q: a stored message: %w", chatID, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: archive %q: %w", chatID, err)
	}
	return out, nil
}

// Remove takes the message id out of the chat's archive and reports
// whether it was there.
func (a *Archive) Remove(ctx context.Context, chatID, id string) (bool, error) {
	res, err := a.s.exec(ctx, a.s.q(`DELETE FROM `+ArchiveTable+` WHERE table_name = ? AND chat_id = ? AND message_id = ? AND expires_at > ?`),
		a.s.table, chatID, id, a.now().UnixMilli())
	if err != nil {
		return false, fmt.Errorf("sqlstore: archive %q: remove %q: %w", chatID, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlstore: archive %q: remove %q: %w", chatID, id, err)
	}
	return n > 0, nil
}

// Erase drops the chat's archive.
func (a *Archive) Erase(ctx context.Context, chatID string) error {
	if _, err := a.s.exec(ctx, a.s.q(`DELETE FROM `+ArchiveTable+` WHERE table_name = ? AND chat_id = ?`), a.s.table, chatID); err != nil {
		return fmt.Errorf("sqlstore: archive %q: erase: %w", chatID, err)
	}
	return nil
}

// Stored returns what the tenant's unexpired archives hold, in bytes.
func (a *Archive) Stored(ctx context.Context, tenant string) (int64, error) {
	var total sql.NullInt64
	err := a.s.db.QueryRowContext(ctx, a.s.q(`SELECT SUM(bytes) FROM `+ArchiveTable+` WHERE table_name = ? AND tenant = ? AND expires_at > ?`),
		a.s.table, tenant, a.now().UnixMilli()).Scan(&total)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: archive: stored bytes of %q: %w", tenant, err)
	}
	return total.Int64, nil
}

// tx runs f in a transaction and commits it if f succeeds. Sync's first
// statement writes (the purge of expired rows), so that on SQLite its
// transaction takes the write lock before it reads.
func (a *Archive) tx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := a.s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: archive: %w", err)
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("sqlstore: archive: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: archive: %w", err)
	}
	return nil
}
