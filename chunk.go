package recap

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recapgo/recap/tokens"
)

// A backlog larger than WithMaxSummarizeInput is cut into chunks, one
// Summarizer call each. A chunk never ends between a tool call and its
// results, and every message the boundary passes reaches the Summarizer
// with at least the start of its text.

// minKeep is the least of a message's text, in tokens, that a truncated
// message keeps for the Summarizer.
const minKeep = 8

// truncationMarker is appended to a message cut for the Summarizer.
func truncationMarker(tokens int) string {
	return fmt.Sprintf("\n[recap: message truncated for the summarizer, %d tokens in all]", tokens)
}

// piece returns the fewest tokens a message can be given in a chunk: its
// framing, the truncation marker and minKeep tokens of its text.
func piece(tc TokenCounter, overhead int) int {
	return tc.CountTokens(truncationMarker(1<<31-1)) + overhead + minKeep
}

// minRoom returns the room a chunk always has for messages, whatever the
// size of the running summary: a quarter of the input limit, and at least
// one piece. A running summary larger than maxInput minus this room (one
// saved under other options) makes that one call exceed the limit.
func (c *Compressor) minRoom() int {
	return max(c.cfg.maxInput/4, c.piece)
}

// chunk returns the next Summarizer input of rest, given the running
// summary: the messages (the last ones possibly truncated, with a marker),
// how many messages of rest it takes (at least one), and its input tokens.
// counts are the sizes of rest's messages and cuts its cut points (see
// cutPoints). Without WithMaxSummarizeInput, all of rest is one chunk.
//
// With it, the chunk takes whole groups (the messages between two cut
// points) while they fit beside the running summary. A group that does
// not fit is truncated into the room left when the chunk would otherwise
// be empty, or when it could never fit whole and at least half the room is
// left; otherwise the chunk ends before it. Each message keeps at least
// one piece.
func (c *Compressor) chunk(running Summary, rest []Message, counts []int, cuts []bool) ([]Message, int, int) {
	input := 0
	if !running.IsZero() {
		input = c.tokens(&Message{ID: SummaryIDPrefix + running.LastMessageID, Content: running.Text}, nil)
	}
	if c.cfg.maxInput == 0 {
		for _, n := range counts {
			input += n
		}
		return rest, len(rest), input
	}
	room := max(c.cfg.maxInput-input, c.minRoom())
	used, n := 0, 0
	for n < len(rest) {
		g := n + 1 // the group rest[n:g]
		for !cuts[g] {
			g++
		}
		size := 0
		for _, k := range counts[n:g] {
			size += k
		}
		if used+size <= room {
			used, n = used+size, g
			continue
		}
		if n > 0 && (size <= room || room-used < max(room/2, (g-n)*c.piece)) {
			break // the next chunk has more room for it
		}
		msgs := append(slices.Clip(rest[:n]), c.squeeze(rest[n:g], counts[n:g], room-used)...)
		for _, m := range msgs[n:] {
			input += c.tokens(nil, []Message{m})
		}
		return msgs, g, input + used
	}
	return rest[:n], n, input + used
}

// squeeze fits the messages of one group into room tokens: the largest
// are truncated to a common cap, each keeping at least one piece, so that
// the group exceeds room only if room is under a piece per message.
func (c *Compressor) squeeze(group []Message, sizes []int, room int) []Message {
	out := make([]Message, len(group))
	// The cap: the largest L with the sum of min(size, L) within room.
	sorted := slices.Clone(sizes)
	slices.Sort(sorted)
	limit, left := room, room
	for i, s := range sorted {
		share := left / (len(sorted) - i)
		if s > share {
			limit = share
			break
		}
		left -= s
		limit = s
	}
	limit = max(limit, c.piece)
	for i, m := range group {
		if sizes[i] <= limit {
			out[i] = m
			continue
		}
		out[i] = truncate(m, limit-c.cfg.overhead, sizes[i]-c.cfg.overhead, c.cfg.counter)
	}
	return out
}

