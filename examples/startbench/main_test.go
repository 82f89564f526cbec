package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestRunUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		reason string
	}{
		{"NoRuns", []string{"-runs", "0"}, "a median needs a run"},
		{"Argument", []string{"extra"}, "startbench takes flags only"},
		{"UnknownFlag", []string{"-n", "3"}, "flags are checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tt.args, &stdout, &stderr); code != 2 {
				t.Errorf("run(%q) = %d, want 2 (%s); stderr:\n%s", tt.args, code, tt.reason, &stderr)
			}
		})
	}
}

// TestStartbench builds and runs the three programs once: recap and
// tiktoken-go/tokenizer count the default text alike.
func TestStartbench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three programs")
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-runs", "1"}, &stdout, &stderr); code != 0 {
		t.Fatalf("run = %d; stderr:\n%s", code, &stderr)
	}
	counts := map[string]string{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "recap "):
			counts["recap"] = f[len(f)-1]
		case strings.HasPrefix(line, "tiktoken-go/tokenizer "):
			counts["peer"] = f[len(f)-1]
		}
	}
	if counts["recap"] != "15" || counts["peer"] != "15" {
		t.Errorf("counts %v, want 15 for both; output:\n%s", counts, &stdout)
	}
}

func TestStats(t *testing.T) {
	lo, med, hi := stats([]time.Duration{5, 1, 4, 2, 3})
	if lo != 1 || med != 3 || hi != 5 {
		t.Errorf("stats = %d, %d, %d; want 1, 3, 5", lo, med, hi)
	}
}
