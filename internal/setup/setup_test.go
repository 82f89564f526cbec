package setup

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestChoose(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		want   LLM
		chosen bool
		err    bool
	}{
		{"none", nil, LLM{}, false, false},
		{"openai key", map[string]string{EnvOpenAIKey: "k"}, LLM{Provider: OpenAI, Key: "k", Model: DefaultOpenAIModel, MaxRetries: -1}, true, false},
		{"local server", map[string]string{EnvOpenAIBaseURL: "http://127.0.0.1:11434/v1", EnvModel: "llama3"}, LLM{Provider: OpenAI, BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3", MaxRetries: -1}, true, false},
		{"model alone", map[string]string{EnvModel: "gpt-4.1"}, LLM{Provider: OpenAI, Model: "gpt-4.1", MaxRetries: -1}, true, false},
		{"anthropic wins", map[string]string{EnvAnthropicKey: "a", EnvGeminiKey: "g", EnvOpenAIKey: "o", EnvMaxRetries: "0"}, LLM{Provider: Anthropic, Key: "a", Model: DefaultAnthropicModel, MaxRetries: 0}, true, false},
		{"gemini over openai", map[string]string{EnvGeminiKey: "g", EnvGeminiURL: "http://x", EnvOpenAIKey: "o", EnvModel: "gemini-2.5-pro"}, LLM{Provider: Gemini, Key: "g", BaseURL: "http://x", Model: "gemini-2.5-pro", MaxRetries: -1}, true, false},
		{"bad retries", map[string]string{EnvOpenAIKey: "k", EnvMaxRetries: "many"}, LLM{}, false, true},
		{"negative retries", map[string]string{EnvMaxRetries: "-1"}, LLM{}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, chosen, err := Choose(env(tt.env))
			if (err != nil) != tt.err || chosen != tt.chosen {
				t.Fatalf("Choose = %+v, %v, %v; want chosen %v, error %v", got, chosen, err, tt.chosen, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarizers(t *testing.T) {
	counter := recap.TokenCounterFunc(func(s string) int { return len(s) / 4 })
	var built []LLM
	build := func(l LLM) (recap.Summarizer, error) {
		built = append(built, l)
		if l.Model == "broken" {
			return nil, errors.New("cannot build")
		}
		return recap.SummarizerFunc(nil), nil
	}
	main, fallback, label, err := Summarizers(env(nil), counter, 300, build)
	if err != nil || main == nil || fallback != nil || label != "the extractive summarizer (offline, no LLM)" || len(built) != 0 {
		t.Errorf("no LLM: %v %v %q %v, built %v", main, fallback, label, err, built)
	}
	main, fallback, label, err = Summarizers(env(map[string]string{EnvGeminiKey: "g"}), counter, 300, build)
	if err != nil || main == nil || fallback == nil || label != "gemini model "+DefaultGeminiModel+" (extractive fallback)" || len(built) != 1 {
		t.Errorf("gemini: %v %v %q %v, built %v", main, fallback, label, err, built)
	}
	if _, _, _, err := Summarizers(env(map[string]string{EnvModel: "broken"}), counter, 300, build); err == nil {
		t.Error("a summarizer that cannot be built: no error")
	}
	if _, _, _, err := Summarizers(env(map[string]string{EnvMaxRetries: "x"}), counter, 300, build); err == nil {
		t.Error("bad RECAP_LLM_MAX_RETRIES: no error")
	}
}

func TestSummaryBudget(t *testing.T) {
	for _, tt := range []struct{ budget, auto, want int }{{0, 500, 500}, {300, 500, 300}} {
		if got := SummaryBudget(tt.budget, tt.auto); got != tt.want {
			t.Errorf("SummaryBudget(%d, %d) = %d, want %d", tt.budget, tt.auto, got, tt.want)
		}
	}
}
