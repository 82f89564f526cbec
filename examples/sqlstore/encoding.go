package sqlstore

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/recapgo/recap"
)

// encodeCovered returns ids as the covered column stores them: a JSON array
// of strings, "[]" for none. JSON keeps every valid UTF-8 ID exactly (NUL
// included, as \u0000, which PostgreSQL TEXT could not hold raw), but it
// cannot carry invalid UTF-8, so such an ID is an error rather than a
// silently replaced one.
func encodeCovered(ids []string) (string, error) {
	if len(ids) == 0 {
		return "[]", nil
	}
	for i, id := range ids {
		if !utf8.ValidString(id) {
			return "", fmt.Errorf("covered ID %d (%q) is not valid UTF-8", i, id)
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & readable in the column
	if err := enc.Encode(ids); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// decodeCovered returns the fresh slice that the covered column col holds,
// nil for none.
func decodeCovered(col string) ([]string, error) {
	var ids []string
	if err := json.Unmarshal([]byte(col), &ids); err != nil {
		return nil, fmt.Errorf("covered column: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return ids, nil
}

// digest returns the hex SHA-256 of a canonical encoding of sum: Text and
// LastMessageID, the number of Covered IDs, then each ID, every string
// preceded by its length in bytes (all lengths as uvarints). The encoding
// is prefix-free, so two summaries share a digest only if they are
// [recap.Summary.Equal] (a nil and an empty Covered encode alike) or
// SHA-256 collides. Changing it needs a schema version that recomputes the
// digest column.
func digest(sum recap.Summary) string {
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
