package extractive_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/extractive"
)

func counter(t *testing.T) recap.TokenCounter {
	t.Helper()
	c, err := recap.NewTiktokenCounter(recap.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func msgs(texts ...string) []recap.Message {
	var out []recap.Message
	for i, s := range texts {
		role := recap.RoleUser
		if i%2 == 1 {
			role = recap.RoleAssistant
		}
		out = append(out, recap.Message{ID: fmt.Sprint(i), Role: role, Content: s})
	}
	return out
}

func TestSummarizeWithinBudgetAndDeterministic(t *testing.T) {
	c := counter(t)
	var texts []string
	for i := 0; i < 200; i++ {
		texts = append(texts, fmt.Sprintf("Message %d mentions project Zephyr-%d and a budget of %d euros. It is a long message with filler words.", i, i%7, i*13))
	}
	for _, budget := range []int{5, 20, 100, 300} {
		s, err := extractive.New(c, budget)
		if err != nil {
			t.Fatal(err)
		}
		req := recap.SummarizeRequest{ChatID: "c", Previous: "Earlier: the user founded Zephyr.", Messages: msgs(texts...)}
		a, err := s.Summarize(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := s.Summarize(context.Background(), req)
		if a != b {
			t.Errorf("budget %d: two runs differ:\n%s\n%s", budget, a, b)
		}
		if n := c.CountTokens(a); n > budget || strings.TrimSpace(a) == "" {
			t.Errorf("budget %d: summary has %d tokens: %q", budget, n, a)
		}
	}
}

func TestSummarizeKeepsPreviousAndOrder(t *testing.T) {
	s, err := extractive.New(counter(t), 60)
	if err != nil {
		t.Fatal(err)
	}
	req := recap.SummarizeRequest{
		Previous: "The user is vegetarian and flies to Osaka on 3 April.",
		Messages: msgs("ok", "sure", "Book the Hotel Granvia in Kyoto for 3 nights.", "Booked Hotel Granvia, confirmation KX-44."),
	}
	got, err := s.Summarize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"vegetarian", "Granvia"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lost %q", got, want)
		}
	}
	if i, j := strings.Index(got, "vegetarian"), strings.Index(got, "Granvia"); i > j {
		t.Errorf("summary %q is not in transcript order", got)
	}
}

func TestSummarizeEdgeCases(t *testing.T) {
	s, err := extractive.New(counter(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Summarize(context.Background(), recap.SummarizeRequest{})
	if err != nil || got != "" {
		t.Errorf("empty request: %q, %v; want an empty summary for recap to reject", got, err)
	}
	long := strings.Repeat("supercalifragilistic ", 100)
	got, err = s.Summarize(context.Background(), recap.SummarizeRequest{Messages: msgs(long)})
	if err != nil || got == "" || counter(t).CountTokens(got) > 10 || !strings.HasSuffix(got, "…") {
		t.Errorf("one sentence over budget: %q, %v; want a truncated start", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Summarize(ctx, recap.SummarizeRequest{Messages: msgs("hi")}); err == nil {
		t.Errorf("canceled context: no error")
	}
	if _, err := extractive.New(nil, 10); err == nil {
		t.Errorf("New(nil counter) succeeded")
	}
}
