package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/tokens"
)

// TestModel: -model counts as tokens.EstimatorForModel does for the model,
// each message's text and the family's tokens per message, in plan's rows,
// compress's report and simulate's table; -encoding counts the text alone,
// as before.
func TestModel(t *testing.T) {
	file := chatFile("plain")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _, err := decodeChat(data, "auto")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		reason   string
		args     []string
		counter  recap.TokenCounter
		overhead int
		label    string // how the report names the counter
	}{
		{"Default", "o200k_base, no tokens per message", nil, estimator(t, "gpt-4o"), 0, "o200k_base"},
		{"EncodingModel", "an OpenAI model by -encoding: its encoding, no tokens per message, as before", []string{"-encoding", "gpt-4"}, encoding(t, "cl100k_base"), 0, "cl100k_base"},
		{"OpenAI", "exact, with OpenAI's 4 tokens per message", []string{"-model", "gpt-4o"}, estimator(t, "gpt-4o"), tokens.OpenAIMessageOverhead, "gpt-4o, exact, +4 tokens per message"},
		{"Claude", "-encoding refused it; -model estimates it, 3 tokens per message", []string{"-model", "claude-sonnet-4-5"}, estimator(t, "claude-sonnet-4-5"), 3, "claude-sonnet-4-5, estimated, +3 tokens per message"},
		{"ClaudeProvider", "a provider's prefix", []string{"-model", "anthropic/claude-opus-4.1"}, estimator(t, "claude-opus-4.1"), 3, "anthropic/claude-opus-4.1, estimated, +3 tokens per message"},
		{"Gemini", "estimated, no tokens per message", []string{"-model", "gemini-2.5-flash"}, estimator(t, "gemini-2.5-flash"), 0, "gemini-2.5-flash, estimated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := 0
			sizes := make([]int, len(msgs))
			for i, m := range msgs {
				sizes[i] = tt.counter.CountTokens(m.Text()) + tt.overhead
				want += sizes[i]
			}
			// compress: the tokens before, and the counter's name.
			args := append(append([]string{"compress", "-trigger", "300"}, tt.args...), file)
			code, _, errOut := runCLI(t, noEnv, args...)
			before := fmt.Sprintf("20 messages, %d tokens before, ", want)
			if code != 0 || !strings.Contains(errOut, before) || !strings.Contains(errOut, "tokens after ("+tt.label+")\n") {
				t.Errorf("%s: compress: exit %d, want %q and (%s) in\n%s", tt.reason, code, before, tt.label, errOut)
			}
			// plan: each row's tokens.
			args = append(append([]string{"plan", "-trigger", "300"}, tt.args...), file)
			code, out, errOut := runCLI(t, noEnv, args...)
			if code != 0 {
				t.Fatalf("%s: plan: exit %d: %s", tt.reason, code, errOut)
			}
			rows := planTokens(t, out)
			if len(rows) != len(sizes) {
				t.Fatalf("%s: plan: %d rows, want %d\n%s", tt.reason, len(rows), len(sizes), out)
			}
			for i := range rows {
				if rows[i] != sizes[i] {
					t.Errorf("%s: plan: message %d: %d tokens, want %d", tt.reason, i+1, rows[i], sizes[i])
				}
			}
			// simulate: the uncompressed chat's last turn sends it whole.
			args = append(append([]string{"simulate", "-trigger", "300"}, tt.args...), file)
			code, out, errOut = runCLI(t, noEnv, args...)
			if code != 0 || !strings.Contains(out, "format openai, "+tt.label+"; ") {
				t.Fatalf("%s: simulate: exit %d, want %q in\n%s%s", tt.reason, code, tt.label, out, errOut)
			}
			if row := strings.Fields(lastLineWith(out, "uncompressed")); len(row) < 5 || row[4] != group(want) {
				t.Errorf("%s: simulate: uncompressed row %q, want the largest payload %s", tt.reason, row, group(want))
			}
		})
	}
}

// TestModelErrors: an unknown model is an error, as an unknown encoding is.
func TestModelErrors(t *testing.T) {
	for _, cmd := range []string{"compress", "plan", "simulate"} {
		code, out, errOut := runCLI(t, noEnv, cmd, "-model", "llama-3", chatFile("plain"))
		if code != 1 || out != "" || !strings.HasPrefix(errOut, `recap: tokens: unknown encoding for model "llama-3" (known: claude-, gemini-, `) {
			t.Errorf("%s -model llama-3: exit %d, stdout %q, stderr %q", cmd, code, out, errOut)
		}
	}
}

func estimator(t *testing.T, model string) *tokens.Estimator {
	t.Helper()
	e, err := tokens.EstimatorForModel(model)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func encoding(t *testing.T, name string) *tokens.Tiktoken {
	t.Helper()
	c, err := tokens.NewTiktoken(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// planRow matches a message's row of plan's table: its number, ID, role
// and tokens.
var planRow = regexp.MustCompile(`(?m)^\d+\s+\S+\s+\S+\s+(\d+)\s`)

// planTokens returns the tokens of each message's row in plan's output.
func planTokens(t *testing.T, out string) []int {
	t.Helper()
	var n []int
	for _, m := range planRow.FindAllStringSubmatch(out, -1) {
		k, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatal(err)
		}
		n = append(n, k)
	}
	return n
}
