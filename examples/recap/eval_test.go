package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evalFile is a file of testdata/eval: parcel.chat has four facts (one
// corrected, one stated by the assistant), plain.json none.
func evalFile(name string) string { return filepath.Join("testdata", "eval", name) }

// TestEvalGolden runs eval on small chats, with fact lines and without,
// and compares its output with the goldens.
func TestEvalGolden(t *testing.T) {
	tests := []struct {
		name, reason string
		args         []string
		want         []string // in stdout too, in this order
	}{
		{"facts", "a chat with fact lines: the facts kept, recalled, and the calls", []string{"-trigger", "200", evalFile("parcel.chat")},
			[]string{"Facts kept by the final payload of 1 chats", "| parcel | en | 11 |", "Facts the final payload does not hold, recalled", "Summarizer calls and tokens"}},
		{"facts-check", "-check labelled, and the chat's details with -v", []string{"-trigger", "200", "-check", "-v", evalFile("parcel.chat")},
			[]string{"with the summary check:", "## parcel (a parcel that went astray)", "the return ticket (assistant): RMA-7741"}},
		{"proxy", "a chat without fact lines reports its key items, labelled as a proxy", []string{"-trigger", "300", "-v", evalFile("plain.json")},
			[]string{"Key items kept by the final payload of 1 chats without fact lines", "a proxy for facts", "| plain | 20 |", "key items kept; lost:"}},
		{"dir", "a directory is one set: both kinds of chat, one calls table", []string{"-trigger", "200", filepath.Join("testdata", "eval")},
			[]string{"## testdata/eval", "Facts kept", "Key items kept", "| **all 2 chats** | 16 |"}},
		{"grid", "a grid reports each setting apart", []string{"-grid", "-triggers", "200,400", "-windows", "1", evalFile("parcel.chat")},
			[]string{"## " + evalFile("parcel.chat") + ": trigger 200, window 1", "## " + evalFile("parcel.chat") + ": trigger 400, window 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, noEnv, append([]string{"eval"}, tt.args...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("%s: exit %d, stderr %q", tt.reason, code, errOut)
			}
			rest := out
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%s: %q missing (or out of order) in\n%s", tt.reason, w, out)
				}
				rest = rest[i+len(w):]
			}
			golden(t, "eval-"+tt.name+".txt", out)
		})
	}
}

// TestEvalBenchmark runs eval without a chat: the built-in benchmark,
// the held-out sets then in-sample, with the tables the retention command
// printed. It replays every built-in chat, a minute under the race
// detector, where it skips itself: scripts/modules check runs it without.
func TestEvalBenchmark(t *testing.T) {
	if raceEnabled {
		t.Skip("replays the whole benchmark, with no goroutine of its own: run without -race")
	}
	code, out, errOut := runCLI(t, noEnv, "eval", "-v")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"## held-out, second set", "## held-out, third set", "## held-out, fourth set", "| **all 24 chats**", "## held-out (never tuned on)", "| **all 26 chats**", "## in-sample", "| **all 22 chats**",
		"replayed with the extractive summarizer (offline, no LLM):", "## support-parcel",
		"| chat | facts dropped | without question | recalled (top 3) | answerable |", "  - recalled by \"",
		"| chat | turns | summarizer calls | summarizer input | tokens sent | uncompressed | saved |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Key items kept") {
		t.Errorf("the benchmark's chats have facts: no key-item proxy:\n%s", out)
	}
}

// TestEvalPlot: -plot writes the same well-formed SVG on every run, one
// line for the facts stated so far and one per setting.
func TestEvalPlot(t *testing.T) {
	var runs [2][]byte
	for i := range runs {
		svg := filepath.Join(t.TempDir(), "facts.svg")
		code, _, errOut := runCLI(t, noEnv, "eval", "-plot", svg, "-grid", "-triggers", "200,400", "-windows", "1,2", evalFile("parcel.chat"))
		if code != 0 || errOut != "recap: chart written to "+svg+"\n" {
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
	if n := polylines(t, runs[0]); n != 5 {
		t.Errorf("%d polylines, want 5: the facts stated so far and 4 settings", n)
	}
	for _, want := range []string{"facts kept at each turn, summed over 1 chats", ">facts kept</text>", ">stated so far</text>", ">trigger 400, window 2</text>"} {
		if !bytes.Contains(runs[0], []byte(want)) {
			t.Errorf("chart lacks %q", want)
		}
	}
	goldenFile(t, filepath.Join("testdata", "golden", "eval-parcel.svg"), string(runs[0]))
}

// polylines returns the polylines of the SVG data, failing t if it is not
// well-formed XML.
func polylines(t *testing.T, data []byte) int {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			n++
		}
	}
}

// TestEvalErrors: a wrong command line is a usage error (exit 2), chats
// that cannot be read a failure (exit 1), each with one line that says
// why.
func TestEvalErrors(t *testing.T) {
	empty := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad.chat")
	if err := os.WriteFile(bad, []byte("title: x\n== robot\nhello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, reason string
		args         []string
		code         int
		stderr       string // its first line
	}{
		{"PlotPNG", "the chart is SVG", []string{"-plot", "x.png", evalFile("parcel.chat")}, exitUsage, "recap eval: -plot x.png: the chart is SVG: name a .svg file (rsvg-convert makes a PNG of it)"},
		{"Standin", "an unknown stand-in", []string{"-standin", "lazy", evalFile("parcel.chat")}, exitUsage, `recap eval: -standin "lazy": want one of concise, drop, vague`},
		{"Exclusive", "the grid flags as simulate's", []string{"-trigger", "200", "-triggers", "300", "-grid"}, exitUsage, "recap eval: -trigger and -triggers are exclusive"},
		{"NoGrid", "-triggers needs -grid", []string{"-triggers", "300"}, exitUsage, "recap eval: -triggers and -windows set the grid: add -grid"},
		{"EmptyDir", "a directory without chats", []string{empty}, exitFail, "recap: no *.chat or *.json file in " + empty},
		{"BadChat", "a .chat file that does not parse names the file and line", []string{bad}, exitFail, "recap: " + bad + `:2: unknown role "robot"`},
		{"Missing", "a chat file that is not there", []string{evalFile("nope.json")}, exitFail, "recap: open " + evalFile("nope.json") + ": no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, noEnv, append([]string{"eval"}, tt.args...)...)
			if first, _, _ := strings.Cut(errOut, "\n"); code != tt.code || first != tt.stderr || out != "" {
				t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit %d, stderr %q", tt.reason, code, errOut, out, tt.code, tt.stderr)
			}
		})
	}
}
