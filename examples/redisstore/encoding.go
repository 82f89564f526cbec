package redisstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/recapgo/recap"
)

// value is a Summary as the summary field holds it. It has tags of its own
// so that the stored format does not follow changes to recap.Summary's.
//
// Digests is left out when empty, so that a summary without Digests is
// stored exactly as by the redisstore before Summary.Digests, which reads
// it; a summary field without digests (written by that redisstore) holds
// no Digests.
type value struct {
	Text          string   `json:"text"`
	LastMessageID string   `json:"lastMessageId"`
	Covered       []string `json:"covered"`           // [] for none, never null
	Digests       []string `json:"digests,omitempty"` // absent for none
}

// encode returns sum as the summary field stores it, a JSON object such as
// {"text":"…","lastMessageId":"m2","covered":["m1","m2"],"digests":["0a1b2c3d","~4e5f6a7b"]}.
// JSON keeps every valid UTF-8 string exactly (NUL and line separators
// included, escaped), but it cannot carry invalid UTF-8, which
// encoding/json would silently replace with U+FFFD; so a string that is not
// valid UTF-8 is an error.
func encode(sum recap.Summary) (string, error) {
	if !utf8.ValidString(sum.Text) {
		return "", fmt.Errorf("the summary text is not valid UTF-8, which JSON cannot hold")
	}
	if !utf8.ValidString(sum.LastMessageID) {
		return "", fmt.Errorf("the boundary ID %q is not valid UTF-8, which JSON cannot hold", sum.LastMessageID)
	}
	for i, id := range sum.Covered {
		if !utf8.ValidString(id) {
			return "", fmt.Errorf("covered ID %d (%q) is not valid UTF-8, which JSON cannot hold", i, id)
		}
	}
	for i, d := range sum.Digests {
		if !utf8.ValidString(d) {
			return "", fmt.Errorf("digest %d (%q) is not valid UTF-8, which JSON cannot hold", i, d)
		}
	}
	v := value{Text: sum.Text, LastMessageID: sum.LastMessageID, Covered: sum.Covered, Digests: sum.Digests}
	if v.Covered == nil {
		v.Covered = []string{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & readable in redis-cli
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// decode returns the Summary that the summary field s holds, with a fresh
// Covered and Digests, nil for none.
func decode(s string) (recap.Summary, error) {
	var v value
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return recap.Summary{}, fmt.Errorf("summary field: %w", err)
	}
	if len(v.Covered) == 0 {
		v.Covered = nil
	}
	if len(v.Digests) == 0 {
		v.Digests = nil
	}
	return recap.Summary{Text: v.Text, LastMessageID: v.LastMessageID, Covered: v.Covered, Digests: v.Digests}, nil
}
