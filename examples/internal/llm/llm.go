// Package llm holds what the OpenAI and Anthropic adapters share: their
// configuration, its checks, the output limit of a request, and exact
// encoding of the SDKs' unions.
package llm

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"

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

// ExactUnion makes the SDK union *u, decoded from data, encode to data
// itself: the SDKs decode only the members they know, and of several
// variants of one shape pick the first (an OpenAI output message decodes
// as an easy input message, losing its id and status). The variant that
// was decoded stays set, for reading, and is told by setJSON (the SDK's
// param.SetJSON, whose parameter is an unexported interface that every
// variant implements) to send data as it is. It does nothing to a union
// with no variant set.
func ExactUnion(u any, data []byte, setJSON any) {
	v := reflect.ValueOf(u).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() && strings.HasPrefix(v.Type().Field(i).Name, "Of") {
			reflect.ValueOf(setJSON).Call([]reflect.Value{reflect.ValueOf(data), f})
			return
		}
	}
}

// HasToolResult reports whether m has a tool result part: what a tool
// message must hold to have a form in a provider's API.
func HasToolResult(m recap.Message) bool {
	for _, p := range m.Parts {
		if p.Type == recap.PartToolResult {
			return true
		}
	}
	return false
}
