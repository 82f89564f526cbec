package sqlstore

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
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
