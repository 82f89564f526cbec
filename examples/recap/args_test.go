package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelp: help, -h and --help, before a command, after it or after its
// file, print the usage and the flags on stdout and exit 0.
func TestHelp(t *testing.T) {
	file := chatFile("plain")
	tests := []struct {
		name   string
		reason string
		args   []string
		want   []string // in stdout, in this order
	}{
		{"Help", "recap's usage, with the flags of compress and plan", []string{"help"}, []string{"usage: recap compress", "recap eval [flags] [CHAT|DIR]...", "recap recall [flags] CHAT.json Q", "recap help [COMMAND]", "- reads it from standard input", "Flags of compress and plan:", "-max-input", "-model"}},
		{"DashH", "-h is help", []string{"-h"}, []string{"usage: recap compress", "Flags of compress and plan:"}},
		{"DashDashHelp", "--help is help", []string{"--help"}, []string{"usage: recap compress", "Flags of compress and plan:"}},
		{"HelpCompress", "a command's usage and flags", []string{"help", "compress"}, []string{"usage: recap compress [flags] CHAT.json", "-chat", "-max-input int", "-model name", "-o string"}},
		{"HelpPlan", "a command's usage and flags", []string{"help", "plan"}, []string{"usage: recap plan [flags] CHAT.json", "dry run", "-trigger"}},
		{"HelpSimulate", "simulate's usage and flags", []string{"help", "simulate"}, []string{"usage: recap simulate", "-model NAME", "- reads it from standard input", "-grid", "-max-input", "-windows list"}},
		{"HelpEval", "eval's usage and flags", []string{"help", "eval"}, []string{"usage: recap eval", "[CHAT.json | CHAT.chat | DIR]...", "key items", "-check", "-plot", "-standin", "-v"}},
		{"HelpRecall", "recall's usage and flags", []string{"help", "recall"}, []string{"usage: recap recall", `CHAT.json|CHAT.chat "QUERY"`, "-k int", "-store"}},
		{"EvalDashH", "eval's -h after a chat", []string{"eval", evalFile("parcel.chat"), "-h"}, []string{"usage: recap eval"}},
		{"DashHCommand", "recap -h COMMAND is recap help COMMAND", []string{"-h", "simulate"}, []string{"usage: recap simulate", "-grid"}},
		{"CompressDashH", "a command's -h", []string{"compress", "-h"}, []string{"usage: recap compress [flags] CHAT.json", "-store"}},
		{"PlanDashDashHelp", "a command's --help", []string{"plan", "--help"}, []string{"usage: recap plan [flags] CHAT.json"}},
		{"SimulateHelp", "simulate's -help", []string{"simulate", "-help"}, []string{"usage: recap simulate", "-per-call"}},
		{"AfterFile", "-h after the file", []string{"compress", file, "-h"}, []string{"usage: recap compress [flags] CHAT.json"}},
		{"SimulateAfterFile", "-h after the file", []string{"simulate", "-grid", file, "--help"}, []string{"usage: recap simulate"}},
		{"BeforeBadFlag", "help wins when it comes before a wrong flag", []string{"compress", "-h", "-nope"}, []string{"usage: recap compress [flags] CHAT.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, noEnv, tt.args...)
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
		})
	}
}

