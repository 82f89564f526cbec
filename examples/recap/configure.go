package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/recap/internal/chatapi"
	"github.com/recapgo/recap/internal/setup"
)

// A configuration is what compress, plan, recall and eval set up alike
// from the environment and the shared flags: the Compressor's options
// and its summarizers.
type configuration struct {
	opts          []recap.Option
	sum, fallback recap.Summarizer // fallback nil without an LLM
	label         string           // what summarizes, for the report
	check         bool             // -check: compressor adds recap.WithSummaryCheck (eval's Setup adds it itself)
}

// configure returns the configuration of opts (from setup.Options, with
// auto its extractive budget) and the tokenizer's options, -max-payload
// (ceiling), -max-input and -summary-tokens (budget, auto when 0), a 0
// leaving the library's default, and -check (with which recap asks the
// summarizer for seven tenths of the bound, the rest left to the check's
// repairs): the summarizer the environment chooses (an LLM, the
// extractive one its fallback) or the extractive one.
func configure(lookup func(string) (string, bool), tok *tokenizer, opts []recap.Option, auto, budget, ceiling, maxInput int, check bool) (configuration, error) {
	opts = append(opts, tok.options()...)
	if ceiling != 0 {
		opts = append(opts, recap.WithMaxPayloadTokens(ceiling))
	}
	if maxInput != 0 {
		opts = append(opts, recap.WithMaxSummarizeInput(maxInput))
	}
	sum, fallback, label, err := setup.Summarizers(lookup, tok.counter, setup.SummaryBudget(budget, auto), chatapi.ForLLM)
	if err != nil {
		return configuration{}, err
	}
	return configuration{opts: opts, sum: sum, fallback: fallback, label: label, check: check}, nil
}

// compressor returns a Compressor of the configuration, with a spinner on
// stderr while its summarizer runs, over the JSON file store at path, or
// an in-memory store if path is "".
func (cfg configuration) compressor(path string, stderr io.Writer) (*recap.Compressor, recap.Store, error) {
	opts := cfg.opts[:len(cfg.opts):len(cfg.opts)]
	if cfg.fallback != nil {
		opts = append(opts, recap.WithFallbackSummarizer(cfg.fallback))
	}
	if cfg.check {
		opts = append(opts, recap.WithSummaryCheck())
	}
	var st recap.Store = recap.NewMemoryStore()
	if path != "" {
		fs, err := openFileStore(path)
		if err != nil {
			return nil, nil, err
		}
		st = fs
	}
	c, err := recap.New(withSpinner(cfg.sum, stderr), st, opts...)
	if err != nil {
		return nil, nil, err
	}
	return c, st, nil
}

// failer returns how a command reports err on stderr: with one "recap: "
// prefix, though the library's errors carry their own, and exitFail.
func failer(stderr io.Writer) func(error) int {
	return func(err error) int {
		fmt.Fprintf(stderr, "recap: %s\n", strings.TrimPrefix(err.Error(), "recap: "))
		return exitFail
	}
}

// chatFailer is fail for an error about the chat read from name, which it
// names once.
func chatFailer(fail func(error) int, name string) func(error) int {
	return func(err error) int {
		return fail(fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "recap: ")))
	}
}
