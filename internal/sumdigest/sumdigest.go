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
// LastMessageID, the number of Covered IDs, then each ID, and, only if
// Digests is not empty, the number of Digests, then each digest; every
// string is preceded by its length in bytes (all lengths as uvarints).
//
// The encoding is injective, so two summaries share a digest only if they
// are [recap.Summary.Equal] or SHA-256 collides: the part up to the last
// Covered ID is prefix-free, so what follows it is either nothing (no
// Digests) or a count of at least 1 and that many strings. A nil and an
// empty Covered encode alike, and so do a nil and an empty Digests.
//
// A summary without Digests has the digest it had before Of knew of
// Digests. Stores keep the digest beside the value (examples/sqlstore's
// digest column, examples/redisstore's digest field), so the digests they
// hold for summaries saved before Digests existed still match those
// summaries, which they load with no Digests: no store needs to recompute
// them. Any other change to the encoding would need a migration that
// recomputes every stored digest; TestPinned guards against one.
func Of(sum recap.Summary) string {
	n := len(sum.Text) + len(sum.LastMessageID) + 4*binary.MaxVarintLen64
	for _, id := range sum.Covered {
		n += len(id) + binary.MaxVarintLen64
	}
	for _, d := range sum.Digests {
		n += len(d) + binary.MaxVarintLen64
	}
	b := make([]byte, 0, n)
	b = appendString(b, sum.Text)
	b = appendString(b, sum.LastMessageID)
	b = appendStrings(b, sum.Covered)
	if len(sum.Digests) > 0 {
		b = appendStrings(b, sum.Digests)
	}
	d := sha256.Sum256(b)
	return hex.EncodeToString(d[:])
}

// appendStrings appends the number of strings in ss as a uvarint, then
// each of them with appendString.
func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

// appendString appends s to b, preceded by its length as a uvarint.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