// truncate returns m with its text cut to at most budget tokens, counted
// by tc, and a marker saying how much was cut: the part of m that a
// Summarizer with a bounded input can take. m's ID and role are kept.
// budget must leave room for the marker and minKeep tokens. The cut is
// tokens.Truncate's: at a token boundary with a tokens.Tiktoken (the
// default counter), never inside a word's token.
func truncate(m Message, budget, total int, tc TokenCounter) Message {
	marker := truncationMarker(total)
	keep := budget - tc.CountTokens(marker)
	text := tokens.Truncate(tc, m.Text(), keep)
	// Counts are not quite additive where the cut meets the marker: shrink
	// until the whole fits.
	content := text + marker
	for over := tc.CountTokens(content) - budget; over > 0 && text != ""; over = tc.CountTokens(content) - budget {
		keep -= over
		text = tokens.Truncate(tc, text, keep)
		content = text + marker
	}
	return Message{ID: m.ID, Role: m.Role, Content: content}
}

// coverage builds the Covered list of the summaries a summarization saves,
// and its Digests.
type coverage struct {
	ids     []string
	digests []string
	seen    map[string]bool
	context map[string]bool // the IDs of per-request context messages (see ContextMark)
}

// newCoverage starts from what p's summary covers: its Covered list or,
// for a summary saved without one, the IDs of the messages the history
// sent for it (echoes of it aside). Messages of the history that the list
// does not name (echoes of earlier summaries, messages whose IDs changed
// with an echo) are not added: the list only grows at its end, and
// coveredRun finds them by other means. A summary saved without Digests
// gains them: the digest of each covered message the history sent, ""
// for the others.
func newCoverage(p Plan) *coverage {
	s := p.Summary
	cv := &coverage{ids: slices.Clone(s.Covered), seen: make(map[string]bool, len(s.Covered)),
		context: contextIDs(p.Summarize)}
	for _, id := range cv.ids {
		cv.seen[id] = true
	}
	if len(cv.ids) == 0 {
		for _, m := range p.Covered {
			if !p.echo(m) {
				cv.add([]Message{m})
			}
		}
		return cv
	}
	if s.checked() {
		cv.digests = slices.Clone(s.Digests)
		return cv
	}
	sent := make(map[string]Message, len(p.Covered))
	for _, m := range p.Covered {
		sent[m.ID] = m
	}
	cv.digests = make([]string, len(cv.ids))
	for i, id := range cv.ids {
		if m, ok := sent[id]; ok && !p.echo(m) {
			cv.digests[i] = cv.digest(m)
		}
	}
	return cv
}

// digest returns the entry of Digests for m.
func (cv *coverage) digest(m Message) string {
	switch {
	case strings.HasPrefix(m.ID, SummaryIDPrefix) || hasPlaceholder(m):
		return "" // an echo; a placeholder
	case cv.context[m.ID]:
		return ContextMark + Digest(m)
	}
	return Digest(m)
}

// add appends the IDs of msgs not covered yet, and their digests, and
// returns the lists, in slices of their own.
func (cv *coverage) add(msgs []Message) (ids, digests []string) {
	for _, m := range msgs {
		if !cv.seen[m.ID] {
			cv.seen[m.ID] = true
			cv.ids = append(cv.ids, m.ID)
			cv.digests = append(cv.digests, cv.digest(m))
		}
	}
	cv.ids, cv.digests = slices.Clip(cv.ids), slices.Clip(cv.digests)
	return cv.ids, cv.digests
}

// contextIDs returns the IDs of the per-request context messages of msgs:
// the system and developer messages followed, after any others, by a user
// message of msgs. Nil if there are none.
func contextIDs(msgs []Message) map[string]bool {
	var ids map[string]bool
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != RoleUser {
			continue
		}
		for j := i - 1; j >= 0 && msgs[j].Role.pinned(); j-- {
			if ids == nil {
				ids = make(map[string]bool)
			}
			ids[msgs[j].ID] = true
		}
	}
	return ids
}
