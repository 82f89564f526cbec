package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStdin: "-" reads the chat from standard input, for every command,
// with the output of the same chat read from a file; its chat ID is
// "stdin" unless -chat names one.
func TestStdin(t *testing.T) {
	file := chatFile("plain")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		reason string
		args   []string // the command and its flags, before the file
		fix    func(fromFile string) string
	}{
		{"Plan", "the same table", []string{"plan", "-trigger", "300"}, nil},
		{"Compress", "the same payload, the report naming the chat stdin",
			[]string{"compress", "-trigger", "300"}, func(s string) string { return strings.Replace(s, `chat "plain"`, `chat "stdin"`, 1) }},
		{"CompressChat", "-chat names the chat", []string{"compress", "-trigger", "300", "-chat", "plain"}, nil},
		{"Simulate", "the same table, for the chat stdin",
			[]string{"simulate", "-grid", "-windows", "1"}, func(s string) string { return strings.Replace(s, `chat "plain"`, `chat "stdin"`, 1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, fromFile, errFile := runCLI(t, noEnv, append(tt.args, file)...)
			if code != 0 {
				t.Fatalf("from the file: exit %d: %s", code, errFile)
			}
			code, out, errOut := runStdin(t, noEnv, string(data), append(tt.args, "-")...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", tt.reason, code, errOut)
			}
			want := fromFile + errFile
			if tt.fix != nil {
				want = tt.fix(want)
			}
			if diff := cmp.Diff(want, out+errOut); diff != "" {
				t.Errorf("%s: mismatch (-from the file +from stdin):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestStdinStore: a chat read from standard input is stored as "stdin",
// or as -chat says.
func TestStdinStore(t *testing.T) {
	data, err := os.ReadFile(chatFile("plain"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "stdin"},
		{[]string{"-chat", "trip"}, "trip"},
	} {
		db := filepath.Join(t.TempDir(), "chats.json")
		args := append(append([]string{"compress", "-trigger", "300", "-store", db}, tt.args...), "-")
		if code, _, errOut := runStdin(t, noEnv, string(data), args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		raw, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		var stored struct{ Chats map[string]json.RawMessage }
		if err := json.Unmarshal(raw, &stored); err != nil {
			t.Fatal(err)
		}
		if _, ok := stored.Chats[tt.want]; !ok || len(stored.Chats) != 1 {
			t.Errorf("%q: stored chats %s, want one named %q", args, raw, tt.want)
		}
	}
}

// TestStdinBad: standard input that is empty, or no chat, says so, naming
// it "standard input".
func TestStdinBad(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		stdin  string
		want   string // the whole of stderr
	}{
		{"Empty", "nothing on standard input", "", "recap: standard input is empty: want a JSON array of messages\n"},
		{"WhiteSpace", "a newline alone", "\n", "recap: standard input is empty: want a JSON array of messages\n"},
		{"EmptyArray", "no messages", "[]\n", "recap: standard input has no messages\n"},
		{"Syntax", "errors name standard input", "[\n{]", "recap: standard input: invalid JSON on line 2: invalid character ']' looking for beginning of object key string\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cmd := range []string{"compress", "plan", "simulate"} {
				code, out, errOut := runStdin(t, noEnv, tt.stdin, cmd, "-")
				if code != 1 || out != "" {
					t.Errorf("%s: %s: exit %d, stdout %q", cmd, tt.reason, code, out)
				}
				if diff := cmp.Diff(tt.want, errOut); diff != "" {
					t.Errorf("%s: %s: stderr mismatch (-want +got):\n%s", cmd, tt.reason, diff)
				}
			}
		})
	}
}

// TestNoSuchFile: a chat file that cannot be read is a failure (exit 1),
// not a usage error: one line naming the file.
func TestNoSuchFile(t *testing.T) {
	for _, cmd := range []string{"compress", "plan", "simulate"} {
		code, out, errOut := runCLI(t, noEnv, cmd, "does-not-exist.json", "-trigger", "300")
		if code != 1 || out != "" || !strings.HasPrefix(errOut, "recap: open does-not-exist.json: ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and one line naming the file", cmd, code, out, errOut)
		}
	}
}