// TestUsageErrors: a wrong command line is one line saying what was wrong
// and one pointing at the help, on stderr, with exit code 2, and nothing on
// stdout.
func TestUsageErrors(t *testing.T) {
	file := chatFile("plain")
	tests := []struct {
		name   string
		reason string
		args   []string
		want   string // the first line of stderr; the second points at the help
		help   string // the help the second line names
	}{
		{"NoCommand", "recap alone", nil, "recap: missing command: compress, plan, simulate, eval or recall", "recap help"},
		{"UnknownCommand", "a typo", []string{"compres", file}, `recap: unknown command "compres"`, "recap help"},
		{"FlagBeforeCommand", "the command comes first", []string{"-trigger", "300", "compress", file}, "recap: flag -trigger before the command: flags follow compress, plan, simulate, eval or recall", "recap help"},
		{"HelpUnknown", "help on a command that is none", []string{"help", "compres"}, `recap: unknown command "compres"`, "recap help"},
		{"HelpTwo", "help on one command", []string{"help", "compress", "plan"}, "recap: help takes one command, got 2: compress plan", "recap help"},
		{"UnknownFlag", "a flag compress does not have", []string{"compress", "-nope", file}, "recap compress: flag provided but not defined: -nope", "recap help compress"},
		{"UnknownFlagAfterFile", "flags after the file are read, wrong ones too", []string{"plan", file, "-grid"}, "recap plan: flag provided but not defined: -grid", "recap help plan"},
		{"MissingFile", "no chat", []string{"compress", "-trigger", "300"}, "recap compress: missing chat file (a JSON file, or - for standard input)", "recap help compress"},
		{"TwoFiles", "one chat at a time", []string{"plan", "a.json", "b.json"}, `recap plan: more than one chat file: "a.json" and "b.json" (give one, or - for standard input)`, "recap help plan"},
		{"TwoFilesAmidFlags", "a second file after flags after the first", []string{"compress", "a.json", "-trigger", "300", "b.json"}, `recap compress: more than one chat file: "a.json" and "b.json" (give one, or - for standard input)`, "recap help compress"},
		{"AfterDoubleDash", "after -- everything is a file", []string{"compress", "--", "-a.json", "-trigger", "300"}, `recap compress: more than one chat file: "-a.json" and "-trigger" (give one, or - for standard input)`, "recap help compress"},
		{"BadValue", "an integer flag", []string{"compress", "-trigger", "many", file}, `recap compress: invalid value "many" for flag -trigger: parse error`, "recap help compress"},
		{"BadValueAfterFile", "an integer flag after the file", []string{"plan", file, "-window", "2.5"}, `recap plan: invalid value "2.5" for flag -window: parse error`, "recap help plan"},
		{"MissingValue", "a flag's value missing at the end", []string{"compress", file, "-trigger"}, "recap compress: flag needs an argument: -trigger", "recap help compress"},
		{"ModelAndEncoding", "one way to choose the counter", []string{"compress", "-model", "claude-sonnet-4-5", file, "-encoding", "cl100k_base"}, "recap compress: -model and -encoding are exclusive: -model counts for a chat model (its encoding or estimate, and its tokens per message), -encoding with an encoding alone", "recap help compress"},
		{"SimulateMissingFile", "simulate needs a chat", []string{"simulate", "-grid"}, "recap simulate: missing chat file (a JSON file, or - for standard input)", "recap help simulate"},
		{"SimulateUnknownFlag", "a flag simulate does not have", []string{"simulate", file, "-store", "x.json"}, "recap simulate: flag provided but not defined: -store", "recap help simulate"},
		{"SimulateBadValue", "a float flag", []string{"simulate", file, "-price", "cheap"}, `recap simulate: invalid value "cheap" for flag -price: parse error`, "recap help simulate"},
		{"SimulateTwoFiles", "one chat at a time", []string{"simulate", file, "-grid", file}, `recap simulate: more than one chat file: "` + file + `" and "` + file + `" (give one, or - for standard input)`, "recap help simulate"},
		{"SimulateModelAndEncoding", "one way to choose the counter", []string{"simulate", "-encoding", "o200k_base", "-model", "gemini-2.5-flash", file}, "recap simulate: -model and -encoding are exclusive: -model counts for a chat model (its encoding or estimate, and its tokens per message), -encoding with an encoding alone", "recap help simulate"},
		{"SimulateExclusive", "simulate's own checks say one line too", []string{"simulate", file, "-trigger", "500", "-triggers", "1000", "-grid"}, "recap simulate: -trigger and -triggers are exclusive", "recap help simulate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, noEnv, tt.args...)
			want := tt.want + "\nRun '" + tt.help + "' for usage.\n"
			if code != 2 || out != "" {
				t.Errorf("%s: exit %d, stdout %q; want 2 and none", tt.reason, code, out)
			}
			if diff := cmp.Diff(want, errOut); diff != "" {
				t.Errorf("%s: stderr mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestFlagsAfterFile: flags after the chat file, or on both sides of it,
// are read as flags before it are, by every command; after "--" the next
// argument is the file even if it starts with a dash.
func TestFlagsAfterFile(t *testing.T) {
	file := chatFile("agent")
	tests := []struct {
		name   string
		reason string
		before []string // the command, its flags, then the file
		after  []string // the same, in another order
	}{
		{"Compress", "flags after the file", []string{"compress", "-trigger", "300", "-window", "1", file}, []string{"compress", file, "-trigger", "300", "-window", "1"}},
		{"Plan", "flags on both sides", []string{"plan", "-trigger", "200", "-window", "1", file}, []string{"plan", "-trigger", "200", file, "-window", "1"}},
		{"PlanEquals", "-flag=value after the file", []string{"plan", "-trigger", "200", file}, []string{"plan", file, "-trigger=200"}},
		{"Simulate", "flags after the file", []string{"simulate", "-grid", "-triggers", "100,200", "-windows", "1", file}, []string{"simulate", file, "-grid", "-triggers", "100,200", "-windows", "1"}},
		{"DoubleDash", "-- before the file ends the flags", []string{"plan", "-trigger", "200", file}, []string{"plan", "-trigger", "200", "--", file}},
		{"DoubleDashAfterFile", "-- after the file, nothing after it", []string{"plan", "-trigger", "200", file}, []string{"plan", file, "-trigger", "200", "--"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, want, errWant := runCLI(t, noEnv, tt.before...)
			if code != 0 {
				t.Fatalf("%q: exit %d: %s", tt.before, code, errWant)
			}
			code, got, errGot := runCLI(t, noEnv, tt.after...)
			if code != 0 {
				t.Fatalf("%s: %q: exit %d: %s", tt.reason, tt.after, code, errGot)
			}
			if diff := cmp.Diff(want+errWant, got+errGot); diff != "" {
				t.Errorf("%s: %q and %q differ (-first +second):\n%s", tt.reason, tt.before, tt.after, diff)
			}
		})
	}
}
