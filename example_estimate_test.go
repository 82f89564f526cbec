package recap_test

import (
	"errors"
	"fmt"

	"github.com/recapgo/recap"
)

// Counters for an OpenAI, a Claude and a Gemini model: the first exact,
// the others estimates that err high; a model of no known family is an
// error.
func ExampleEstimator() {
	for _, model := range []string{"gpt-4o", "anthropic/claude-sonnet-4.5", "models/gemini-2.5-pro", "llama-3.1-70b"} {
		e, err := recap.EstimatorForModel(model)
		if errors.Is(err, recap.ErrUnknownEncoding) {
			fmt.Println(model, "unknown")
			continue
		}
		fmt.Println(model, e.Family(), e.Exact(), e.MessageOverhead(), e.RequestOverhead(),
			e.CountTokens("Summarize our trip plans so far, please."))
	}

	// Output:
	// gpt-4o openai true 4 3 11
	// anthropic/claude-sonnet-4.5 claude false 3 6 13
	// models/gemini-2.5-pro gemini false 0 0 13
	// llama-3.1-70b unknown
}
