// Command startbench measures what a CLI or a serverless handler pays on
// every run for counting tokens: the time from starting a process to its
// first count of an o200k_base text, and the process's peak memory (max
// RSS), for recap beside github.com/tiktoken-go/tokenizer, the fastest Go
// tokenizer to start that issue 14 found, in the same run.
//
//	cd examples && go run ./startbench [-runs 21] [-baseline DIR]
//
// It builds two programs, recapfirst and peerfirst, that count their
// argument once and exit, and nocount, which prints the length of its
// argument: the floor of any Go process. It runs each once to warm the
// page cache, then runs them in turn, rotating which goes first, and
// prints the median and range of each measure, and the size of each
// binary. The time is the wall time from starting the process to its exit,
// as its caller waits for it.
// With -baseline DIR it also builds recapfirst against the recap module at
// DIR (another checkout, say of main) for a before and after in one run.
//
// Its benchmarks (peers_bench_test.go) compare the throughput of package
// tokens with those Go tokenizers, on the same texts in the same run:
//
//	cd examples/startbench && go test -run '^$' -bench 'Encode|Count' -benchmem -count 5
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// DefaultText is the text that each program counts.
const DefaultText = "Summarize the conversation so far, keeping every decision and open question."

// run is the whole program. It returns the exit code: 0 on success, 1 on
// failure, 2 on bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("startbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.Int("runs", 21, "measured runs of each program")
	baseline := fs.String("baseline", "", "also measure recap from the module at this directory")
	text := fs.String("text", DefaultText, "the text to count")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *runs < 1 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "startbench: -runs must be at least 1, and there are no arguments")
		return 2
	}
	if err := bench(ctx, stdout, *runs, *baseline, *text); err != nil {
		fmt.Fprintln(stderr, "startbench:", err)
		return 1
	}
	return 0
}

// program is one of the measured programs.
type program struct {
	name string
	bin  string
	size int64
	time []time.Duration
	rss  []int64 // bytes
	out  string  // what it printed: the count
}

func bench(ctx context.Context, stdout io.Writer, runs int, baseline, text string) error {
	dir, err := os.MkdirTemp("", "startbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	progs := []*program{
		{name: "recap", bin: filepath.Join(dir, "recapfirst")},
		{name: "tiktoken-go/tokenizer", bin: filepath.Join(dir, "peerfirst")},
		{name: "no counting (floor)", bin: filepath.Join(dir, "nocount")},
	}
	for _, p := range progs {
		if err := build(ctx, p.bin, pkgPrefix+filepath.Base(p.bin), ""); err != nil {
			return err
		}
	}
	if baseline != "" {
		abs, err := filepath.Abs(baseline)
		if err != nil {
			return err
		}
		modfile, err := baselineModfile(ctx, dir, abs)
		if err != nil {
			return err
		}
		p := &program{name: "recap at " + baseline, bin: filepath.Join(dir, "recapfirst-baseline")}
		if err := build(ctx, p.bin, pkgPrefix+"recapfirst", modfile); err != nil {
			return err
		}
		progs = append(progs, p)
	}
	for _, p := range progs {
		fi, err := os.Stat(p.bin)
		if err != nil {
			return err
		}
		p.size = fi.Size()
		if _, _, p.out, err = start(ctx, p.bin, text); err != nil { // warms the page cache
			return err
		}
	}
	for i := 0; i < runs; i++ {
		for k := range progs {
			p := progs[(i+k)%len(progs)]
			d, rss, out, err := start(ctx, p.bin, text)
			if err != nil {
				return err
			}
			if out != p.out { // the same count every time
				return fmt.Errorf("%s printed %q, then %q", p.name, p.out, out)
			}
			p.time, p.rss = append(p.time, d), append(p.rss, rss)
		}
	}

	fmt.Fprintf(stdout, "process start to first o200k_base count and exit: median (min-max) of %d runs each\n", runs)
	fmt.Fprintf(stdout, "%s %s/%s, %d CPUs; text of %d bytes\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), len(text))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "program\ttime (ms)\tmax RSS (MB)\tbinary (MB)\tcount")
	for _, p := range progs {
		tmin, tmed, tmax := stats(p.time)
		rmin, rmed, rmax := stats(p.rss)
		fmt.Fprintf(tw, "%s\t%.1f (%.1f-%.1f)\t%.1f (%.1f-%.1f)\t%.1f\t%s\n", p.name,
			ms(tmed), ms(tmin), ms(tmax), mb(rmed), mb(rmin), mb(rmax), mb(p.size), p.out)
	}
	return tw.Flush()
}

// pkgPrefix is the import path of the measured programs but their names.
const pkgPrefix = "github.com/recapgo/recap/examples/startbench/"

// build builds the package pkg of the examples module into bin, with the
// go.mod file modfile if it is not empty.
func build(ctx context.Context, bin, pkg, modfile string) error {
	args := []string{"build", "-o", bin}
	if modfile != "" {
		// -mod=mod: the baseline may need modules (and sums) that the
		// examples module no longer lists.
		args = append(args, "-mod=mod", "-modfile", modfile)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, stderr.Bytes())
	}
	return nil
}

// baselineModfile writes, in dir, a copy of the examples module's go.mod
// and go.sum whose recap is the module at moduleDir, and returns its path.
func baselineModfile(ctx context.Context, dir, moduleDir string) (string, error) {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod, err := os.ReadFile(strings.TrimSpace(string(gomod)))
	if err != nil {
		return "", fmt.Errorf("run startbench in the examples module: %w", err)
	}
	sum, err := os.ReadFile(strings.TrimSuffix(strings.TrimSpace(string(gomod)), ".mod") + ".sum")
	if err != nil {
		return "", err
	}
	const replace = "replace github.com/recapgo/recap => ../"
	if !bytes.Contains(mod, []byte(replace)) {
		return "", errors.New("go.mod has no " + replace)
	}
	mod = bytes.Replace(mod, []byte(replace), []byte("replace github.com/recapgo/recap => "+moduleDir), 1)
	modfile := filepath.Join(dir, "baseline.mod")
	if err := os.WriteFile(modfile, mod, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "baseline.sum"), sum, 0o644); err != nil {
		return "", err
	}
	return modfile, nil
}

// start runs bin with the argument text and returns the wall time from
// starting it to its exit, its max RSS in bytes and what it printed.
func start(ctx context.Context, bin, text string) (time.Duration, int64, string, error) {
	cmd := exec.CommandContext(ctx, bin, text)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		return 0, 0, "", fmt.Errorf("%s: %w\n%s", filepath.Base(bin), err, out.Bytes())
	}
	return d, maxRSS(cmd.ProcessState), strings.TrimSpace(out.String()), nil
}

// stats returns the minimum, median and maximum of xs.
func stats[T int64 | time.Duration](xs []T) (lo, median, hi T) {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[0], s[len(s)/2], s[len(s)-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mb(b int64) float64 { return float64(b) / 1e6 }
