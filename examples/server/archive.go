package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/sqlstore"
)

// An archive keeps, per tenant's chat, the messages its summary covers,
// for a client that keeps the payloads it got as its history (echoed
// payloads): that client no longer has them, and POST
// /api/chats/{id}/recall searches them (issue 25 §3).
//
// A chat's archive is written after a payload request, from the request's
// messages the summary in force covers (Summary.Covered): an echo client
// sends each message raw until it is folded, so each is archived by the
// request that folds it; a client that sends its whole history updates
// the archive with each request, so an edited message is archived as it
// is now, and a message the summary no longer covers (deleted from that
// history and folded again without it) leaves it. DELETE
// /api/chats/{id}/messages/{mid} takes one out; DELETE
// /api/chats/{id}/summary erases the chat's.
//
// The server's is sqlstore's Archive, in the database of the summaries
// (SQLite or PostgreSQL), so that replicas share it and it outlives a
// restart: what a tenant's archives hold is bounded by
// -tenant-max-stored-bytes (a chat's oldest messages are evicted first),
// and a chat not written for -archive-ttl is dropped (left out by reads,
// deleted by the next write): no goroutine.
type archive interface {
	// Sync archives the messages of msgs that s covers (see
	// sqlstore.Archive.Sync).
	Sync(ctx context.Context, tenant, key string, msgs []recap.Message, s recap.Summary) error
	// Messages returns the chat's archived messages, oldest first.
	Messages(ctx context.Context, key string) ([]recap.Message, error)
	// Remove takes a message out and reports whether it was there.
	Remove(ctx context.Context, key, id string) (bool, error)
	// Erase drops the chat's archive.
	Erase(ctx context.Context, key string) error
	// Stored returns what the tenant's archives hold, in bytes.
	Stored(ctx context.Context, tenant string) (int64, error)
}

var _ archive = (*sqlstore.Archive)(nil)

// DefaultArchiveTTL is how long a chat's archive is kept after its last
// write (-archive-ttl).
const DefaultArchiveTTL = 30 * 24 * time.Hour

// DefaultTenantMaxStoredBytes bounds what one tenant's archives hold
// (-tenant-max-stored-bytes).
const DefaultTenantMaxStoredBytes = 64 << 20

// archived remembers, per chat, the summary this process last archived
// the messages of, so that a payload request writes the archive only when
// the summary in force changed (a whole history sends every covered
// message again with each request; each new summary, edits and deletions
// included, changes it). Another replica's writes are not seen: it
// archives the same messages once more, which Sync leaves as they are. At
// most maxArchivedMemo chats; beyond, it starts over.
type archivedMemo struct {
	mu sync.Mutex
	m  map[string]string
}

const maxArchivedMemo = 100_000

// fresh reports whether s is not the summary last archived for key.
func (a *archivedMemo) fresh(key string, s recap.Summary) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m[key] != fingerprint(s)
}

// done records that the messages s covers are archived for key.
func (a *archivedMemo) done(key string, s recap.Summary) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil || len(a.m) >= maxArchivedMemo {
		a.m = map[string]string{}
	}
	a.m[key] = fingerprint(s)
}

// forget drops key, whose archive changed otherwise (a message removed, the
// archive erased).
func (a *archivedMemo) forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, key)
}

// fingerprint tells summaries apart: boundary, covered count, text.
func fingerprint(s recap.Summary) string {
	return fmt.Sprintf("%s\x00%d\x00%d\x00%x", s.LastMessageID, len(s.Covered), len(s.Text), sha256.Sum256([]byte(s.Text)))
}

// memoArchive is an archive that writes a chat's only when its summary
// changed (see archivedMemo).
type memoArchive struct {
	archive
	memo archivedMemo
}

func newMemoArchive(a archive) *memoArchive { return &memoArchive{archive: a} }

func (m *memoArchive) Sync(ctx context.Context, tenant, key string, msgs []recap.Message, s recap.Summary) error {
	if !m.memo.fresh(key, s) {
		return nil
	}
	err := m.archive.Sync(ctx, tenant, key, msgs, s)
	if err == nil {
		m.memo.done(key, s)
	}
	return err
}

func (m *memoArchive) Remove(ctx context.Context, key, id string) (bool, error) {
	m.memo.forget(key)
	return m.archive.Remove(ctx, key, id)
}

func (m *memoArchive) Erase(ctx context.Context, key string) error {
	m.memo.forget(key)
	return m.archive.Erase(ctx, key)
}
