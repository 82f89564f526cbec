package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/recapgo/recap"
)

// withSpinner wraps s so that a spinner turns on w while a summary is being
// made, when w is a terminal. It returns s itself otherwise: for a buffer,
// a file, a pipe, and for /dev/null, a character device that is no
// terminal.
func withSpinner(s recap.Summarizer, w io.Writer) recap.Summarizer {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return s
	}
	return recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		done := make(chan struct{})
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			frames := `|/-\`
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for i := 0; ; i++ {
				fmt.Fprintf(w, "\r%c summarizing %d messages...", frames[i%len(frames)], len(req.Messages))
				select {
				case <-done:
					fmt.Fprint(w, "\r\033[K") // clear the line
					return
				case <-t.C:
				}
			}
		}()
		defer func() { close(done); <-stopped }()
		return s.Summarize(ctx, req)
	})
}

// isTerminal reports whether f is a terminal: a character device other
// than the null device. (golang.org/x/term asks the terminal driver; this
// test needs no dependency and errs only for other character devices,
// which nobody points a CLI's output at.)
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}
