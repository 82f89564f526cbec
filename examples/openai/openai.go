// Package openai is a [recap.Summarizer] on OpenAI's Chat Completions API
// (github.com/openai/openai-go/v3), for OpenAI or any compatible server
// (vLLM, Ollama, LM Studio, Azure's compatible endpoint...) through
// WithBaseURL.
//
// The prompt is recap's [recap.RenderPrompt]: the previous summary and the
// new messages, delimited and declared as data. Requests that fail with 408,
// 409, 429 or a 5xx status, or on the network, are retried with exponential
// backoff that honours Retry-After (and Retry-After-Ms), by the SDK;
// cancelling the context stops both the request and the wait. New builds
// the SDK client; NewWithClient takes one the caller configured (Azure,
// a proxy, tracing middleware).
//
// The package also converts a backend's own chat to recap's messages and
// a payload back, losslessly: Chat Completions messages with
// [FromChatCompletion] and [ToChatCompletion], Responses API input items
// with [FromResponsesInput] and [ToResponsesInput]. The conversions are
// pure functions: no network, no state.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/llm"
)

// Defaults of the options.
const (
	DefaultModel           = "gpt-4o-mini"
	DefaultMaxOutputTokens = 1024
	DefaultMaxRetries      = 3
	DefaultBaseURL         = "https://api.openai.com/v1/"
)

// ErrTruncated reports a summary cut off at the output token limit, which
// recap must not store as if it were whole.
var ErrTruncated = errors.New("openai: summary truncated at the output token limit")

// Summarizer summarizes with an OpenAI chat model. It is safe for
// concurrent use.
type Summarizer struct {
	client  oai.Client
	cfg     llm.Config
	reqOpts []option.RequestOption // applied to every request
}

// config is what the options set.
type config struct {
	llm.Settings
	reqOpts []option.RequestOption
}

// An Option configures a Summarizer.
type Option func(*config)

// WithBaseURL sends requests to an OpenAI-compatible server, such as
// "http://localhost:11434/v1". The default is OpenAI's API.
func WithBaseURL(url string) Option {
	return func(c *config) { c.SetBaseURL(url) }
}

// WithModel sets the model. The default is DefaultModel.
func WithModel(model string) Option { return func(c *config) { c.Model = model } }

// WithMaxOutputTokens bounds the summary's length as the model counts it
// (max_completion_tokens). A request's MaxTokens, when smaller, wins. The
// default is DefaultMaxOutputTokens.
func WithMaxOutputTokens(n int) Option { return func(c *config) { c.MaxOutput = n } }

// WithTemperature sets the sampling temperature. The default is the
// model's.
func WithTemperature(t float64) Option { return func(c *config) { c.Temperature = &t } }

// WithMaxRetries sets how often a failed request is retried. The default
// is DefaultMaxRetries.
func WithMaxRetries(n int) Option {
	return func(c *config) { c.SetMaxRetries(n) }
}

// WithHTTPClient sets the HTTP client. The default is http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.SetHTTPClient(hc) }
}

// WithInstructions replaces recap.DefaultInstructions as the system prompt.
func WithInstructions(s string) Option { return func(c *config) { c.Instructions = s } }

// WithRequestOptions adds request options of the SDK (headers, middleware
// for tracing or signing, a timeout, extra query parameters...) to every
// request, after the client's own. Of several WithRequestOptions, all
// apply, in order.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.reqOpts = append(c.reqOpts, opts...) }
}

// New returns a Summarizer that authenticates with apiKey, at
// DefaultBaseURL unless WithBaseURL says otherwise. The key, the base URL
// and the retries are set explicitly; the SDK's client still reads
// OPENAI_ORG_ID, OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS from the environment. To use a client of your own (Azure, a
// proxy, your middleware), see NewWithClient.
func New(apiKey string, opts ...Option) (*Summarizer, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL // set, so that the SDK's own variable cannot redirect it
	}
	ropts := []option.RequestOption{option.WithAPIKey(apiKey), option.WithMaxRetries(cfg.Retries), option.WithBaseURL(cfg.BaseURL)}
	if cfg.HTTPClient != nil {
		ropts = append(ropts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Summarizer{client: oai.NewClient(ropts...), cfg: cfg.Config, reqOpts: cfg.reqOpts}, nil
}

// NewWithClient returns a Summarizer that sends its requests through
// client, as the caller configured it: its authentication, base URL,
// HTTP client, retries and middleware. The options that would build a
// client (WithBaseURL, WithHTTPClient, WithMaxRetries) are an error here:
// configure the client instead, or pass request options with
// WithRequestOptions. A zero Client, not made by oai.NewClient, is an
// error too: it has no base URL to send to.
func NewWithClient(client oai.Client, opts ...Option) (*Summarizer, error) {
	if client.Options == nil {
		return nil, errors.New("openai: NewWithClient: a zero client: make it with oai.NewClient")
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := cfg.RefuseClientOptions("openai", nil); err != nil {
		return nil, err
	}
	return &Summarizer{client: client, cfg: cfg.Config, reqOpts: cfg.reqOpts}, nil
}

// newConfig applies opts to the defaults and checks the result.
func newConfig(opts []Option) (config, error) {
	cfg := config{Settings: llm.Settings{Config: llm.Config{Model: DefaultModel, MaxOutput: DefaultMaxOutputTokens, Retries: DefaultMaxRetries}}}
	if err := llm.Apply("openai", nil, &cfg, &cfg.Settings, opts); err != nil {
		return config{}, err
	}
	return cfg, nil
}

// Summarize asks the model to merge req.Previous and req.Messages. An API
// error keeps the server's status and message (see *oai.Error); a summary
// cut off at the token limit is ErrTruncated.
func (s *Summarizer) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	p := recap.RenderPrompt(req, s.cfg.Instructions)
	max := s.cfg.OutputLimit(req)
	params := oai.ChatCompletionNewParams{
		Model: s.cfg.Model,
		Messages: []oai.ChatCompletionMessageParamUnion{
			oai.SystemMessage(p.System),
			oai.UserMessage(p.User),
		},
		MaxCompletionTokens: oai.Int(int64(max)),
	}
	if s.cfg.Temperature != nil {
		params.Temperature = oai.Float(*s.cfg.Temperature)
	}
	resp, err := s.client.Chat.Completions.New(ctx, params, s.reqOpts...)
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
	return llm.Summary("openai", choice.Message.Content)
}
