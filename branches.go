package recap

import (
	"container/list"
	"sync"
)

// A summary that a save replaces may stand again for a later request:
//
//   - two branches of one chat sent alternately (two browser tabs after an
//     edit, or a client retrying the history from before the edit) each
//     make the other's summary stale;
//   - after an edit, deletion or insertion at message k, an earlier
//     summary of the chat that covers only messages before k still stands
//     for the history.
//
// So that neither costs a rebuild from the start, a Compressor remembers
// the summaries its saves replaced, newest first, up to maxBranches per
// chat (the two newest, and older ones covering spread-out lengths of the
// chat) and maxBranchBytes in all (the chats used least lately forgotten
// first), and before a stale summary is folded again it plans the request
// against them: the newest that stands for the request's history as it is
// now (its boundary present, nothing it covers edited, deleted or
// inserted; see Summary.Digests) is the summary in force, and a
// summarization builds on it. The memory is per Compressor, in process,
// like the flights: another process rebuilds from the start.

const (
	maxBranches    = 6
	maxBranchBytes = 8 << 20
)

// branches holds the summaries replaced lately, by chat.
type branches struct {
	mu    sync.Mutex // protects the fields below
	m     map[string]*list.Element
	lru   list.List // of *branchList, the chat used most lately first
	bytes int       // the size of every summary held
}

type branchList struct {
	chatID string
	list   []Summary // newest first; never modified in place
	bytes  int
}

// summaryBytes is about how much memory s holds.
func summaryBytes(s Summary) int {
	n := len(s.Text) + len(s.LastMessageID) + 64
	for _, id := range s.Covered {
		n += len(id) + 16
	}
	for _, d := range s.Digests {
		n += len(d) + 16
	}
	return n
}

// remember records that s, a summary of chatID, was replaced.
func (b *branches) remember(chatID string, s Summary) {
	if s.Text == "" {
		return
	}
	size := summaryBytes(s)
	if size > maxBranchBytes/4 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]*list.Element{}
	}
	e, ok := b.m[chatID]
	if !ok {
		e = b.lru.PushFront(&branchList{chatID: chatID})
		b.m[chatID] = e
	}
	b.lru.MoveToFront(e)
	bl := e.Value.(*branchList)
	next := []Summary{s.clone()}
	for _, o := range bl.list {
		if !o.Equal(s) {
			next = append(next, o)
		}
	}
	if len(next) > maxBranches {
		next = thin(next)
	}
	nextBytes := 0
	for _, o := range next {
		nextBytes += summaryBytes(o)
	}
	b.bytes += nextBytes - bl.bytes
	bl.list, bl.bytes = next, nextBytes
	for b.bytes > maxBranchBytes {
		old := b.lru.Back().Value.(*branchList)
		b.lru.Remove(b.lru.Back())
		delete(b.m, old.chatID)
		b.bytes -= old.bytes
	}
}

// thin drops one of list, newest first, longer than maxBranches: the two
// newest stay (a branch sent alternately with the other), and of the rest
// the one that covers nearest as many messages as the next newer one, so
// that what is kept of a chat's growth covers spread-out lengths (an edit
// at message k reuses one that covers not much less than k).
func thin(list []Summary) []Summary {
	drop, best := len(list)-1, 0.0
	for i := 2; i < len(list); i++ {
		newer, n := len(list[i-1].Covered), len(list[i].Covered)
		ratio := float64(min(n, newer)+1) / float64(max(n, newer)+1)
		if ratio > best {
			drop, best = i, ratio
		}
	}
	return append(list[:drop:drop], list[drop+1:]...)
}

// recent returns the summaries of chatID replaced lately, newest first.
func (b *branches) recent(chatID string) []Summary {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.m[chatID]
	if !ok {
		return nil
	}
	b.lru.MoveToFront(e)
	return e.Value.(*branchList).list
}

// drop forgets the summaries of chatID.
func (b *branches) drop(chatID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.m[chatID]; ok {
		b.bytes -= e.Value.(*branchList).bytes
		b.lru.Remove(e)
		delete(b.m, chatID)
	}
}
