package sqlstore

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// encodeStrings returns ss as the covered and digests columns store them:
// a JSON array of strings, "[]" for none. JSON keeps every valid UTF-8
// string exactly (NUL included, as \u0000, which PostgreSQL TEXT could not
// hold raw), but it cannot carry invalid UTF-8, so such a string is an
// error, naming it as what (as "covered ID"), rather than a silently
// replaced one.
func encodeStrings(what string, ss []string) (string, error) {
	if len(ss) == 0 {
		return "[]", nil
	}
	for i, s := range ss {
		if !utf8.ValidString(s) {
			return "", fmt.Errorf("%s %d (%q) is not valid UTF-8", what, i, s)
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & readable in the column
	if err := enc.Encode(ss); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// decodeStrings returns the fresh slice that the column named name holds
// as col, nil for none.
func decodeStrings(name, col string) ([]string, error) {
	var ss []string
	if err := json.Unmarshal([]byte(col), &ss); err != nil {
		return nil, fmt.Errorf("%s column: %w", name, err)
	}
	if len(ss) == 0 {
		return nil, nil
	}
	return ss, nil
}
