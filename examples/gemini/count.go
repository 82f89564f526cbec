package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recapgo/recap"
	"google.golang.org/genai"
)

// CountTokens counts, on the models.countTokens endpoint (free of
// charge), the input tokens of a request of payload to model: its system
// instruction and contents (see ToContents), exactly as the model counts
// them. The SDK sends no system instruction to the Gemini Developer API's
// countTokens, so there the request is sent as the endpoint's
// generateContentRequest, which takes one; on Vertex AI the SDK sends it.
// Tools are not counted.
//
// It takes a context and can fail, so it is not a recap.TokenCounter: feed
// what it returns to a [recap.Calibrator], which corrects the counter a
// Compressor uses:
//
//	n, err := gemini.CountTokens(ctx, client, model, res.Payload)
//	if err == nil {
//		cal.Observe(model, recap.Usage{Payload: res.Payload, Reported: n})
//	}
func CountTokens(ctx context.Context, client *genai.Client, model string, payload []recap.Message) (int, error) {
	if client == nil {
		return 0, fmt.Errorf("gemini: count tokens: nil client")
	}
	system, contents, err := ToContents(payload)
	if err != nil {
		return 0, err
	}
	config := &genai.CountTokensConfig{}
	if system != nil {
		if client.ClientConfig().Backend == genai.BackendVertexAI {
			config.SystemInstruction = system
		} else {
			data, err := json.Marshal(system)
			if err != nil {
				return 0, fmt.Errorf("gemini: count tokens: %w", err)
			}
			var sys map[string]any
			if err := json.Unmarshal(data, &sys); err != nil {
				return 0, fmt.Errorf("gemini: count tokens: %w", err)
			}
			name := model
			if !strings.HasPrefix(name, "models/") {
				name = "models/" + name
			}
			config.HTTPOptions = &genai.HTTPOptions{ExtrasRequestProvider: func(body map[string]any) map[string]any {
				return map[string]any{"generateContentRequest": map[string]any{
					"model": name, "contents": body["contents"], "systemInstruction": sys,
				}}
			}}
		}
	}
	res, err := client.Models.CountTokens(ctx, model, contents, config)
	if err != nil {
		return 0, fmt.Errorf("gemini: count tokens: %w", err)
	}
	return int(res.TotalTokens), nil
}

// ReportedTokens returns the input tokens that a response's usage says
// were billed (promptTokenCount, cached tokens included, plus the tokens
// of tool-use prompts): what a [recap.Usage]'s Reported is for Gemini.
func ReportedTokens(u *genai.GenerateContentResponseUsageMetadata) int {
	if u == nil {
		return 0
	}
	return int(u.PromptTokenCount + u.ToolUsePromptTokenCount)
}
