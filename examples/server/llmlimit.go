package main

import (
	"context"
	"errors"

	"github.com/recapgo/recap"
)

// DefaultMaxLLMCalls bounds the Compressor's LLM calls in flight at once
// (-max-llm-calls).
const DefaultMaxLLMCalls = 2

// errLLMBusy is the Compressor's LLM summarizer's error when
// -max-llm-calls calls are in flight: recap's fallback summarizer (the
// offline extractive one) serves the request at once.
var errLLMBusy = errors.New("summarizer: not called: the LLM has as many calls in flight as -max-llm-calls allows")

// limitCalls returns s with at most n calls in flight; one more fails at
// once with errLLMBusy instead of waiting. A stuck LLM so holds at most n
// requests (each until WithSummarizeTimeout), however many arrive: the
// others are summarized by the fallback, or answered unsummarized, without
// waiting for it (issue 23, F3).
func limitCalls(s recap.Summarizer, n int) recap.Summarizer {
	sem := make(chan struct{}, n)
	return recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		select {
		case sem <- struct{}{}:
		default:
			return "", errLLMBusy
		}
		defer func() { <-sem }()
		return s.Summarize(ctx, req)
	})
}
