package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// The command line: a command, then its flags and one chat file in any
// order. Help goes to stdout with exit code 0; a usage error is one line
// saying what was wrong and a line pointing at the help, on stderr, with
// exit code 2.

// Exit codes of run.
const (
	exitOK    = 0
	exitFail  = 1 // the command failed
	exitUsage = 2 // the command line is wrong
)

// stdinFile is the chat file that names standard input.
const stdinFile = "-"

// commands are the commands that recap help knows.
var commands = []string{"compress", "plan", "simulate", "eval", "recall"}

// newFlagSet returns a flag set for cmd that prints nothing and stops at
// the first error: run reports errors and help itself.
func newFlagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet("recap "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses args with fs, flags coming before or after the one
// positional argument, which it returns: the chat file, or "-" for
// standard input. It parses, and then parses again what follows the first
// positional argument, so that "chat.json -trigger 300" sets -trigger.
// After a "--" every argument is positional, as the flag package has it.
//
// Its errors are usage errors, flag.ErrHelp for -h, -help and --help; the
// flag package's say which flag and what was wrong ("flag provided but not
// defined: -x", "invalid value ... for flag -trigger: ...").
func parseArgs(fs *flag.FlagSet, args []string) (string, error) {
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if fs.NArg() == 0 {
		return "", errors.New("missing chat file (a JSON file, or - for standard input)")
	}
	path, rest := fs.Arg(0), fs.Args()[1:]
	// The flag package drops a "--" that ends the flags. (A string flag
	// given the value "--", as in -chat --, reads as that end too: the
	// arguments after the chat file are then not parsed as flags.)
	ended := len(args) > fs.NArg() && args[len(args)-fs.NArg()-1] == "--"
	if len(rest) > 0 && !ended {
		if err := fs.Parse(rest); err != nil {
			return "", err
		}
		rest = fs.Args()
	}
	if len(rest) > 0 {
		return "", fmt.Errorf("more than one chat file: %q and %q (give one, or - for standard input)", path, rest[0])
	}
	return path, nil
}

// parseArgsList parses args with fs as parseArgs does, flags coming
// before, between or after the positional arguments, and returns those in
// their order (none is an empty list). After a "--" every argument is
// positional.
func parseArgsList(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	cur := args
	for {
		if err := fs.Parse(cur); err != nil {
			return nil, err
		}
		n := fs.NArg()
		if n == 0 {
			return pos, nil
		}
		if len(cur) > n && cur[len(cur)-n-1] == "--" { // the flag package drops the "--" that ends the flags
			return append(pos, fs.Args()...), nil
		}
		pos = append(pos, fs.Arg(0))
		cur = fs.Args()[1:]
	}
}

// usageError writes what was wrong with cmd's command line ("" for the
// command itself) and where to read the usage to w, and returns exitUsage.
func usageError(w io.Writer, cmd string, err error) int {
	prog, help := "recap", "recap help"
	if cmd != "" {
		prog, help = prog+" "+cmd, help+" "+cmd
	}
	fmt.Fprintf(w, "%s: %v\nRun '%s' for usage.\n", prog, err, help)
	return exitUsage
}

// parseError reports the error of parseArgs for cmd: the help on stdout,
// or a usage error on stderr. It returns the exit code.
func parseError(stdout, stderr io.Writer, cmd string, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return printHelp(stdout, cmd)
	}
	return usageError(stderr, cmd, err)
}

// runHelp is "recap help [COMMAND]", and also "recap -h [COMMAND]".
func runHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		return printHelp(stdout, "")
	case len(args) > 1:
		return usageError(stderr, "", fmt.Errorf("help takes one command, got %d: %s", len(args), strings.Join(args, " ")))
	case !isCommand(args[0]):
		return usageError(stderr, "", fmt.Errorf("unknown command %q", args[0]))
	}
	return printHelp(stdout, args[0])
}

func isCommand(s string) bool {
	for _, c := range commands {
		if s == c {
			return true
		}
	}
	return false
}

func isHelp(s string) bool {
	return s == "help" || s == "-h" || s == "-help" || s == "--help"
}

// printHelp writes the usage of cmd, or of recap when cmd is "", and the
// flags, to w. It returns exitOK.
func printHelp(w io.Writer, cmd string) int {
	var fs *flag.FlagSet
	switch cmd {
	case "":
		fmt.Fprint(w, usage)
		fmt.Fprint(w, "\nFlags of compress and plan:\n")
		fs = newCompressFlags("compress").fs
	case "simulate":
		fmt.Fprint(w, simulateUsage)
		fs = newSimulateFlags().fs
	case "eval":
		fmt.Fprint(w, evalUsage)
		fs = newEvalFlags().fs
	case "recall":
		fmt.Fprint(w, recallUsage)
		fs = newRecallFlags().fs
	default:
		fmt.Fprint(w, commandUsage[cmd])
		fs = newCompressFlags(cmd).fs
	}
	fs.SetOutput(w)
	fs.PrintDefaults()
	return exitOK
}
