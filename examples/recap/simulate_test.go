package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/tokens"
)

func chatFile(name string) string { return filepath.Join("testdata", "chats", name+".json") }

// TestSimulateGolden: one setting on every sample chat, grids, a ceiling
// and the background on the long chat and the agent chat.
func TestSimulateGolden(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		args   []string
		chat   string
	}{
		{"long-grid", "the default grid on the 522-message chat", []string{"-grid"}, "long"},
		{"long-background", "background tasks within a ceiling, and a ceiling too low for them", []string{"-background", "-max-payload", "1300", "-grid", "-triggers", "500,1000,1200", "-windows", "2"}, "long"},
		{"long-ceiling", "a ceiling under the trigger leaves conversations out", []string{"-max-payload", "900", "-trigger", "1000", "-price", "0.15"}, "long"},
		{"agent-grid", "small triggers on the agent chat, whose payload never reaches the default ones", []string{"-grid", "-triggers", "100,200,300", "-windows", "1,2"}, "agent"},
	}
	for _, file := range chats(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		tests = append(tests, struct {
			name   string
			reason string
			args   []string
			chat   string
		}{name, "one setting, as the plan and compress goldens", []string{"-trigger", "300"}, name})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"simulate"}, tt.args...), chatFile(tt.chat))
			code, out, errOut := runCLI(t, noEnv, args...)
			if code != 0 || errOut != "" {
				t.Fatalf("%s: exit %d: %s", tt.reason, code, errOut)
			}
			golden(t, "simulate-"+tt.name+".txt", out)
		})
	}
}

// TestSimulatePlot: the chart is well-formed XML, the same bytes on every
// run, and as its golden; the README's picture is kept up to date the
// same way.
func TestSimulatePlot(t *testing.T) {
	tests := []struct {
		name string
		path string // the golden
		args []string
		chat string
	}{
		{"agent", filepath.Join("testdata", "golden", "simulate-agent.svg"), []string{"-background", "-max-payload", "330", "-grid", "-triggers", "100,200", "-windows", "1,2"}, "agent"},
		{"readme", filepath.Join("testdata", "simulate.svg"), []string{"-grid", "-windows", "2"}, "long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs [2][]byte
			for i := range runs {
				svg := filepath.Join(t.TempDir(), "chart.svg")
				args := append(append([]string{"simulate", "-plot", svg}, tt.args...), chatFile(tt.chat))
				if code, _, errOut := runCLI(t, noEnv, args...); code != 0 || errOut != "recap: chart written to "+svg+"\n" {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				data, err := os.ReadFile(svg)
				if err != nil {
					t.Fatal(err)
				}
				runs[i] = data
			}
			if !bytes.Equal(runs[0], runs[1]) {
				t.Fatalf("two runs drew different charts")
			}
			d := xml.NewDecoder(bytes.NewReader(runs[0]))
			polylines := 0
			for {
				tok, err := d.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("not well-formed XML: %v", err)
				}
				if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
					polylines++
				}
			}
			if polylines != 5 {
				t.Errorf("%d polylines, want 5: the uncompressed chat and 4 settings", polylines)
			}
			goldenFile(t, tt.path, string(runs[0]))
		})
	}
}

// newSimulation returns a simulation of a sample chat, as simulate would
// set it up with the extractive summarizer.
func newSimulation(t *testing.T, chat string, ceiling int, background bool) *simulation {
	t.Helper()
	data, err := os.ReadFile(chatFile(chat))
	if err != nil {
		t.Fatal(err)
	}
	msgs, _, err := decodeChat(data, "auto")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := newTokenizer(tokens.O200kBase, "")
	if err != nil {
		t.Fatal(err)
	}
	return &simulation{chatID: chat, msgs: msgs, turns: turnsOf(msgs), lookup: noEnv, tok: tok,
		maxPayload: ceiling, background: background, clearKeep: -1, stderr: io.Discard}
}

