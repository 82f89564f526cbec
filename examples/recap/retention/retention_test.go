package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"
)

func noEnv(string) (string, bool) { return "", false }

// The levels the offline extractive summarizer reaches on the built-in
// chats (92 of 120 facts, 56 points over recent-only, payloads 12.6% of
// the chats), and recap.Compressor.Recall on the facts it drops (25 of
// 28); a change that keeps or recalls fewer facts, or grows the payload,
// fails.
const (
	minKept          = 92   // facts kept by recap's final payloads, of 120
	minGainPoints    = 55   // over recent-only in the same tokens
	maxPayloadShare  = 0.13 // mean of final payload / whole chat
	maxSummaryTokens = 300  // the CLI's default budget at trigger 1000
	minRecalled      = 25   // of the facts the final payloads drop, those Recall finds
)

// TestRetention replays the built-in chats as the CLI would (trigger 1000,
// window 2, the offline extractive summarizer) and fails below the levels
// above. With -v it logs the README table.
func TestRetention(t *testing.T) {
	chats, err := load(set{"in-sample", "testdata/insample"})
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) < 10 {
		t.Fatalf("%d chats; the benchmark has at least 10", len(chats))
	}
	s, _, err := newSetup(noEnv, flag.NewFlagSet("test", flag.ContinueOnError), new(int), new(int), 0)
	if err != nil {
		t.Fatal(err)
	}
	var outs []Outcome
	for _, c := range chats {
		o, err := Replay(context.Background(), s, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Failures) > 0 {
			t.Errorf("%s: absorbed failures: %v", c.Name, o.Failures)
		}
		if n := s.Counter.CountTokens(o.Summary); n > maxSummaryTokens {
			t.Errorf("%s: final summary has %d tokens, over %d", c.Name, n, maxSummaryTokens)
		}
		outs = append(outs, o)
	}
	var b bytes.Buffer
	WriteTable(&b, outs)
	t.Logf("\n%s", b.String())

	tot := Sum(outs)
	kept, recent := tot.Percent(tot.Kept), tot.Percent(tot.Recent)
	if tot.Kept < minKept {
		t.Errorf("recap keeps %d of %d facts (%.1f%%), below %d", tot.Kept, tot.Facts, kept, minKept)
	}
	if kept-recent < minGainPoints {
		t.Errorf("recap keeps %.1f%%, only %.1f points over recent-only (%.1f%%); want %d", kept, kept-recent, recent, minGainPoints)
	}
	if tot.PayloadShare > maxPayloadShare {
		t.Errorf("final payloads are %.1f%% of the chats on average, over %.0f%%", 100*tot.PayloadShare, 100*maxPayloadShare)
	}
	var rb bytes.Buffer
	WriteRecallTable(&rb, outs)
	t.Logf("\n%s", rb.String())
	if tot.Recalled < minRecalled || tot.Unasked > 0 {
		t.Errorf("Recall finds %d of the %d facts dropped (%d without a question), below %d", tot.Recalled, tot.Dropped, tot.Unasked, minRecalled)
	}
	if tot.Whole != tot.Facts {
		t.Errorf("the whole chats hold %d of %d facts; every proof must be in its chat", tot.Whole, tot.Facts)
	}
}

func TestRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-v"}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"| **all 12 chats**", "## held-out", "## in-sample", "the extractive summarizer", "## support-parcel",
		"| chat | facts dropped | without question | recalled (top 3) | answerable |", "  - recalled by \""} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	if code := run(context.Background(), []string{"-chats", t.TempDir()}, &stdout, &stderr, noEnv); code != 1 {
		t.Errorf("empty chat directory: exit %d, want 1", code)
	}
}
