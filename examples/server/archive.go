package main

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/recapgo/recap"
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
// It is in memory, per process: what a tenant's archives hold is bounded
// by maxTenantBytes (a chat's oldest messages are evicted first, then,
// if one chat's newest message alone does not fit, it is not archived),
// and a chat not written for ttl is dropped. Expired chats are dropped when
// they are read and, a few at a time, on each write: no goroutine.
type archive struct {
	ttl            time.Duration
	maxTenantBytes int64
	now            func() time.Time

	mu      sync.Mutex
	chats   map[string]*archivedChat // by store key
	tenants map[string]int64         // bytes archived per tenant
}

// An archivedChat is one chat's archive.
type archivedChat struct {
	tenant  string
	msgs    []archived // oldest first
	bytes   int64
	expires time.Time
}

// An archived message, with what it costs the tenant.
type archived struct {
	msg  recap.Message
	size int64
}

// DefaultArchiveTTL is how long a chat's archive is kept after its last
// write (-archive-ttl).
const DefaultArchiveTTL = 30 * 24 * time.Hour

// DefaultTenantMaxStoredBytes bounds what one tenant's archives hold
// (-tenant-max-stored-bytes).
const DefaultTenantMaxStoredBytes = 64 << 20

// sweepPerWrite is how many chats a write checks for expiry.
const sweepPerWrite = 4

func newArchive(ttl time.Duration, maxTenantBytes int64, now func() time.Time) *archive {
	if now == nil {
		now = time.Now
	}
	return &archive{ttl: ttl, maxTenantBytes: maxTenantBytes, now: now,
		chats: map[string]*archivedChat{}, tenants: map[string]int64{}}
}

// sync archives the messages of msgs (with the IDs recap gives them, see
// recap.ChainIDs) that s covers, replacing those of the same ID, in the
// order of s.Covered. With full (msgs holds the summary's boundary: the
// client sent its history, not an echo), archived messages s no longer
// covers leave the archive.
func (a *archive) sync(tenant, key string, msgs []recap.Message, s recap.Summary) {
	pos := make(map[string]int, len(s.Covered))
	for i, id := range s.Covered {
		pos[id] = i
	}
	var add []recap.Message
	full := false
	for _, m := range recap.ChainIDs(msgs) {
		if _, ok := pos[m.ID]; ok {
			add = append(add, m)
			full = full || m.ID == s.LastMessageID
		}
	}
	if len(add) == 0 && !full {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	a.sweep(now)
	ch := a.chat(tenant, key, now)
	if full {
		ch.msgs = slices.DeleteFunc(ch.msgs, func(e archived) bool {
			_, ok := pos[e.msg.ID]
			if !ok {
				a.release(ch, e.size)
			}
			return !ok
		})
	}
	at := make(map[string]int, len(ch.msgs))
	for i, e := range ch.msgs {
		at[e.msg.ID] = i
	}
	for _, m := range add {
		if i, ok := at[m.ID]; ok && ch.msgs[i].msg.Role == m.Role && ch.msgs[i].msg.Text() == m.Text() {
			continue // archived as it is (a whole history sends it again on every request)
		}
		size := messageSize(m)
		if i, ok := at[m.ID]; ok {
			a.release(ch, ch.msgs[i].size)
			ch.msgs[i] = archived{msg: m, size: size}
		} else {
			at[m.ID] = len(ch.msgs)
			ch.msgs = append(ch.msgs, archived{msg: m, size: size})
		}
		ch.bytes += size
		a.tenants[tenant] += size
	}
	// Covered's order; messages it no longer lists (after a Forget) first.
	slices.SortStableFunc(ch.msgs, func(x, y archived) int {
		px, okx := pos[x.msg.ID]
		py, oky := pos[y.msg.ID]
		switch {
		case !okx && !oky:
			return 0
		case !okx:
			return -1
		case !oky:
			return 1
		}
		return px - py
	})
	for a.tenants[tenant] > a.maxTenantBytes && len(ch.msgs) > 0 {
		a.release(ch, ch.msgs[0].size)
		ch.msgs = ch.msgs[1:]
	}
	ch.msgs = slices.Clip(ch.msgs)
	ch.expires = now.Add(a.ttl)
	if len(ch.msgs) == 0 {
		a.drop(key)
	}
}

// messages returns the chat's archived messages, oldest first, or nil.
func (a *archive) messages(key string) []recap.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch := a.chats[key]
	if ch == nil {
		return nil
	}
	if !a.now().Before(ch.expires) {
		a.drop(key)
		return nil
	}
	out := make([]recap.Message, len(ch.msgs))
	for i, e := range ch.msgs {
		out[i] = e.msg
	}
	return out
}

// remove takes the message id out of the chat's archive and reports
// whether it was there.
func (a *archive) remove(key, id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch := a.chats[key]
	if ch == nil {
		return false
	}
	i := ch.index(id)
	if i < 0 {
		return false
	}
	a.release(ch, ch.msgs[i].size)
	ch.msgs = slices.Delete(ch.msgs, i, i+1)
	if len(ch.msgs) == 0 {
		a.drop(key)
	}
	return true
}

// erase drops the chat's archive.
func (a *archive) erase(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.drop(key)
}

// stored returns what the tenant's archives hold, in bytes.
func (a *archive) stored(tenant string) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tenants[tenant]
}

// chat returns the archive of key, made for tenant if there is none or it
// expired. a.mu is held.
func (a *archive) chat(tenant, key string, now time.Time) *archivedChat {
	ch := a.chats[key]
	if ch != nil && !now.Before(ch.expires) {
		a.drop(key)
		ch = nil
	}
	if ch == nil {
		ch = &archivedChat{tenant: tenant}
		a.chats[key] = ch
	}
	return ch
}

// sweep drops up to sweepPerWrite expired chats. a.mu is held.
func (a *archive) sweep(now time.Time) {
	n := 0
	for key, ch := range a.chats { // random order: each write checks others
		if n == sweepPerWrite {
			return
		}
		n++
		if !now.Before(ch.expires) {
			a.drop(key)
		}
	}
}

// drop removes the chat key and its bytes. a.mu is held.
func (a *archive) drop(key string) {
	ch := a.chats[key]
	if ch == nil {
		return
	}
	a.release(ch, ch.bytes)
	delete(a.chats, key)
}

// release takes size bytes off ch and its tenant. a.mu is held.
func (a *archive) release(ch *archivedChat, size int64) {
	ch.bytes -= size
	if a.tenants[ch.tenant] -= size; a.tenants[ch.tenant] <= 0 {
		delete(a.tenants, ch.tenant)
	}
}

// index returns the position of the message id in ch, or -1.
func (ch *archivedChat) index(id string) int {
	return slices.IndexFunc(ch.msgs, func(e archived) bool { return e.msg.ID == id })
}

// messageSize is what a message costs its tenant: its JSON and its ID.
func messageSize(m recap.Message) int64 {
	b, err := json.Marshal(m)
	if err != nil {
		return int64(len(m.Text()) + len(m.ID))
	}
	return int64(len(b) + len(m.ID))
}