// TestSimulateBackground: with the background on, no Summarizer call runs
// inside a request while the unsummarized payload fits the ceiling, every
// payload fits, and the summary keeps up; with a ceiling too low for that,
// the requests summarize themselves and the ceiling still holds.
func TestSimulateBackground(t *testing.T) {
	ctx := context.Background()
	s := setting{trigger: 1000, window: 2}
	inRequest, err := newSimulation(t, "long", 0, false).run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		reason     string
		ceiling    int
		inRequest  bool // some calls run inside a request
		background bool // some calls run in the background
	}{
		{"NoCeiling", "without a ceiling a request never waits", 0, false, true},
		{"Headroom", "the ceiling leaves room for a turn over the trigger", 1300, false, true},
		{"Tight", "the unsummarized payload breaks a ceiling this close to the trigger: the requests summarize", 1100, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := newSimulation(t, "long", tt.ceiling, true).run(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if (r.inRequest > 0) != tt.inRequest || (r.background > 0) != tt.background {
				t.Errorf("%s: %d calls in requests, %d in the background", tt.reason, r.inRequest, r.background)
			}
			if tt.ceiling > 0 && (r.largest > tt.ceiling || r.dropped > 0) {
				t.Errorf("%s: largest payload %d over the ceiling %d, or %d turns dropped messages", tt.reason, r.largest, tt.ceiling, r.dropped)
			}
			// The summary keeps up: as many summarizations as in the
			// request, each landing one turn later, so payloads are no
			// more than one turn larger.
			if r.calls() != inRequest.calls() || r.largest > inRequest.largest+100 {
				t.Errorf("%s: %d calls, largest %d; in the request: %d calls, largest %d", tt.reason, r.calls(), r.largest, inRequest.calls(), inRequest.largest)
			}
			for k, m := range r.marks {
				if (m&markRequest != 0) != (tt.inRequest && m != 0) {
					t.Errorf("turn %d marked %b", k+1, m)
				}
			}
		})
	}
}

