package chatapi

import (
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/setup"
)

// The OpenAI-compatible endpoints of Anthropic and Gemini, under the roots
// that RECAP_ANTHROPIC_BASE_URL and RECAP_GEMINI_BASE_URL name (as for
// their SDKs).
const (
	AnthropicBaseURL = "https://api.anthropic.com"
	AnthropicPath    = "/v1"
	GeminiBaseURL    = "https://generativelanguage.googleapis.com"
	GeminiPath       = "/v1beta/openai"
)

// ForLLM returns the Summarizer of the LLM the environment chose (see
// setup.Choose), on its OpenAI-compatible endpoint: an OpenAI-compatible
// server at its base URL; Anthropic and Gemini at AnthropicPath and
// GeminiPath under their root (a base URL that already ends with that
// path is taken as it is).
func ForLLM(l setup.LLM) (recap.Summarizer, error) {
	cfg := Config{Key: l.Key, Model: l.Model, BaseURL: l.BaseURL, Retries: l.MaxRetries}
	switch l.Provider {
	case setup.Anthropic:
		cfg.BaseURL, cfg.TokenField = under(l.BaseURL, AnthropicBaseURL, AnthropicPath), "max_tokens"
	case setup.Gemini:
		cfg.BaseURL, cfg.TokenField = under(l.BaseURL, GeminiBaseURL, GeminiPath), "max_tokens"
	}
	return New(cfg)
}

// under returns root (or def when root is "") with path appended, unless
// it already ends with path.
func under(root, def, path string) string {
	if root == "" {
		root = def
	}
	root = strings.TrimSuffix(root, "/")
	if strings.HasSuffix(root, path) {
		return root
	}
	return root + path
}
