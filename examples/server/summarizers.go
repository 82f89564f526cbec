package main

import (
	"context"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/anthropic"
	"github.com/recapgo/recap/examples/gemini"
	"github.com/recapgo/recap/examples/openai"
	"github.com/recapgo/recap/internal/setup"
)

// newLLM builds the Summarizer of the LLM the environment chose, with the
// provider's SDK adapter.
func newLLM(l setup.LLM) (recap.Summarizer, error) {
	switch l.Provider {
	case setup.Anthropic:
		opts := []anthropic.Option{anthropic.WithModel(l.Model)}
		if l.BaseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(l.BaseURL))
		}
		if l.MaxRetries >= 0 {
			opts = append(opts, anthropic.WithMaxRetries(l.MaxRetries))
		}
		return anthropic.New(l.Key, opts...)
	case setup.Gemini:
		opts := []gemini.Option{gemini.WithModel(l.Model)}
		if l.BaseURL != "" {
			opts = append(opts, gemini.WithBaseURL(l.BaseURL))
		}
		if l.MaxRetries >= 0 {
			opts = append(opts, gemini.WithMaxRetries(l.MaxRetries))
		}
		return gemini.New(context.Background(), l.Key, opts...)
	}
	opts := []openai.Option{openai.WithModel(l.Model)}
	if l.BaseURL != "" {
		opts = append(opts, openai.WithBaseURL(l.BaseURL))
	}
	if l.MaxRetries >= 0 {
		opts = append(opts, openai.WithMaxRetries(l.MaxRetries))
	}
	return openai.New(l.Key, opts...)
}
