package main

import (
	"testing"

	"github.com/recapgo/recap/examples/anthropic"
	"github.com/recapgo/recap/examples/gemini"
	"github.com/recapgo/recap/examples/openai"
	"github.com/recapgo/recap/internal/setup"
)

// The default models that setup names (and the CLI, which links no SDK,
// uses) are the adapters'.
func TestDefaultModels(t *testing.T) {
	for _, tt := range []struct{ setup, adapter string }{
		{setup.DefaultOpenAIModel, openai.DefaultModel},
		{setup.DefaultAnthropicModel, string(anthropic.DefaultModel)},
		{setup.DefaultGeminiModel, gemini.DefaultModel},
	} {
		if tt.setup != tt.adapter {
			t.Errorf("setup's default model %q, the adapter's %q", tt.setup, tt.adapter)
		}
	}
}
