package anthropic_test

import (
	"context"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/anthropic"
	"github.com/recapgo/recap/internal/apitest"
)

// TestCountTokens: the payload goes to messages/count_tokens in the
// Messages API's form (system blocks without the cache breakpoint,
// messages, the params' model and tools), and the count comes back; an
// API error is an error.
func TestCountTokens(t *testing.T) {
	s := apitest.New(t, "/v1/messages/count_tokens",
		apitest.Response{Status: 200, Body: `{"input_tokens":1234}`},
		apitest.Response{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"model: not found"}}`})
	client := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL(s.URL), option.WithMaxRetries(0))
	payload, err := anthropic.FromMessages(system, agentChat(2))
	if err != nil {
		t.Fatal(err)
	}
	params := sdk.MessageCountTokensParams{Model: "claude-sonnet-4-5", Tools: []sdk.MessageCountTokensToolUnionParam{
		{OfTool: &sdk.ToolParam{Name: "weather", InputSchema: sdk.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}}}
	n, err := anthropic.CountTokens(context.Background(), client, params, payload)
	if err != nil || n != 1234 {
		t.Fatalf("CountTokens = %d, %v; want 1234", n, err)
	}
	body := s.Body(0)
	if body["model"] != "claude-sonnet-4-5" || len(body["tools"].([]any)) != 1 || len(body["messages"].([]any)) != 8 || len(body["system"].([]any)) != 2 {
		t.Errorf("request: %v", body)
	}
	for _, b := range body["system"].([]any) {
		if b.(map[string]any)["text"] == "You are a travel agent." && b.(map[string]any)["cache_control"] != nil {
			t.Errorf("breakpoint added to a count: %v", b)
		}
	}
	checkRequest(t, body)
	if _, err := anthropic.CountTokens(context.Background(), client, params, payload); err == nil {
		t.Error("a 400 was not an error")
	}
	// A payload with no Messages API form fails before any request.
	bad := []recap.Message{{ID: "u", Role: recap.RoleUser, Content: "hi"}, {ID: "s", Role: recap.RoleSystem, Content: "late"}}
	if _, err := anthropic.CountTokens(context.Background(), client, params, bad); err == nil || s.Requests.Load() != 2 {
		t.Errorf("CountTokens(bad) = %v after %d requests", err, s.Requests.Load())
	}
}

func TestReportedTokens(t *testing.T) {
	u := sdk.Usage{InputTokens: 12, CacheCreationInputTokens: 1000, CacheReadInputTokens: 3000, OutputTokens: 50}
	if got := anthropic.ReportedTokens(u); got != 4012 {
		t.Errorf("ReportedTokens = %d, want 4012", got)
	}
}
