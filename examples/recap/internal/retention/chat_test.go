package retention

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// TestChatFiles parses every *.chat file under testdata, in any
// directory: a chat added to the benchmark must parse and prove its facts.
func TestChatFiles(t *testing.T) {
	n := 0
	err := fs.WalkDir(os.DirFS("testdata"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".chat") {
			return err
		}
		n++
		if _, err := ReadChat(os.DirFS("testdata"), p); err != nil {
			t.Error(err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no *.chat file under testdata")
	}
}

// TestChatDir parses the *.chat files of the directory RECAP_CHAT_DIR
// names, if set: chats being written for the benchmark are checked
// without running it (and without seeing any summarizer's score).
func TestChatDir(t *testing.T) {
	dir := os.Getenv("RECAP_CHAT_DIR")
	if dir == "" {
		t.Skip("RECAP_CHAT_DIR not set")
	}
	chats, err := LoadChats(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chats {
		questions := 0
		for _, f := range c.Facts {
			if f.Question != "" {
				questions++
			}
		}
		t.Logf("%s (%s): %d messages, %d facts, %d questions", c.Name, c.Language, len(c.Messages), len(c.Facts), questions)
	}
}

func TestReadChatQuestion(t *testing.T) {
	const head = "title: t\nlanguage: en\nfact | user | ticket | INC-1\n"
	const body = "== user\nthe ticket is INC-1\n== assistant\nok\n== user\nnext\n"
	tests := []struct {
		name, text, want, err string
	}{
		{"none", head + body, "", ""},
		{"asked", head + "question | which ticket was it?\n" + body, "which ticket was it?", ""},
		{"names its proof", head + "question | was it inc-1?\n" + body, "", "names the proof"},
		{"twice", head + "question | a?\nquestion | b?\n" + body, "", "without a question"},
		{"before any fact", "title: t\nquestion | a?\n" + body, "", "without a question"},
		// Errors name the line they are about.
		{"proof not in the chat", head + "fact | user | order | BW-1\n" + body, "", `c.chat:4: fact "order": proof "BW-1" is not in the chat`},
		{"no user message last", head + "== user\nINC-1\n== assistant\nok\n", "", "c.chat:7: the chat must end with a user message"},
		{"no message", head, "", "c.chat:3: the chat must end with a user message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"c.chat": {Data: []byte(tt.text)}}
			c, err := ReadChat(fsys, "c.chat")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Facts[0].Question; got != tt.want {
				t.Errorf("question = %q, want %q", got, tt.want)
			}
		})
	}
}
