// Package setup holds what the CLI and the server share: which LLM the
// environment chooses, and the recap options set by the environment and the
// command line. It has no dependency beyond recap and its extractive
// summarizer; each program builds the chosen LLM's Summarizer itself (the
// CLI with its small OpenAI-compatible client, the server with the
// provider SDK adapters).
package setup

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/extractive"
)

// Environment variables that choose an LLM summarizer.
const (
	EnvOpenAIBaseURL = "RECAP_OPENAI_BASE_URL"
	EnvOpenAIKey     = "RECAP_OPENAI_API_KEY"
	EnvAnthropicKey  = "RECAP_ANTHROPIC_API_KEY"
	EnvAnthropicURL  = "RECAP_ANTHROPIC_BASE_URL"
	EnvGeminiKey     = "RECAP_GEMINI_API_KEY"
	EnvGeminiURL     = "RECAP_GEMINI_BASE_URL"
	EnvModel         = "RECAP_MODEL"
	EnvMaxRetries    = "RECAP_LLM_MAX_RETRIES" // retries of a failed LLM call (default: the client's)
)

// DefaultMaxSummarizeInput is what one summarizer call is given at most, in
// tokens (recap.WithMaxSummarizeInput), unless the command line says
// otherwise: the server's -max-summarize-input and the CLI's -max-input.
const DefaultMaxSummarizeInput = 32000

// Providers that the environment can choose.
const (
	OpenAI    = "openai" // any OpenAI-compatible endpoint
	Anthropic = "anthropic"
	Gemini    = "gemini"
)

// The models used when RECAP_MODEL is not set. The server's tests check
// that they are the adapters' DefaultModel.
const (
	DefaultOpenAIModel    = "gpt-4o-mini"
	DefaultAnthropicModel = "claude-haiku-4-5"
	DefaultGeminiModel    = "gemini-2.5-flash-lite"
)

// An LLM is the LLM summarizer the environment chooses.
type LLM struct {
	Provider string // OpenAI, Anthropic or Gemini
	Key      string // the API key ("" for an OpenAI-compatible server without one)
	BaseURL  string // "" for the provider's own
	Model    string // RECAP_MODEL, or the provider's default model
	// MaxRetries is RECAP_LLM_MAX_RETRIES, or -1 when it is not set (the
	// client's default).
	MaxRetries int
}

// Label describes l for people, as the programs print it.
func (l LLM) Label() string {
	if l.Provider == OpenAI {
		return fmt.Sprintf("openai-compatible model %s at %s", l.Model, or(l.BaseURL, "api.openai.com"))
	}
	return fmt.Sprintf("%s model %s", l.Provider, l.Model)
}

// Choose returns the LLM the environment chooses, and false when it
// chooses none (the extractive summarizer alone):
//
//   - RECAP_ANTHROPIC_API_KEY set: Anthropic's API;
//   - RECAP_GEMINI_API_KEY set (and no Anthropic key): the Gemini API;
//   - RECAP_OPENAI_BASE_URL, RECAP_OPENAI_API_KEY or RECAP_MODEL set (and
//     neither of the above): an OpenAI-compatible endpoint.
//
// It fails for a RECAP_LLM_MAX_RETRIES that is not a number of retries.
func Choose(lookup func(string) (string, bool)) (LLM, bool, error) {
	get := func(k string) string { v, _ := lookup(k); return v }
	l := LLM{MaxRetries: -1}
	if v := get(EnvMaxRetries); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return LLM{}, false, fmt.Errorf("%s=%q: want a number of retries, 0 or more", EnvMaxRetries, v)
		}
		l.MaxRetries = n
	}
	switch {
	case get(EnvAnthropicKey) != "":
		l.Provider, l.Key, l.BaseURL, l.Model = Anthropic, get(EnvAnthropicKey), get(EnvAnthropicURL), or(get(EnvModel), DefaultAnthropicModel)
	case get(EnvGeminiKey) != "":
		l.Provider, l.Key, l.BaseURL, l.Model = Gemini, get(EnvGeminiKey), get(EnvGeminiURL), or(get(EnvModel), DefaultGeminiModel)
	case get(EnvOpenAIBaseURL) != "" || get(EnvOpenAIKey) != "" || get(EnvModel) != "":
		l.Provider, l.Key, l.BaseURL, l.Model = OpenAI, get(EnvOpenAIKey), get(EnvOpenAIBaseURL), or(get(EnvModel), DefaultOpenAIModel)
	default:
		return LLM{}, false, nil
	}
	return l, true, nil
}

// Model returns the LLM model that the environment chooses, or "" when it
// chooses the extractive summarizer (or is invalid).
func Model(lookup func(string) (string, bool)) string {
	l, _, _ := Choose(lookup)
	return l.Model
}

// Summarizers returns the summarizer the environment chooses, the fallback
// (nil if the main one is already the extractive one) and a label for
// people. build makes the chosen LLM's Summarizer; with an LLM, the
// extractive summarizer (of budget tokens, counted by counter) is the
// fallback.
func Summarizers(lookup func(string) (string, bool), counter recap.TokenCounter, budget int, build func(LLM) (recap.Summarizer, error)) (main, fallback recap.Summarizer, label string, err error) {
	ext, err := extractive.New(counter, budget)
	if err != nil {
		return nil, nil, "", err
	}
	l, ok, err := Choose(lookup)
	if err != nil {
		return nil, nil, "", err
	}
	if !ok {
		return ext, nil, "the extractive summarizer (offline, no LLM)", nil
	}
	s, err := build(l)
	if err != nil {
		return nil, nil, "", err
	}
	return s, ext, l.Label() + " (extractive fallback)", nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Options returns the recap options set by the environment variables of
// the prefixes (later prefixes win) and by the -trigger and -window flags of
// fs (which win over the environment), and the token budget for extractive
// summaries: half the trigger in force, at most extractive.DefaultMaxTokens,
// so that a summary stays well under the trigger (or every new message
// would set off another summarization).
func Options(lookup func(string) (string, bool), prefixes []string, fs *flag.FlagSet, trigger, window *int) ([]recap.Option, int, error) {
	var opts []recap.Option
	inForce := recap.DefaultTriggerTokens
	for _, p := range prefixes {
		o, err := recap.OptionsFromEnv(p, lookup)
		if err != nil {
			return nil, 0, err
		}
		opts = append(opts, o...)
		if v, ok := lookup(p + recap.EnvTriggerTokens); ok {
			inForce, _ = strconv.Atoi(strings.TrimSpace(v)) // valid: OptionsFromEnv checked it
		}
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "trigger":
			inForce = *trigger
			opts = append(opts, recap.WithTriggerTokens(*trigger))
		case "window":
			opts = append(opts, recap.WithWindowConversations(*window))
		}
	})
	return opts, min(extractive.DefaultMaxTokens, max(inForce/2, 1)), nil
}

// SummaryBudget is the extractive summaries' budget of a program: budget
// when the user set one (not 0), else auto. With the summary check, recap
// asks for less than its bound itself (SummarizeRequest.MaxTokens), which
// the extractive summarizer keeps to.
func SummaryBudget(budget, auto int) int {
	if budget != 0 {
		return budget
	}
	return auto
}