// TestSimulateBaseline: the uncompressed chat's payload at each turn is
// every message up to the turn's user message, counted whole.
func TestSimulateBaseline(t *testing.T) {
	sim := newSimulation(t, "agent", 0, false)
	base, err := sim.uncompressed(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for k, i := range sim.turns {
		want := tokensOf(sim.msgs[:i+1], sim.tok.counter)
		if base.sent[k] != want {
			t.Errorf("turn %d: %d tokens, want %d", k+1, base.sent[k], want)
		}
		total += want
	}
	if base.total != total || base.largest != base.sent[len(base.sent)-1] || base.calls() != 0 {
		t.Errorf("total %d (want %d), largest %d, %d calls", base.total, total, base.largest, base.calls())
	}
}

// TestSimulateLLM: with an LLM from the environment, as compress chooses
// it, every call the table counts is a request to it.
func TestSimulateLLM(t *testing.T) {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"llama3","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Checkout 502s: payments-api moved to 9443."}}]}`)
	}))
	defer srv.Close()
	lookup := env(map[string]string{"RECAP_OPENAI_BASE_URL": srv.URL + "/v1", "RECAP_MODEL": "llama3"})
	code, out, errOut := runCLI(t, lookup, "simulate", "-trigger", "100", "-window", "1", chatFile("agent"))
	if code != 0 || !strings.Contains(out, "summaries by openai-compatible model llama3") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	row := strings.Fields(lastLineWith(out, "trigger 100, window 1"))
	if calls, _ := strconv.Atoi(row[4]); requests == 0 || calls != requests {
		t.Errorf("table counts %q calls, the server had %d requests\n%s", row[4], requests, out)
	}
}

// tokensOf returns the tokens of the texts of msgs, counted by c.
func tokensOf(msgs []recap.Message, c recap.TokenCounter) int {
	n := 0
	for _, m := range msgs {
		n += c.CountTokens(m.Text())
	}
	return n
}

// TestSimulateMaxInput: simulate bounds each summarizer call by -max-input
// as compress does, folding a summarization in more calls, and its table
// counts every call.
func TestSimulateMaxInput(t *testing.T) {
	llm := newFakeLLM(t)
	calls := map[int]int{}   // by -max-input
	largest := map[int]int{} // tokens of the largest call, by -max-input
	for _, bound := range []int{0, 1000} {
		code, out, errOut := runCLI(t, llm.env(), "simulate", chatFile("long"), "-trigger", "3000", "-max-input", strconv.Itoa(bound))
		if code != 0 {
			t.Fatalf("-max-input %d: exit %d\n%s", bound, code, errOut)
		}
		for _, c := range llm.reset(t) {
			calls[bound]++
			largest[bound] = max(largest[bound], c.tokens)
		}
		row := strings.Fields(lastLineWith(out, "trigger 3000, window 2"))
		if n, _ := strconv.Atoi(row[4]); n != calls[bound] {
			t.Errorf("-max-input %d: the table counts %q calls, the server had %d\n%s", bound, row[4], calls[bound], out)
		}
	}
	if largest[0] <= 1000 || largest[1000] > 1000 || calls[1000] <= calls[0] {
		t.Errorf("without a bound: %d calls, the largest given %d tokens; -max-input 1000: %d calls, the largest given %d",
			calls[0], largest[0], calls[1000], largest[1000])
	}
}

func lastLineWith(s, sub string) string {
	line := ""
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			line = l
		}
	}
	return line
}

func TestSimulateFlags(t *testing.T) {
	noUser := filepath.Join(t.TempDir(), "nouser.json")
	if err := os.WriteFile(noUser, []byte(`[{"role":"system","content":"Be brief."}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		reason string
		env    map[string]string
		args   []string
		code   int
		want   string // in stdout or stderr
	}{
		{"TriggerAndTriggers", "one setting or a list, not both", nil, []string{"-grid", "-trigger", "500", "-triggers", "1000"}, 2, "-trigger and -triggers are exclusive"},
		{"WindowAndWindows", "one setting or a list, not both", nil, []string{"-grid", "-window", "1", "-windows", "2"}, 2, "-window and -windows are exclusive"},
		{"ListWithoutGrid", "a list sets the grid, which -grid asks for", nil, []string{"-triggers", "500,1000"}, 2, "add -grid"},
		{"NotAnInteger", "a list of integers", nil, []string{"-grid", "-triggers", "500,lots"}, 2, `"lots" is not an integer`},
		{"Repeated", "a repeated value would be a repeated row", nil, []string{"-grid", "-windows", "1,2,1"}, 2, "1 is repeated"},
		{"NegativePrice", "a price is not negative", nil, []string{"-price", "-1"}, 2, "-price -1 is not a price"},
		{"PNG", "the chart is SVG", nil, []string{"-plot", "chart.png"}, 2, "name a .svg file"},
		{"Args", "one chat", nil, []string{"a.json", "b.json"}, 2, `recap simulate: more than one chat file: "a.json" and "b.json"`},
		{"BadTrigger", "the library's option errors name the option", nil, []string{"-trigger", "0"}, 1, "WithTriggerTokens: 0 is not positive"},
		{"BadWindowInGrid", "a grid's values are checked as options too", nil, []string{"-grid", "-windows", "2,0"}, 1, "WithWindowConversations: 0 is less than 1"},
		{"BadCeiling", "a negative ceiling", nil, []string{"-max-payload", "-1"}, 1, "WithMaxPayloadTokens"},
		{"CeilingTooLow", "a ceiling under the pinned prompt and a turn names the turn", nil, []string{"-trigger", "300", "-max-payload", "20"}, 1, "trigger 300, window 2: turn 1 (message 1): pinned prompt and current turn exceed the payload budget"},
		{"BadEncoding", "an unknown encoding", nil, []string{"-encoding", "llama"}, 1, "unknown encoding"},
		{"BadEnv", "a bad variable is an error naming it", map[string]string{"VITE_SUMMARY_TRIGGER_TOKENS": "many"}, nil, 1, `VITE_SUMMARY_TRIGGER_TOKENS="many"`},
		{"EnvSetting", "without flags the environment sets the setting", map[string]string{"RECAP_SUMMARY_TRIGGER_TOKENS": "150", "RECAP_SUMMARY_WINDOW_CONVERSATIONS": "1"}, nil, 0, "trigger 150, window 1"},
		{"FlagWinsOverEnv", "flags win over the environment", map[string]string{"RECAP_SUMMARY_TRIGGER_TOKENS": "150"}, []string{"-trigger", "250"}, 0, "trigger 250, window 2"},
		{"GridIgnoresEnv", "the grid's defaults are its own", map[string]string{"RECAP_SUMMARY_TRIGGER_TOKENS": "150"}, []string{"-grid", "-windows", "1"}, 0, "trigger 4000, window 1"},
		{"NoUserMessage", "nothing to replay", nil, []string{noUser}, 1, "no user message: nothing to replay"},
		{"Missing", "a missing chat", nil, []string{"does-not-exist.json"}, 1, "does-not-exist.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"simulate"}, tt.args...)
			if len(tt.args) == 0 || !strings.HasSuffix(tt.args[len(tt.args)-1], ".json") {
				args = append(args, chatFile("agent"))
			}
			code, out, errOut := runCLI(t, env(tt.env), args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("%s: exit %d, want %d with %q in\n%s%s", tt.reason, code, tt.code, tt.want, out, errOut)
			}
		})
	}
}

