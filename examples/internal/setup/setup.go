// Package setup builds what the CLI and the server share: the summarizer
// chosen by the environment, with the offline extractive one behind it.
package setup

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/anthropic"
	"github.com/recapgo/recap/examples/extractive"
	"github.com/recapgo/recap/examples/gemini"
	"github.com/recapgo/recap/examples/openai"
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
	EnvMaxRetries    = "RECAP_LLM_MAX_RETRIES" // retries of a failed LLM call (default: the adapter's)
)

// Summarizers returns the main summarizer, the fallback (nil if the main
// one is already the extractive one) and a label for people:
//
//   - RECAP_OPENAI_BASE_URL, RECAP_OPENAI_API_KEY or RECAP_MODEL set (and no
//     Anthropic key): an OpenAI-compatible endpoint;
//   - RECAP_ANTHROPIC_API_KEY set: Anthropic's API;
//   - RECAP_GEMINI_API_KEY set (and no Anthropic key): the Gemini API;
//   - otherwise the embedded extractive summarizer: offline, no LLM.
//
// With an LLM, the extractive summarizer is the fallback.
// RECAP_LLM_MAX_RETRIES sets how often the LLM's adapter retries a failed
// call (the SDK waits out a rate limit's Retry-After between tries).
func Summarizers(lookup func(string) (string, bool), counter recap.TokenCounter, budget int) (main, fallback recap.Summarizer, label string, err error) {
	get := func(k string) string { v, _ := lookup(k); return v }
	ext, err := extractive.New(counter, budget)
	if err != nil {
		return nil, nil, "", err
	}
	retries := -1
	if v := get(EnvMaxRetries); v != "" {
		if retries, err = strconv.Atoi(v); err != nil || retries < 0 {
			return nil, nil, "", fmt.Errorf("%s=%q: want a number of retries, 0 or more", EnvMaxRetries, v)
		}
	}
	switch provider(get) {
	case "anthropic":
		var opts []anthropic.Option
		if m := get(EnvModel); m != "" {
			opts = append(opts, anthropic.WithModel(m))
		}
		if u := get(EnvAnthropicURL); u != "" {
			opts = append(opts, anthropic.WithBaseURL(u))
		}
		if retries >= 0 {
			opts = append(opts, anthropic.WithMaxRetries(retries))
		}
		s, err := anthropic.New(get(EnvAnthropicKey), opts...)
		if err != nil {
			return nil, nil, "", err
		}
		return s, ext, fmt.Sprintf("anthropic model %s (extractive fallback)", or(get(EnvModel), anthropic.DefaultModel)), nil
	case "gemini":
		var opts []gemini.Option
		if m := get(EnvModel); m != "" {
			opts = append(opts, gemini.WithModel(m))
		}
		if u := get(EnvGeminiURL); u != "" {
			opts = append(opts, gemini.WithBaseURL(u))
		}
		if retries >= 0 {
			opts = append(opts, gemini.WithMaxRetries(retries))
		}
		s, err := gemini.New(context.Background(), get(EnvGeminiKey), opts...)
		if err != nil {
			return nil, nil, "", err
		}
		return s, ext, fmt.Sprintf("gemini model %s (extractive fallback)", or(get(EnvModel), gemini.DefaultModel)), nil
	case "openai":
		var opts []openai.Option
		if m := get(EnvModel); m != "" {
			opts = append(opts, openai.WithModel(m))
		}
		if u := get(EnvOpenAIBaseURL); u != "" {
			opts = append(opts, openai.WithBaseURL(u))
		}
		if retries >= 0 {
			opts = append(opts, openai.WithMaxRetries(retries))
		}
		s, err := openai.New(get(EnvOpenAIKey), opts...)
		if err != nil {
			return nil, nil, "", err
		}
		return s, ext, fmt.Sprintf("openai-compatible model %s at %s (extractive fallback)", or(get(EnvModel), openai.DefaultModel), or(get(EnvOpenAIBaseURL), "api.openai.com")), nil
	}
	return ext, nil, "the extractive summarizer (offline, no LLM)", nil
}

// Model returns the LLM model that Summarizers chooses, or "" when it
// chooses the extractive summarizer.
func Model(lookup func(string) (string, bool)) string {
	get := func(k string) string { v, _ := lookup(k); return v }
	switch provider(get) {
	case "anthropic":
		return or(get(EnvModel), anthropic.DefaultModel)
	case "gemini":
		return or(get(EnvModel), gemini.DefaultModel)
	case "openai":
		return or(get(EnvModel), openai.DefaultModel)
	}
	return ""
}

// provider returns the LLM provider the environment chooses (see
// Summarizers): "anthropic", "gemini", "openai", or "" for none.
func provider(get func(string) string) string {
	switch {
	case get(EnvAnthropicKey) != "":
		return "anthropic"
	case get(EnvGeminiKey) != "":
		return "gemini"
	case get(EnvOpenAIBaseURL) != "" || get(EnvOpenAIKey) != "" || get(EnvModel) != "":
		return "openai"
	}
	return ""
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
