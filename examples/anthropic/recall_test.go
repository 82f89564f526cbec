package anthropic_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/anthropic"
	"github.com/recapgo/recap/internal/apitest"
)

// TestRecallTool: the recall tool goes to the API in a request whose
// summary carries the hint; the model calls it; the Compressor's answer,
// from the messages the summary covers, goes back as the tool_result of
// the next request.
func TestRecallTool(t *testing.T) {
	ctx := context.Background()
	s := apitest.New(t, "/v1/messages",
		apitest.Response{Status: 200, Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"text","text":"Let me look that up."},{"type":"tool_use","id":"toolu_01","name":"recall","input":{"query":"flight booking code"}}],
			"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":300,"output_tokens":40}}`},
		apitest.Response{Status: 200, Body: message("The booking code is QX7-PLM2.", "end_turn")})
	client := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL(s.URL), option.WithMaxRetries(0))
	c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
		return "The user booked a flight to Lisbon on 12 May and a hotel in Alfama.", nil
	}), recap.NewMemoryStore(), recap.WithTriggerTokens(10), recap.WithWindowConversations(1), recap.WithRecallHint(recap.RecallHint))
	if err != nil {
		t.Fatal(err)
	}

	system := []sdk.TextBlockParam{{Text: "You are a travel agent."}}
	history := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("Book me the Lisbon flight on 12 May. The booking code is QX7-PLM2.")),
		sdk.NewAssistantMessage(sdk.NewTextBlock("Booked: Lisbon on 12 May.")),
		sdk.NewUserMessage(sdk.NewTextBlock("Now a hotel near Alfama for three nights.")),
		sdk.NewAssistantMessage(sdk.NewTextBlock("Booked the Memmo Alfama, 12 to 15 May.")),
		sdk.NewUserMessage(sdk.NewTextBlock("What was the booking code of the flight?")),
	}
	send := func() *sdk.Message {
		t.Helper()
		msgs, err := anthropic.FromMessages(system, history)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compress(ctx, "chat", msgs)
		if err != nil || res.Summary.IsZero() {
			t.Fatalf("Compress = %+v, %v", res, err)
		}
		sys, payload, err := anthropic.ToMessages(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		out, err := client.Messages.New(ctx, sdk.MessageNewParams{Model: sdk.ModelClaudeSonnet4_5, MaxTokens: 500,
			System: sys, Messages: payload, Tools: []sdk.ToolUnionParam{anthropic.RecallTool()}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	first := send()
	var schema any
	if err := json.Unmarshal(recap.RecallToolSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"name": recap.RecallToolName, "description": recap.RecallToolDescription, "input_schema": schema}}
	if diff := cmp.Diff(want, s.Body(0)["tools"]); diff != "" {
		t.Errorf("tools sent mismatch (-want +got):\n%s", diff)
	}
	blocks := s.Body(0)["system"].([]any)
	if summary := blocks[len(blocks)-1].(map[string]any)["text"].(string); !strings.HasSuffix(summary, "\n\n"+recap.RecallHint) {
		t.Errorf("summary block %q: want the hint", summary)
	}

	// The model calls the tool: answer it from the chat, with the call.
	var use sdk.ContentBlockUnion
	for _, b := range first.Content {
		if b.Type == "tool_use" {
			use = b
		}
	}
	if use.Name != recap.RecallToolName {
		t.Fatalf("reply %+v: want a call of the recall tool", first.Content)
	}
	history = append(history, first.ToParam())
	msgs, err := anthropic.FromMessages(system, history)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := c.AnswerRecall(ctx, "chat", msgs, use.Input)
	if err != nil || !strings.Contains(answer, "QX7-PLM2") {
		t.Fatalf("AnswerRecall = %q, %v; want the booking code", answer, err)
	}
	history = append(history, sdk.NewUserMessage(sdk.NewToolResultBlock(use.ID, answer, false)))

	final := send()
	if final.Content[0].Text != "The booking code is QX7-PLM2." {
		t.Errorf("final reply %+v", final.Content)
	}
	sent := s.Body(1)["messages"].([]any)
	last, before := sent[len(sent)-1].(map[string]any), sent[len(sent)-2].(map[string]any)
	result := last["content"].([]any)[0].(map[string]any)
	text := result["content"].([]any)[0].(map[string]any)["text"]
	if last["role"] != "user" || result["type"] != "tool_result" || result["tool_use_id"] != "toolu_01" || text != answer {
		t.Errorf("last message sent %v: want the answer as the tool_result", last)
	}
	if content := before["content"].([]any); before["role"] != "assistant" || content[len(content)-1].(map[string]any)["type"] != "tool_use" {
		t.Errorf("message before the result %v: want the assistant's tool_use", before)
	}
}
