// Package benchchat reads the chats the benchmarks of recap's root module
// replay (extractive/testdata/bench: two of the retention benchmark's, in
// its .chat format), without importing recap, so that recap's own tests
// can use it.
package benchchat

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Message is one message of a chat: its role, as the file names it
// ("user", "assistant"), and its text.
type Message struct {
	Role, Text string
}

// Read returns the messages of the *.chat files of dir, in order (file by
// file, sorted by name), up to about n tokens as count measures their
// texts: the message that would pass n is left out.
func Read(dir string, n int, count func(string) int) ([]Message, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.chat"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("benchchat: no *.chat file in %s", dir)
	}
	var ms []Message
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, block := range strings.Split(string(data), "\n== ")[1:] {
			role, text, _ := strings.Cut(block, "\n")
			m := Message{Role: role, Text: strings.TrimSpace(text)}
			if total += count(m.Text); total > n {
				return ms, nil
			}
			ms = append(ms, m)
		}
	}
	return ms, nil
}
