// Package llm holds what the OpenAI and Anthropic summarizers share: their
// configuration, its checks, and the output limit of a request.
package llm

import (
	"fmt"
	"net/http"

	"github.com/recapgo/recap"
)

// Config configures an LLM summarizer. Zero fields mean the SDK's or the
// API's default, except Model, MaxOutput and Retries, which the adapter
// presets.
type Config struct {
	BaseURL      string
	Model        string
	MaxOutput    int      // the summary's token limit, as the model counts
	Temperature  *float64 // nil: the model's default
	Retries      int
	HTTPClient   *http.Client
	Instructions string // "" for recap.DefaultInstructions
}

// Check returns an error, prefixed with pkg, for a setting no request
// could use.
func (c Config) Check(pkg string) error {
	switch {
	case c.Model == "":
		return fmt.Errorf("%s: empty model", pkg)
	case c.MaxOutput < 1:
		return fmt.Errorf("%s: max output tokens %d is not positive", pkg, c.MaxOutput)
	case c.Retries < 0:
		return fmt.Errorf("%s: max retries %d is negative", pkg, c.Retries)
	}
	return nil
}

// OutputLimit returns the output token limit of req: MaxOutput, or
// req.MaxTokens when it is set and smaller.
func (c Config) OutputLimit(req recap.SummarizeRequest) int {
	if req.MaxTokens > 0 && req.MaxTokens < c.MaxOutput {
		return req.MaxTokens
	}
	return c.MaxOutput
}
