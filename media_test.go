package recap

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// screenshot is base64 that would count thousands of tokens as text.
var screenshot = strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg", 200)

// TestToolMedia: media in a tool's output, in each provider's shape, is
// an attachment note in Text and costs the media rule; other JSON is
// left as it is.
func TestToolMedia(t *testing.T) {
	for _, tt := range []struct {
		name   string
		output string
		wire   WireForm
		text   string   // Text of the output
		types  []string // media counted
	}{
		{
			name:   "anthropic base64 image",
			output: `[{"type":"text","text":"done"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + screenshot + `"}}]`,
			text:   `[{"type":"text","text":"done"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"[attachment: image/png]"}}]`,
			types:  []string{"image/png"},
		},
		{
			name:   "anthropic url image",
			output: `[{"type":"image","source":{"type":"url","url":"https://example.com/a.jpg"}}]`,
			text:   `[{"type":"image","source":{"type":"url","url":"https://example.com/a.jpg"}}]`,
			types:  []string{"image/*"},
		},
		{
			name:   "an image's caption stays",
			output: `{"results":[{"type":"image","url":"https://example.com/cat.png","caption":"A cat on a mat"}]}`,
			text:   `{"results":[{"type":"image","url":"https://example.com/cat.png","caption":"A cat on a mat"}]}`,
			types:  []string{"image/*"},
		},
		{
			name:   "MCP image and blob",
			output: `{"content":[{"type":"image","data":"` + screenshot + `","mimeType":"image/jpeg"},{"type":"resource","resource":{"uri":"file:///a.pdf","blob":"` + screenshot + `","mimeType":"application/pdf"}}],"isError":false}`,
			text: `{"content":[{"type":"image","data":"[attachment: image/jpeg]","mimeType":"image/jpeg"},` +
				`{"type":"resource","resource":{"uri":"file:///a.pdf","blob":"[attachment: application/pdf]","mimeType":"application/pdf"}}],"isError":false}`,
			types: []string{"image/jpeg", "application/pdf"},
		},
		{
			name:   "AI SDK content output",
			output: `{"type":"content","value":[{"type":"text","text":"Screenshot taken"},{"type":"media","data":"` + screenshot + `","mediaType":"image/png"}]}`,
			text:   `{"type":"content","value":[{"type":"text","text":"Screenshot taken"},{"type":"media","data":"[attachment: image/png]","mediaType":"image/png"}]}`,
			types:  []string{"image/png"},
		},
		{
			name:   "Gemini inline data",
			output: `{"parts":[{"inlineData":{"mimeType":"image/webp","data":"` + screenshot + `"}}]}`,
			text:   `{"parts":[{"inlineData":{"mimeType":"image/webp","data":"[attachment: image/webp]"}}]}`,
			types:  []string{"image/webp"},
		},
		{
			name:   "Responses input_image data URL",
			output: `[{"type":"input_image","image_url":"data:image/png;base64,` + screenshot + `"}]`,
			text:   `[{"type":"input_image","image_url":"[attachment: image/png]"}]`,
			types:  []string{"image/png"},
		},
		{
			name:   "data URL in a field",
			output: `{"ok":true,"shot":"data:image/gif;base64,` + screenshot + `","n":1.50}`,
			text:   `{"ok":true,"shot":"[attachment: image/gif]","n":1.50}`,
			types:  []string{"image/gif"},
		},
		{
			name:   "string data URL",
			output: `"data:image/png;base64,` + screenshot + `"`,
			wire:   WireString,
			text:   `[attachment: image/png]`,
			types:  []string{"image/png"},
		},
		{
			name:   "string of JSON with an image",
			output: mustJSON(`{"image":{"mime_type":"image/png","base64":"` + screenshot + `"},"note":"<b>&</b>"}`),
			wire:   WireString,
			text:   `{"image":{"mime_type":"image/png","base64":"[attachment: image/png]"},"note":"<b>&</b>"}`,
			types:  []string{"image/png"},
		},
		{
			name:   "text document stays text",
			output: `[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"the minutes"}}]`,
			text:   `[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"the minutes"}}]`,
		},
		{
			name:   "ordinary data",
			output: `{"data": {"rows": [1, 2], "imageCount": 3}, "mediaType": "report"}`,
			text:   `{"data":{"rows":[1,2],"imageCount":3},"mediaType":"report"}`,
		},
		{
			name:   "a type named image without a source is an image",
			output: `{"type":"image"}`,
			text:   `{"type":"image"}`,
			types:  []string{"image/*"},
		},
		{
			name:   "not JSON",
			output: `data:image/png;base64,AAAA`,
			wire:   WireString,
			text:   `data:image/png;base64,AAAA`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := json.RawMessage(tt.output)
			if tt.name == "not JSON" {
				out, _ = json.Marshal(tt.output)
				tt.text, tt.types = "[attachment: image/png]", []string{"image/png"}
			}
			m := Message{ID: "t1", Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "c1", Output: out, Wire: tt.wire}}}
			if got := m.Text(); got != tt.text {
				t.Errorf("Text = %s\nwant   %s", got, tt.text)
			}
			var types []string
			m.text(&types)
			if diff := cmp.Diff(tt.types, types); diff != "" {
				t.Errorf("media (-want +got):\n%s", diff)
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestToolMediaCounted: a chat whose tool returns screenshots counts each
// as the media rule, so that a ceiling built for images holds, and the
// Summarizer never reads the bytes.
func TestToolMediaCounted(t *testing.T) {
	ctx := context.Background()
	var seen []string
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		for _, m := range req.Messages {
			seen = append(seen, m.Text())
		}
		return "the agent took screenshots", nil
	})
	shot := json.RawMessage(`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + screenshot + `"}}]`)
	var chat []Message
	for i := 0; i < 6; i++ {
		id := string(rune('a' + i))
		chat = append(chat,
			Message{ID: "u" + id, Role: RoleUser, Content: "take a screenshot"},
			Message{ID: "c" + id, Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "k" + id, ToolName: "screenshot", Input: json.RawMessage(`{}`)}}},
			Message{ID: "r" + id, Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "k" + id, ToolName: "screenshot", Output: shot}}},
			Message{ID: "a" + id, Role: RoleAssistant, Content: "here it is"})
	}
	chat = append(chat, Message{ID: "uz", Role: RoleUser, Content: "thanks"})
	c := mustNew(t, sum, NewMemoryStore(), WithMediaTokens("image/*", 50), WithTriggerTokens(400), WithMaxPayloadTokens(600))
	res, err := c.Compress(ctx, "c", chat)
	if err != nil || res.Err != nil {
		t.Fatalf("Compress: %v %v", err, res.Err)
	}
	// The base64 alone is 19,800 words; as attachments the chat is small.
	if res.Tokens > 1000 {
		t.Errorf("chat of 6 screenshots counts %d tokens, want the media rule's 50 each", res.Tokens)
	}
	wantOne := words.CountTokens(`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"[attachment: image/png]"}}]`) +
		words.CountTokens("screenshot") + 50
	if got := c.sizes(chat[2:3])[0]; got != wantOne {
		t.Errorf("a screenshot result counts %d, want %d", got, wantOne)
	}
	for _, s := range seen {
		if strings.Contains(s, screenshot[:40]) {
			t.Fatalf("the Summarizer read the base64: %.80s", s)
		}
	}
}

