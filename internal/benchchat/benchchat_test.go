package benchchat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	chat := "title: t\nfact | user | x | a\n== user\na b\n== assistant\nc d e\n\n== user\nf\n"
	if err := os.WriteFile(filepath.Join(dir, "a.chat"), []byte(chat), 0o600); err != nil {
		t.Fatal(err)
	}
	words := func(s string) int { return len(strings.Fields(s)) }
	tests := []struct {
		n    int
		want []Message
	}{
		{100, []Message{{"user", "a b"}, {"assistant", "c d e"}, {"user", "f"}}},
		{5, []Message{{"user", "a b"}, {"assistant", "c d e"}}},
		{4, []Message{{"user", "a b"}}},
	}
	for _, tt := range tests {
		got, err := Read(dir, tt.n, words)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Read(%d) (-want +got):\n%s", tt.n, diff)
		}
	}
	if _, err := Read(t.TempDir(), 100, words); err == nil {
		t.Error("a directory without chats: no error")
	}
}
