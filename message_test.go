package recap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMessageUIMessageRoundTrip decodes a Vercel AI SDK UIMessage array with
// every kind of part and checks that encoding it again loses nothing.
func TestMessageUIMessageRoundTrip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "uimessages.json"))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("re-encoded UIMessages differ (-input +output):\n%s", diff)
	}

	// The modelled members land in their fields.
	a1 := msgs[2]
	if a1.ID != "msg-a1" || a1.Role != RoleAssistant || len(a1.Parts) != 9 {
		t.Fatalf("msg-a1 decoded as %+v", a1)
	}
	tool := a1.Parts[2]
	if !tool.IsTool() || tool.ToolCallID != "call_1" || tool.State != "output-available" || string(tool.Input) != `{ "city": "Lisbon", "days": 2 }` {
		t.Errorf("tool part decoded as %+v", tool)
	}
	if _, ok := tool.Extra["callProviderMetadata"]; !ok {
		t.Errorf("unmodelled member callProviderMetadata not kept in Extra: %v", tool.Extra)
	}
	if _, ok := a1.Extra["metadata"]; !ok {
		t.Errorf("message metadata not kept in Extra: %v", a1.Extra)
	}
	file := msgs[1].Parts[1]
	if file.Type != PartFile || file.MediaType != "application/pdf" || file.Filename != "budget.pdf" || !strings.HasPrefix(file.URL, "data:") {
		t.Errorf("file part decoded as %+v", file)
	}

	// A second round trip is byte-identical to the first.
	var again []Message
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	out2, err := json.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(out2) {
		t.Errorf("encoding is not stable:\n%s\n%s", out, out2)
	}
}

func TestMessageText(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		msg    Message
		want   string
	}{
		{"Content", "a plain message is its Content",
			Message{Content: "hello"}, "hello"},
		{"PartsWin", "Parts, when present, are the content and Content is ignored",
			Message{Content: "ignored", Parts: []Part{{Type: PartText, Text: "shown"}}}, "shown"},
		{"JoinedParts", "text-bearing parts are joined with a newline; empty ones are skipped",
			Message{Parts: []Part{{Type: PartText, Text: "a"}, {Type: PartText}, {Type: "step-start"}, {Type: PartReasoning, Text: "b"}}}, "a\nb"},
		{"ToolPart", "a tool part contributes its input, output and error text, as JSON",
			Message{Parts: []Part{{Type: "tool-weather", Input: json.RawMessage(`{"city":"Paris"}`), Output: json.RawMessage(`{"t":18}`)}}},
			"{\"city\":\"Paris\"}\n{\"t\":18}"},
		{"ToolError", "a failed tool call's error text counts",
			Message{Parts: []Part{{Type: PartDynamicTool, ToolName: "x", Input: json.RawMessage(`{}`), ErrorText: "timeout"}}}, "{}\ntimeout"},
		{"NullInput", "a null input contributes nothing",
			Message{Parts: []Part{{Type: PartToolCall, Input: json.RawMessage(`null`)}, {Type: PartText, Text: "t"}}}, "t"},
		{"ToolResult", "a tool-result part contributes its output",
			Message{Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "c", Output: json.RawMessage(` [1,2] `)}}}, "[1,2]"},
		{"FileOnly", "a file part has no text",
			Message{Parts: []Part{{Type: PartFile, URL: "data:x", MediaType: "image/png"}}}, ""},
		{"Empty", "an empty message has no text", Message{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.msg.Text(); got != tt.want {
				t.Errorf("%s: Text() = %q, want %q", tt.reason, got, tt.want)
			}
		})
	}
}

func TestMessageDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		json   string
	}{
		{"ContentBlocks", "OpenAI content blocks cannot be counted as they are: convert them first",
			`{"id":"1","role":"user","content":[{"type":"text","text":"hi"}]}`},
		{"NumericType", "a part type must be a string", `{"id":"1","role":"user","parts":[{"type":7}]}`},
		{"PartsNotArray", "parts must be an array", `{"id":"1","role":"user","parts":{"type":"text"}}`},
		{"NotObject", "a message is an object", `["id"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Message
			err := json.Unmarshal([]byte(tt.json), &m)
			if err == nil || !strings.HasPrefix(err.Error(), "recap: ") {
				t.Errorf("%s: err = %v, want a recap error", tt.reason, err)
			}
		})
	}
}

func TestMessageEncodeInvalidRaw(t *testing.T) {
	m := Message{ID: "1", Role: RoleUser, Parts: []Part{{Type: "tool-x", Input: json.RawMessage(`{oops`)}}}
	_, err := json.Marshal(m)
	if err == nil || !strings.Contains(err.Error(), `member "input"`) {
		t.Fatalf("encoding invalid raw JSON: err = %v, want one naming the member", err)
	}
}

func TestMessageEncodePlain(t *testing.T) {
	b, err := json.Marshal(Message{ID: "m1", Role: RoleUser, Content: "hi <there>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"m1","role":"user","content":"hi \u003cthere\u003e"}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
}
func BenchmarkMessageText(b *testing.B) {
	msgs := map[string]Message{
		"content":   {Content: "a plain message"},
		"stepText":  {Parts: []Part{{Type: "step-start"}, {Type: PartText, Text: "an AI SDK answer"}}},
		"toolParts": {Parts: []Part{{Type: "tool-x", Input: json.RawMessage(`{"a":1}`), Output: json.RawMessage(`{"b":2}`)}, {Type: PartText, Text: "done"}}},
	}
	for name, m := range msgs {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = m.Text()
			}
		})
	}
}