// FuzzElideMedia: for any JSON, what elideMedia returns is JSON; without
// media it is the input itself; and a second pass changes nothing more
// and finds the same media (image blocks stay, and count again).
func FuzzElideMedia(f *testing.F) {
	f.Add(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}`)
	f.Add(`[{"type":"input_image","image_url":"data:image/png;base64,AAAA"},{"mimeType":"x/y","blob":"Zm9v"}]`)
	f.Add(`{"a":"data:;base64,","b":[1e3,-0.5,null,true],"\u00e9":"<>&"}`)
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		out, types := elideMedia([]byte(s))
		if !json.Valid(out) {
			t.Fatalf("elideMedia(%s) = %s, not JSON", s, out)
		}
		if len(types) == 0 && string(out) != s {
			t.Fatalf("elideMedia(%s) changed it to %s without media", s, out)
		}
		if again, more := elideMedia(out); string(again) != string(out) || len(more) > len(types) {
			t.Fatalf("a second pass over %s found %v (the first %v): %s", out, more, types, again)
		}
	})
}

// TestMeasure: Measure counts each message's text, its attachments (file
// parts and media in tool results) and the message overhead, and a
// Result's PayloadTokens is Measure of its Payload.
func TestMeasure(t *testing.T) {
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithMediaTokens("image/*", 70), WithMediaTokens("*", 500), WithMessageOverhead(4))
	msgs := []Message{
		{ID: "u1", Role: RoleUser, Parts: []Part{{Type: PartText, Text: "look at this"}, {Type: PartFile, MediaType: "image/png", URL: "data:image/png;base64,AAAA"}}},
		{ID: "a1", Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "k", ToolName: "shot", Input: json.RawMessage(`{}`)}}},
		{ID: "t1", Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "k", Output: json.RawMessage(`{"mimeType":"application/pdf","blob":"JVBERi0="}`)}}},
		{ID: "u2", Role: RoleUser, Content: "and now?"},
	}
	want := words.CountTokens("look at this\n[attachment: image/png]") + 70 + 4 +
		words.CountTokens("shot\n{}") + 4 +
		words.CountTokens(`{"mimeType":"application/pdf","blob":"[attachment: application/pdf]"}`) + 500 + 4 +
		words.CountTokens("and now?") + 4
	if got := c.Measure(msgs); got != want {
		t.Errorf("Measure = %d, want %d", got, want)
	}
	if got := c.Measure(nil); got != 0 {
		t.Errorf("Measure(nil) = %d", got)
	}
	res, err := c.Compress(context.Background(), "c", msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Measure(res.Payload); got != res.PayloadTokens {
		t.Errorf("Measure(Payload) = %d, PayloadTokens %d", got, res.PayloadTokens)
	}
}

// TestToolMediaCleared: clearing a screenshot's result saves its media
// cost and its text, not the tokens of its base64.
func TestToolMediaCleared(t *testing.T) {
	shot := json.RawMessage(`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + screenshot + `"}}]`)
	var chat []Message
	chat = append(chat, Message{ID: "u0", Role: RoleUser, Content: "check the screen every step"})
	for i := 0; i < 6; i++ {
		id := fmt.Sprint(i)
		chat = append(chat,
			Message{ID: "c" + id, Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "k" + id, ToolName: "screenshot", Input: json.RawMessage(`{}`)}}},
			Message{ID: "r" + id, Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "k" + id, ToolName: "screenshot", Output: shot}}})
	}
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithMediaTokens("image/*", 300), WithTriggerTokens(100000), WithToolResultClearing(1, 10))
	res, err := c.Compress(context.Background(), "c", chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cleared) == 0 {
		t.Fatal("no screenshot cleared")
	}
	want := words.CountTokens(`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"[attachment: image/png]"}}]`) + 300
	for _, r := range res.Cleared {
		if r.Tokens != want || r.Saved <= 0 || r.Saved >= want {
			t.Errorf("cleared %+v; want Tokens %d and part of it saved", r, want)
		}
	}
}
