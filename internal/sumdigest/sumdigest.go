// Package sumdigest is the digest of a recap.Summary that the examples'
// stores compare in their compare-and-swap instead of the whole value.
package sumdigest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/recapgo/recap"
)

// Of returns the hex SHA-256 of a canonical encoding of sum: Text and
// LastMessageID, the number of Covered IDs, then each ID, every string
// preceded by its length in bytes (all lengths as uvarints). The encoding
// is prefix-free, so two summaries share a digest only if they are
// [recap.Summary.Equal] (a nil and an empty Covered encode alike) or
// SHA-256 collides. Stores keep it beside the value (examples/sqlstore's
// digest column, examples/redisstore's digest field): changing it needs a
// migration that recomputes it.
func Of(sum recap.Summary) string {
	n := len(sum.Text) + len(sum.LastMessageID) + 3*binary.MaxVarintLen64
	for _, id := range sum.Covered {
		n += len(id) + binary.MaxVarintLen64
	}
	b := make([]byte, 0, n)
	b = appendString(b, sum.Text)
	b = appendString(b, sum.LastMessageID)
	b = binary.AppendUvarint(b, uint64(len(sum.Covered)))
	for _, id := range sum.Covered {
		b = appendString(b, id)
	}
	d := sha256.Sum256(b)
	return hex.EncodeToString(d[:])
}

// appendString appends s to b, preceded by its length as a uvarint.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
