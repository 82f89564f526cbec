// Package llm holds what the adapters (and the server) share: their
// configuration, its checks, the output limit of a request, exact
// encoding of the SDKs' unions, a tool call's input as JSON, and a
// response's Retry-After.
package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

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

// InputJSON returns the JSON text of tool call p's Input: trimmed, and
// unquoted when the input travelled as a string (WireString, as OpenAI's
// arguments do). It may be empty, "null" or not an object: the caller
// knows what its API accepts.
func InputJSON(p recap.Part) []byte {
	in := bytes.TrimSpace(p.Input)
	if p.Wire == recap.WireString {
		var s string
		if json.Unmarshal(in, &s) == nil {
			in = []byte(s)
		}
	}
	return in
}

// RetryAfter returns the delay a response header asks for before the
// next request, relative to now: Retry-After-Ms, or Retry-After in
// seconds or as an HTTP date (0 once passed). It reports false when there
// is none, or a value it cannot read or beyond reason (negative, or
// seconds of 1e9 and more).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 && ms < 1e12 {
		return time.Duration(ms * float64(time.Millisecond)), true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if sec, err := strconv.ParseFloat(v, 64); err == nil {
		if sec >= 0 && sec < 1e9 {
			return time.Duration(sec * float64(time.Second)), true
		}
		return 0, false
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Summary returns a model's answer text as the summary, white space
// trimmed; an answer of white space only is an error matching
// recap.ErrEmptySummary, prefixed with pkg, never an empty summary.
func Summary(pkg, text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fmt.Errorf("%s: %w", pkg, recap.ErrEmptySummary)
	}
	return text, nil
}

// Settings is what an adapter's options set: its Config, and the names of
// the options given that build a client (WithBaseURL, WithMaxRetries,
// WithHTTPClient), which NewWithClient refuses. An adapter's config embeds
// it; each of its exported options sets one field, through these methods
// for those that build a client.
type Settings struct {
	Config
	ClientOptions []string
}

// SetBaseURL is WithBaseURL's.
func (s *Settings) SetBaseURL(url string) {
	s.BaseURL = url
	s.ClientOptions = append(s.ClientOptions, "WithBaseURL")
}

// SetMaxRetries is WithMaxRetries'.
func (s *Settings) SetMaxRetries(n int) {
	s.Retries = n
	s.ClientOptions = append(s.ClientOptions, "WithMaxRetries")
}

// SetHTTPClient is WithHTTPClient's.
func (s *Settings) SetHTTPClient(hc *http.Client) {
	s.HTTPClient = hc
	s.ClientOptions = append(s.ClientOptions, "WithHTTPClient")
}

// Apply applies opts to cfg, the adapter's config, whose Settings is s,
// refusing a nil Option, and checks s.Config. Its errors are prefixed with
// pkg, or wrap invalid (the adapter's ErrInvalidOption) when it is not nil.
func Apply[C any, O ~func(*C)](pkg string, invalid error, cfg *C, s *Settings, opts []O) error {
	for _, o := range opts {
		if o == nil {
			return optionError(pkg, invalid, "nil Option")
		}
		o(cfg)
	}
	if err := s.Check(pkg); err != nil {
		return optionError(pkg, invalid, strings.TrimPrefix(err.Error(), pkg+": "))
	}
	return nil
}

// RefuseClientOptions returns NewWithClient's error when options that
// build a client were given, or nil.
func (s Settings) RefuseClientOptions(pkg string, invalid error) error {
	if len(s.ClientOptions) == 0 {
		return nil
	}
	return optionError(pkg, invalid, "NewWithClient: "+strings.Join(s.ClientOptions, ", ")+
		" configure a client: configure the client you pass instead")
}

// optionError is an option's error: "pkg: msg", or wrapping invalid.
func optionError(pkg string, invalid error, msg string) error {
	if invalid != nil {
		return fmt.Errorf("%w: %s", invalid, msg)
	}
	return fmt.Errorf("%s: %s", pkg, msg)
}
