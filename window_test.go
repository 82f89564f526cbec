package recap

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "update golden test files")

// planCase is one file of testdata/plan: a chat, an existing summary and
// the options to plan it with.
type planCase struct {
	Reason   string    `json:"reason"`
	Trigger  int       `json:"trigger"`
	Window   int       `json:"window"`
	Overhead int       `json:"overhead"`
	Role     Role      `json:"role"`
	MaxTurn  int       `json:"maxTurn"`
	Summary  Summary   `json:"summary"`
	Messages []Message `json:"messages"`
}

func (pc planCase) options() []Option {
	var opts []Option
	if pc.Trigger != 0 {
		opts = append(opts, WithTriggerTokens(pc.Trigger))
	}
	if pc.Window != 0 {
		opts = append(opts, WithWindowConversations(pc.Window))
	}
	if pc.Overhead != 0 {
		opts = append(opts, WithMessageOverhead(pc.Overhead))
	}
	if pc.Role != "" {
		opts = append(opts, WithSummaryRole(pc.Role))
	}
	if pc.MaxTurn != 0 {
		opts = append(opts, WithMaxTurnTokens(pc.MaxTurn))
	}
	return opts
}

// TestPlanGolden plans each chat of testdata/plan/*.json and compares a
// rendering of the Plan with the .golden file beside it. Run
// go test -run TestPlanGolden -update to rewrite the golden files.
func TestPlanGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "plan", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 13 {
		t.Fatalf("found %d plan cases, want the seed's example and at least 12 edge cases", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var pc planCase
			if err := json.Unmarshal(data, &pc); err != nil {
				t.Fatal(err)
			}
			c, err := New(nil, nil, pc.options()...)
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Plan(pc.Messages, pc.Summary)
			got := renderPlan(pc, p, err)
			if err == nil {
				var history []Message // with the IDs Plan derives for messages without one
				for _, m := range ChainIDs(pc.Messages) {
					if !strings.HasPrefix(m.ID, SummaryIDPrefix) {
						history = append(history, m)
					}
				}
				checkPartition(t, history, p)
			}

			golden := strings.TrimSuffix(file, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s\nPlan mismatch (-want +got):\n%s", pc.Reason, diff)
			}
		})
	}
}

// renderPlan writes p (or err) as the golden text.
func renderPlan(pc planCase, p Plan, err error) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", pc.Reason)
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
		for _, target := range []error{ErrNoMessages, ErrInvalidMessage, ErrNoUserMessage} {
			if errors.Is(err, target) {
				fmt.Fprintf(&b, "is: %v\n", target)
			}
		}
		return b.String()
	}
	ids := func(msgs []Message) string {
		s := make([]string, len(msgs))
		for i, m := range msgs {
			s[i] = m.ID
			if m.ID == "" {
				s[i] = "(no-id)"
			}
		}
		return strings.Join(s, " ")
	}
	fmt.Fprintf(&b, "tokens: %d\ntrigger: %v\nstale: %v\n", p.Tokens, p.Trigger, p.Stale)
	if len(p.Echoed) > 0 {
		fmt.Fprintf(&b, "echoed: %s\n", ids(p.Echoed))
	}
	fmt.Fprintf(&b, "pinned: %s\n", ids(p.Pinned))
	fmt.Fprintf(&b, "covered: %s\n", ids(p.Covered))
	if p.SummaryMessage != nil {
		fmt.Fprintf(&b, "summary: %s (%s) %q\n", p.SummaryMessage.ID, p.SummaryMessage.Role, p.SummaryMessage.Content)
	} else {
		fmt.Fprintf(&b, "summary: none\n")
	}
	fmt.Fprintf(&b, "summarize: %s\n", ids(p.Summarize))
	fmt.Fprintf(&b, "boundary: %s\n", p.Boundary())
	fmt.Fprintf(&b, "window: %s\n", ids(p.Window))
	fmt.Fprintf(&b, "turn: %s\n", ids(p.Turn))
	if p.Compacted {
		fmt.Fprintf(&b, "compacted: true\n")
	}
	fmt.Fprintf(&b, "payload: %s\n", ids(p.Payload()))
	return b.String()
}

// checkPartition asserts the invariants of a Plan: every input message is,
// in order, in exactly one of Pinned, Covered, Summarize, Window and Turn
// (a Compacted turn's request in Turn and before it); the window starts at
// a user message (or the per-request context before one) and the turn at
// the last one.
func checkPartition(t *testing.T, msgs []Message, p Plan) {
	t.Helper()
	var all []Message
	turn := p.Turn
	if p.Compacted && len(turn) > 0 {
		turn = turn[1:]
	}
	for _, part := range [][]Message{p.Pinned, p.Covered, p.Summarize, p.Window, turn} {
		all = append(all, part...)
	}
	if !partitionEqual(msgs, all) {
		t.Fatalf("Pinned+Covered+Summarize+Window+Turn is not the input (-want +got):\n%s", cmp.Diff(msgs, all))
	}
	for _, m := range p.Pinned {
		if !m.Role.pinned() {
			t.Errorf("pinned message %q has role %q", m.ID, m.Role)
		}
	}
	// The window starts at a user message, or at the system messages right
	// before one (per-request context, never summarized apart from it:
	// with no conversation in the window, those of the turn's request).
	ctx := 0
	for ctx < len(p.Window) && p.Window[ctx].Role == RoleSystem {
		ctx++
	}
	if ctx < len(p.Window) && p.Window[ctx].Role != RoleUser {
		t.Errorf("window starts with a %s message %q", p.Window[ctx].Role, p.Window[ctx].ID)
	}
	if len(p.Turn) == 0 || p.Turn[0].Role != RoleUser {
		t.Fatalf("turn %v does not start with a user message", p.Turn)
	}
	for _, m := range p.Turn[1:] {
		if m.Role == RoleUser {
			t.Errorf("turn holds a second user message %q", m.ID)
		}
	}
	if p.Trigger && len(p.Summarize) == 0 {
		t.Errorf("trigger fired with nothing to summarize")
	}
	if (p.SummaryMessage == nil) != p.Summary.IsZero() {
		t.Errorf("SummaryMessage %v does not match Summary %+v", p.SummaryMessage, p.Summary)
	}
}

// partitionEqual reports whether a and b hold the same messages, by ID and
// role, in order: a cheap check for the fuzzer, with cmp.Diff for the report.
func partitionEqual(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Role != b[i].Role || a[i].Content != b[i].Content {
			return false
		}
	}
	return true
}