// TestSimulateAgentLoop replays the sample agent loop before every model
// call: compacting the turn keeps every payload near the limit, clearing
// old tool outputs as well needs no summarization at all, and both send far
// fewer tokens than the uncompressed loop.
func TestSimulateAgentLoop(t *testing.T) {
	ctx := context.Background()
	sim := newSimulation(t, "agentloop", 0, false)
	sim.turns = callsOf(sim.msgs)
	if len(sim.turns) != 81 {
		t.Fatalf("%d model calls, want 81 (the request, then one per step)", len(sim.turns))
	}
	base, err := sim.uncompressed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := setting{trigger: 1000, window: 2}
	sim.maxTurn = 20000
	folded, err := sim.run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	// A payload holds the summary, the request and the steps kept (at most
	// half the limit) plus the step that came since: never much over it.
	if folded.calls() == 0 || folded.largest > sim.maxTurn+2000 || folded.total >= base.total/2 {
		t.Errorf("compacted: %d calls, largest %d, total %d (uncompressed: largest %d, total %d)", folded.calls(), folded.largest, folded.total, base.largest, base.total)
	}
	sim.clearKeep = 4
	cleared, err := sim.run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if cleared.total >= folded.total || cleared.largest > sim.maxTurn {
		t.Errorf("compacted and cleared: largest %d, total %d; compacted only: total %d", cleared.largest, cleared.total, folded.total)
	}
	t.Logf("uncompressed: largest %d, total %d; compacted: %d calls, largest %d, total %d; also cleared: %d calls, largest %d, total %d",
		base.largest, base.total, folded.calls(), folded.largest, folded.total, cleared.calls(), cleared.largest, cleared.total)
}

func TestCallsOf(t *testing.T) {
	msgs := []recap.Message{
		{ID: "s", Role: recap.RoleSystem}, {ID: "u1", Role: recap.RoleUser}, {ID: "a1", Role: recap.RoleAssistant},
		{ID: "t1", Role: recap.RoleTool}, {ID: "t2", Role: recap.RoleTool}, {ID: "a2", Role: recap.RoleAssistant},
		{ID: "u2", Role: recap.RoleUser}, {ID: "u3", Role: recap.RoleUser},
	}
	if diff := cmp.Diff([]int{1, 4, 7}, callsOf(msgs)); diff != "" {
		t.Errorf("callsOf (-want +got):\n%s", diff)
	}
}
