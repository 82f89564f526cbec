package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedChat writes a chat whose first user message plants a detail
// (locker code 4471-QX), followed by enough turns that a summary at
// trigger 200 covers it, and returns its path.
func plantedChat(t *testing.T) string {
	t.Helper()
	msgs := []map[string]string{
		{"role": "system", "content": "You are a helpful assistant."},
		{"role": "user", "content": "I left my bike at the station; the locker code is 4471-QX, please remember it."},
		{"role": "assistant", "content": "Noted. Anything else about the bike?"},
	}
	topics := []string{"sourdough starters", "tide tables", "chess openings", "bonsai pruning", "tram timetables", "tea grading"}
	for _, topic := range topics {
		msgs = append(msgs,
			map[string]string{"role": "user", "content": fmt.Sprintf("Tell me about %s in a few sentences, with the main things a beginner should know.", topic)},
			map[string]string{"role": "assistant", "content": fmt.Sprintf("Here is an overview of %s. Start small, keep notes of what you try, and compare your results week by week. Most beginners go too fast at first; patience is the main skill, and a good guide book helps more than any gadget.", topic)})
	}
	msgs = append(msgs, map[string]string{"role": "user", "content": "Thanks. Which of these should I start with?"})
	data, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bike.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRecall: recall finds the planted detail that the summary covers,
// from a summary made afresh or from the store that compress wrote, and
// prints each excerpt's position, ID, role, score and text.
func TestRecall(t *testing.T) {
	chat := plantedChat(t)
	benchChat := filepath.Join("internal", "retention", "testdata", "insample", "hipoteca.chat")
	store := filepath.Join(t.TempDir(), "store.json")
	if code, _, errOut := runCLI(t, noEnv, "compress", "-trigger", "200", "-store", store, chat); code != 0 {
		t.Fatalf("compress: exit %d: %s", code, errOut)
	}
	tests := []struct {
		name, reason string
		args         []string
		stdout       []string // in this order
		stderr       string
		excerpts     int
	}{
		{"Afresh", "without -store the chat is compressed as compress would", []string{"-trigger", "200", chat, "bike locker code"},
			[]string{"#2 ", " user (score ", "  I left my bike at the station; the locker code is 4471-QX, please remember it.\n"},
			"the summary (made afresh, in memory, as compress without -store makes it) covers", 2},
		{"Store", "the summary compress stored; flags after the query", []string{chat, "bike locker code", "-store", store, "-k", "1"},
			[]string{"#2 ", "4471-QX"}, "the summary (in " + store + ") covers", 1},
		{"NoSummary", "at the default trigger the chat is not summarized: nothing to search", []string{chat, "locker code"},
			nil, `recap: chat "bike" has no summary: its `, 0},
		{"OtherChat", "a chat the store does not hold", []string{"-store", store, "-chat", "other", chat, "locker code"},
			nil, `recap: chat "other" has no summary in ` + store + ": no message to search", 0},
		{"BenchmarkChat", "a .chat file of the retention benchmark, with one of its facts' questions",
			[]string{benchChat, "¿Cuál era el tope de cuota al mes que te dije que podemos pagar?"},
			[]string{"#2 m02 assistant (score ", "950"}, `recap: chat "hipoteca": the summary (made afresh`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, noEnv, append([]string{"recall"}, tt.args...)...)
			if code != 0 || !strings.Contains(errOut, tt.stderr) {
				t.Fatalf("%s: exit %d, stderr %q, want it to hold %q", tt.reason, code, errOut, tt.stderr)
			}
			rest := out
			for _, w := range tt.stdout {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%s: %q missing (or out of order) in\n%s", tt.reason, w, out)
				}
				rest = rest[i+len(w):]
			}
			if n := strings.Count(out, " (score "); n != tt.excerpts {
				t.Errorf("%s: %d excerpts, want %d:\n%s", tt.reason, n, tt.excerpts, out)
			}
		})
	}
}

// TestRecallErrors: recall's command line, and a query without words.
func TestRecallErrors(t *testing.T) {
	chat := chatFile("plain")
	tests := []struct {
		name, reason string
		args         []string
		code         int
		stderr       string // its first line
	}{
		{"NoArgs", "a chat and a query", nil, exitUsage, "recap recall: missing chat file (a JSON file, or - for standard input) and query"},
		{"NoQuery", "the query is missing", []string{chat}, exitUsage, `recap recall: missing query after the chat file "` + chat + `"`},
		{"Unquoted", "a query of several words is one argument", []string{chat, "locker", "code"}, exitUsage, "recap recall: one chat file and one query, got 3 arguments: quote the query"},
		{"K", "-k counts excerpts", []string{"-k", "0", chat, "yen"}, exitUsage, "recap recall: -k 0: give at least 1"},
		{"NoWords", "a query of punctuation", []string{"-trigger", "300", chat, "?!"}, exitFail, "recap: " + chat + ": recall query has no words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, noEnv, append([]string{"recall"}, tt.args...)...)
			if first, _, _ := strings.Cut(errOut, "\n"); code != tt.code || first != tt.stderr || out != "" {
				t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit %d, stderr %q", tt.reason, code, errOut, out, tt.code, tt.stderr)
			}
		})
	}
}
