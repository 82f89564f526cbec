// Package openai is a [recap.Summarizer] on OpenAI's Chat Completions API
// (github.com/openai/openai-go/v3), for OpenAI or any compatible server
// (vLLM, Ollama, LM Studio, Azure's compatible endpoint...) through
// WithBaseURL.
//
// The prompt is recap's [recap.RenderPrompt]: the previous summary and the
// new messages, delimited and declared as data. Requests that fail with 408,
// 409, 429 or a 5xx status, or on the network, are retried with exponential
// backoff that honours Retry-After (and Retry-After-Ms), by the SDK;
// cancelling the context stops both the request and the wait.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/recapgo/recap"
)

// Defaults of the options.
const (
	DefaultModel           = "gpt-4o-mini"
	DefaultMaxOutputTokens = 1024
	DefaultMaxRetries      = 3
)

// ErrTruncated reports a summary cut off at the output token limit, which
// recap must not store as if it were whole.
var ErrTruncated = errors.New("openai: summary truncated at the output token limit")

// Summarizer summarizes with an OpenAI chat model. It is safe for
// concurrent use.
type Summarizer struct {
	client       oai.Client
	model        string
	maxOutput    int
	temperature  *float64
	instructions string
}

type config struct {
	baseURL      string
	model        string
	maxOutput    int
	temperature  *float64
	retries      int
	httpClient   *http.Client
	instructions string
}

// An Option configures a Summarizer.
type Option func(*config)

// WithBaseURL sends requests to an OpenAI-compatible server, such as
// "http://localhost:11434/v1". The default is OpenAI's API.
func WithBaseURL(url string) Option { return func(c *config) { c.baseURL = url } }

// WithModel sets the model. The default is DefaultModel.
func WithModel(model string) Option { return func(c *config) { c.model = model } }

// WithMaxOutputTokens bounds the summary's length as the model counts it
// (max_completion_tokens). A request's MaxTokens, when smaller, wins. The
// default is DefaultMaxOutputTokens.
func WithMaxOutputTokens(n int) Option { return func(c *config) { c.maxOutput = n } }

// WithTemperature sets the sampling temperature. The default is the
// model's.
func WithTemperature(t float64) Option { return func(c *config) { c.temperature = &t } }

// WithMaxRetries sets how often a failed request is retried. The default
// is DefaultMaxRetries.
func WithMaxRetries(n int) Option { return func(c *config) { c.retries = n } }

// WithHTTPClient sets the HTTP client. The default is http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithInstructions replaces recap.DefaultInstructions as the system prompt.
func WithInstructions(s string) Option { return func(c *config) { c.instructions = s } }

// New returns a Summarizer that authenticates with apiKey. It reads no
// environment variable: every setting comes from its arguments.
func New(apiKey string, opts ...Option) (*Summarizer, error) {
	cfg := config{model: DefaultModel, maxOutput: DefaultMaxOutputTokens, retries: DefaultMaxRetries}
	for _, o := range opts {
		o(&cfg)
	}
	switch {
	case cfg.model == "":
		return nil, errors.New("openai: empty model")
	case cfg.maxOutput < 1:
		return nil, fmt.Errorf("openai: max output tokens %d is not positive", cfg.maxOutput)
	case cfg.retries < 0:
		return nil, fmt.Errorf("openai: max retries %d is negative", cfg.retries)
	}
	ropts := []option.RequestOption{option.WithAPIKey(apiKey), option.WithMaxRetries(cfg.retries)}
	if cfg.baseURL != "" {
		ropts = append(ropts, option.WithBaseURL(cfg.baseURL))
	}
	if cfg.httpClient != nil {
		ropts = append(ropts, option.WithHTTPClient(cfg.httpClient))
	}
	return &Summarizer{
		// NewClient's defaults read OPENAI_* variables; the options
		// after them override every one that matters here.
		client:       oai.NewClient(ropts...),
		model:        cfg.model,
		maxOutput:    cfg.maxOutput,
		temperature:  cfg.temperature,
		instructions: cfg.instructions,
	}, nil
}

// Summarize asks the model to merge req.Previous and req.Messages. An API
// error keeps the server's status and message (see *oai.Error); a summary
// cut off at the token limit is ErrTruncated.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	p := recap.RenderPrompt(req, s.instructions)
	max := s.maxOutput
	if req.MaxTokens > 0 && req.MaxTokens < max {
		max = req.MaxTokens
	}
	params := oai.ChatCompletionNewParams{
		Model: s.model,
		Messages: []oai.ChatCompletionMessageParamUnion{
			oai.SystemMessage(p.System),
			oai.UserMessage(p.User),
		},
		MaxCompletionTokens: oai.Int(int64(max)),
	}
	if s.temperature != nil {
		params.Temperature = oai.Float(*s.temperature)
	}
	resp, err := s.client.Chat.Completions.New(ctx, params)
	if err != nil {
		// The SDK's message is the status alone; keep the server's words.
		var apiErr *oai.Error
		if errors.As(err, &apiErr) && apiErr.Message != "" {
			return "", fmt.Errorf("openai: %w: %s (%s)", err, apiErr.Message, apiErr.Code)
		}
		return "", fmt.Errorf("openai: %w", err)
	}
	if len(resp.Choices) == 0 {
		return "", errors.New("openai: response has no choices")
	}
	choice := resp.Choices[0]
	if choice.FinishReason == "length" {
		return "", ErrTruncated
	}
	if choice.Message.Refusal != "" {
		return "", fmt.Errorf("openai: model refused: %s", choice.Message.Refusal)
	}
	return strings.TrimSpace(choice.Message.Content), nil
}
