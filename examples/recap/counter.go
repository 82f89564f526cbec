package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/tokens"
)

// A tokenizer is how the CLI counts a chat's tokens, as -encoding or
// -model chose.
type tokenizer struct {
	counter  recap.TokenCounter
	overhead int    // tokens each message adds beside its text (recap.WithMessageOverhead)
	name     string // for people: "o200k_base", "claude-sonnet-4-5, estimated, +3 tokens per message"
}

// newTokenizer returns the tokenizer of model when it is not "", else of
// encoding.
//
// A model is counted as tokens.EstimatorForModel counts it, as the server
// counts its -chat-model: an OpenAI model exactly, a Claude or Gemini
// model by an estimate that errs high, each with its family's tokens per
// message. An encoding, or an OpenAI model named by -encoding, is counted
// by tokens.TiktokenForModel with no tokens per message, as the library's
// default is.
func newTokenizer(encoding, model string) (*tokenizer, error) {
	if model == "" {
		c, err := tokens.TiktokenForModel(encoding)
		if err != nil {
			return nil, err
		}
		return &tokenizer{counter: c, name: c.Encoding()}, nil
	}
	e, err := tokens.EstimatorForModel(model)
	if err != nil {
		return nil, err
	}
	name := model + ", estimated"
	if e.Exact() {
		name = model + ", exact"
	}
	if n := e.MessageOverhead(); n > 0 {
		name += fmt.Sprintf(", +%d tokens per message", n)
	}
	return &tokenizer{counter: e, overhead: e.MessageOverhead(), name: name}, nil
}

// options returns the recap options that count with t.
func (t *tokenizer) options() []recap.Option {
	return []recap.Option{recap.WithTokenCounter(t.counter), recap.WithMessageOverhead(t.overhead)}
}

// checkCounterFlags returns the usage error of -model and -encoding both
// set in fs, or nil.
func checkCounterFlags(fs *flag.FlagSet) error {
	set := flagsSet(fs)
	if set["model"] && set["encoding"] {
		return errors.New("-model and -encoding are exclusive: -model counts for a chat model (its encoding or estimate, and its tokens per message), -encoding with an encoding alone")
	}
	return nil
}

// flagsSet returns the names of the flags set on fs's command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
