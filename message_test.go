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
	for _, m := range msgs {
		if m.Format != FormatUI {
			t.Errorf("message %q decoded as %v, want FormatUI", m.ID, m.Format)
		}
	}
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
		{"ContentBesideParts", "Content comes first, then the parts' texts: no text goes uncounted",
			Message{Content: "first", Parts: []Part{{Type: PartText, Text: "second"}}}, "first\nsecond"},
		{"ContentBesideStepStart", "a long Content beside a step-start part counts",
			Message{Content: strings.Repeat("word ", 3), Parts: []Part{{Type: "step-start"}}}, "word word word "},
		{"JoinedParts", "text-bearing parts are joined with a newline; empty ones are skipped",
			Message{Parts: []Part{{Type: PartText, Text: "a"}, {Type: PartText}, {Type: "step-start"}, {Type: PartReasoning, Text: "b"}}}, "a\nb"},
		{"ToolPart", "a tool part contributes its tool's name, input, output and error text, as JSON",
			Message{Parts: []Part{{Type: "tool-weather", Input: json.RawMessage(`{"city":"Paris"}`), Output: json.RawMessage(`{"t":18}`)}}},
			"weather\n{\"city\":\"Paris\"}\n{\"t\":18}"},
		{"ToolError", "a failed tool call's error text counts",
			Message{Parts: []Part{{Type: PartDynamicTool, ToolName: "x", Input: json.RawMessage(`{}`), ErrorText: "timeout"}}}, "x\n{}\ntimeout"},
		{"NullInput", "a null input contributes nothing",
			Message{Parts: []Part{{Type: PartToolCall, Input: json.RawMessage(`null`)}, {Type: PartText, Text: "t"}}}, "t"},
		{"ToolResult", "a tool-result part contributes its output, compact",
			Message{Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "c", Output: json.RawMessage(` [1, 2] `)}}}, "[1,2]"},
		{"ToolCallName", "a tool-call part is named by ToolName, not by its type",
			Message{Parts: []Part{{Type: PartToolCall, ToolName: "book", Input: json.RawMessage(`{"id":1}`)}}}, "book\n{\"id\":1}"},
		{"WireString", "a WireString output is its string, as it is on the wire",
			Message{Parts: []Part{{Type: PartToolResult, Output: json.RawMessage(`"no \"rooms\""`), Wire: WireString}}}, `no "rooms"`},
		{"WireJSONTextString", "a JSON string carried as JSON text keeps its quotes",
			Message{Parts: []Part{{Type: PartToolResult, Output: json.RawMessage(`"hi"`)}}}, `"hi"`},
		{"InvalidJSON", "invalid JSON built in Go is counted as it is, trimmed",
			Message{Parts: []Part{{Type: PartToolCall, Input: json.RawMessage(` {"a": `)}}}, `{"a":`},
		{"FileNote", "a file part is noted with its media type and file name, never its URL",
			Message{Parts: []Part{{Type: PartFile, URL: "data:image/png;base64,AAAA", MediaType: "image/png", Filename: "photo.png"}}}, "[attachment: image/png photo.png]"},
		{"FileNoName", "what a file part lacks is left out of its note",
			Message{Parts: []Part{{Type: PartFile, URL: "https://x/y"}, {Type: PartImageURL, MediaType: "image/*"}}}, "[attachment]\n[attachment: image/*]"},
		{"Refusal", "a refusal counts, after Content",
			Message{Content: "c", Refusal: "no", Parts: []Part{{Type: PartRefusal, Text: "never"}}}, "c\nno\nnever"},
		{"SourceParts", "source and data parts have no text",
			Message{Parts: []Part{{Type: "source-url", URL: "https://x"}, {Type: "data-x", Extra: map[string]json.RawMessage{"data": json.RawMessage(`1`)}}}}, ""},
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

// TestMessageTextCompactJSON checks that a pretty-printed and a compact
// copy of the same tool input and output have the same Text, and that
// white space inside strings is kept.
func TestMessageTextCompactJSON(t *testing.T) {
	compact := `{"city":"São Paulo","n":{"k":[1,2.5,null,true]},"tags":["a b","\"q\" x"]}` // keys sorted, as MarshalIndent writes them
	var v any
	if err := json.Unmarshal([]byte(compact), &v); err != nil {
		t.Fatal(err)
	}
	pretty, err := json.MarshalIndent(v, "", "\t  ")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(in, out string) Message {
		return Message{Parts: []Part{
			{Type: "tool-search", Input: json.RawMessage(in), Output: json.RawMessage(out)},
			{Type: PartToolCall, ToolName: "x", Input: json.RawMessage(in), Wire: WireJSONText},
		}}
	}
	want := mk(compact, compact).Text()
	if got := mk(string(pretty), " \n"+string(pretty)+"\n").Text(); got != want {
		t.Errorf("pretty JSON: Text() = %q, want the compact %q", got, want)
	}
	if !strings.Contains(want, `"a b"`) {
		t.Errorf("Text() = %q lost the space inside a string", want)
	}
	for _, s := range []string{compact, string(pretty)} {
		if got := hasInsignificantSpace([]byte(s)); got != (s != compact) {
			t.Errorf("hasInsignificantSpace(%q) = %v", s, got)
		}
	}
}

func TestMessageDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		json   string
		want   string // in the error
	}{
		{"NumericContent", "content is a string, null or an array of objects",
			`{"role":"user","content":42}`, `member "content": want a string, null or an array of objects, got 42`},
		{"ObjectContent", "an object is not a content array",
			`{"id":"1","role":"user","content":{"type":"text"}}`, `member "content": want a string, null or an array of objects`},
		{"ContentOfStrings", "content blocks are objects",
			`{"role":"user","content":["hi"]}`, `member "content": want a string, null or an array of objects, got ["hi"]`},
		{"ToolContentNumber", "a tool message's content follows the same rule",
			`{"role":"tool","tool_call_id":"c","content":true}`, `member "content"`},
		{"UIContentArray", "a UIMessage's content is a string or null",
			`{"id":"1","role":"user","parts":[],"content":[{"type":"text"}]}`, `member "content": want a string or null`},
		{"NumericType", "a part type must be a string", `{"id":"1","role":"user","parts":[{"type":7}]}`, `part 0: member "type": want a string, got 7`},
		{"PartsNotArray", "parts must be an array", `{"id":"1","role":"user","parts":{"type":"text"}}`, `member "parts": want an array of objects`},
		{"PartNotObject", "a part is an object", `{"id":"1","role":"user","parts":[null]}`, `member "parts": want an array of objects, got null at 0`},
		{"NotObject", "a message is an object", `["id"]`, `recap: decode message: want a JSON object, got ["id"]`},
		{"Null", "null is not a message", `null`, `want a JSON object, got null`},
		{"LongValue", "a long value is cut in the error", `"` + strings.Repeat("x", 100) + `"`, `want a JSON object, got "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...`},
		{"NumericID", "an id is a string", `{"id":1,"role":"developer","content":"x"}`, `member "id": want a string, got 1`},
		{"NumericRole", "a role is a string", `{"role":1,"content":"x"}`, `member "role": want a string, got 1`},
		{"ToolCallsNotArray", "tool_calls is an array of objects", `{"role":"assistant","tool_calls":{}}`, `member "tool_calls": want an array of objects`},
		{"ToolCallWithoutType", "a tool call without a type could not be written back as it came",
			`{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`, `tool call 0: want a "type" member`},
		{"ToolCallNumericName", "a function name is a string",
			`{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":1}}]}`, `tool call 0: member "function": member "name": want a string`},
		{"RecapTypeBlock", "a content block cannot take a type that recap gives tool calls",
			`{"role":"user","content":[{"type":"tool-call"}]}`, `content block 0: type "tool-call" is not a content block`},
		{"ToolCallIDNumber", "a tool message's tool_call_id is a string",
			`{"role":"tool","tool_call_id":5,"content":"x"}`, `member "tool_call_id": want a string`},
		{"ImageURLNumber", "an image URL is a string",
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":5}}]}`, `member "image_url": member "url": want a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Message
			err := json.Unmarshal([]byte(tt.json), &m)
			if err == nil || !strings.HasPrefix(err.Error(), "recap: decode message") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: err = %v, want a recap error containing %q", tt.reason, err, tt.want)
			}
		})
	}
}

// TestMessageFormat checks which Format a decoded message gets.
func TestMessageFormat(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		json   string
		want   Format
	}{
		{"Plain", "id, role and content only", `{"id":"1","role":"user","content":"hi","metadata":{}}`, FormatPlain},
		{"PlainNullContent", "a null content is plain", `{"id":"1","role":"assistant","content":null}`, FormatPlain},
		{"UI", "parts make a UIMessage", `{"id":"1","role":"user","parts":[]}`, FormatUI},
		{"UIWithoutID", "parts win over a missing id", `{"role":"user","parts":[{"type":"text","text":"x"}]}`, FormatUI},
		{"UIWithName", "parts win over OpenAI members", `{"id":"1","role":"user","name":"x","parts":[]}`, FormatUI},
		{"NoID", "a message without an id is OpenAI's", `{"role":"user","content":"hi"}`, FormatOpenAI},
		{"Empty", "an empty object has no id", `{}`, FormatOpenAI},
		{"NameWithID", "name is OpenAI's", `{"id":"1","role":"user","content":"hi","name":"ana"}`, FormatOpenAI},
		{"Developer", "the developer role is OpenAI's", `{"id":"1","role":"developer","content":"hi"}`, FormatOpenAI},
		{"ContentArray", "a content array is OpenAI's", `{"id":"1","role":"user","content":[]}`, FormatOpenAI},
		{"ToolCalls", "tool_calls", `{"id":"1","role":"assistant","tool_calls":[]}`, FormatOpenAI},
		{"ToolCallID", "tool_call_id", `{"id":"1","role":"tool","tool_call_id":"c","content":"x"}`, FormatOpenAI},
		{"FunctionCall", "function_call", `{"id":"1","role":"assistant","function_call":{"name":"f"}}`, FormatOpenAI},
		{"Refusal", "refusal", `{"id":"1","role":"assistant","refusal":null}`, FormatOpenAI},
		{"Audio", "audio", `{"id":"1","role":"assistant","audio":{"id":"a"}}`, FormatOpenAI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Message
			if err := json.Unmarshal([]byte(tt.json), &m); err != nil {
				t.Fatal(err)
			}
			if m.Format != tt.want {
				t.Errorf("%s: Format = %v, want %v", tt.reason, m.Format, tt.want)
			}
			checkRoundTrip(t, []byte(tt.json), m)
		})
	}
}

// checkRoundTrip checks that m, decoded from data, encodes to the same JSON
// value and decodes again to the same Message.
func checkRoundTrip(t *testing.T, data []byte, m Message) {
	t.Helper()
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	var want, got any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("re-encoded JSON mismatch (-want +got):\n%s", diff)
	}
	var again Message
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatalf("Unmarshal of %s: %v", out, err)
	}
	if diff := cmp.Diff(m, again); diff != "" {
		t.Errorf("decoding %s again: mismatch (-want +got):\n%s", out, diff)
	}
}

func TestNewTextMessage(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		format Format
		want   string
	}{
		{"Plain", "a plain message has id, role and content", FormatPlain, `{"id":"s1","role":"system","content":"the summary"}`},
		{"UI", "a UIMessage has a text part and no content, which the AI SDK rejects", FormatUI, `{"id":"s1","role":"system","parts":[{"type":"text","text":"the summary"}]}`},
		{"OpenAI", "an OpenAI message has no id, which no OpenAI endpoint accepts", FormatOpenAI, `{"role":"system","content":"the summary"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewTextMessage(tt.format, "s1", RoleSystem, "the summary")
			if m.ID != "s1" || m.Role != RoleSystem || m.Format != tt.format || m.Text() != "the summary" {
				t.Errorf("NewTextMessage = %+v", m)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("%s: Marshal = %s, want %s", tt.reason, b, tt.want)
			}
		})
	}
}

func TestMessageEncodeUIParts(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		msg    Message
		want   string
	}{
		{"NilParts", "a UIMessage always has parts", Message{ID: "1", Role: RoleUser, Format: FormatUI}, `{"id":"1","role":"user","parts":[]}`},
		{"NullParts", "a null parts member is kept as it came", Message{ID: "1", Format: FormatUI, Extra: map[string]json.RawMessage{"parts": json.RawMessage(`null`)}}, `{"id":"1","parts":null}`},
		{"PlainNilParts", "a plain message has no parts unless set", Message{ID: "1", Role: RoleUser, Content: "x"}, `{"id":"1","role":"user","content":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("%s: Marshal = %s, want %s", tt.reason, b, tt.want)
			}
		})
	}
	var m Message
	if err := json.Unmarshal([]byte(`{"id":"1","parts":null}`), &m); err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, []byte(`{"id":"1","parts":null}`), m)
}

func TestMessageEncodeUnknownFormat(t *testing.T) {
	_, err := json.Marshal(Message{ID: "1", Format: 9})
	if err == nil || !strings.Contains(err.Error(), "recap: encode message \"1\": unknown format Format(9)") {
		t.Fatalf("err = %v, want an unknown format error", err)
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
		"content":    {Content: "a plain message"},
		"stepText":   {Parts: []Part{{Type: "step-start"}, {Type: PartText, Text: "an AI SDK answer"}}},
		"toolParts":  {Parts: []Part{{Type: "tool-x", Input: json.RawMessage(`{"a":1}`), Output: json.RawMessage(`{"b":2}`)}, {Type: PartText, Text: "done"}}},
		"prettyJSON": {Parts: []Part{{Type: "tool-x", Input: json.RawMessage("{\n  \"a\": 1,\n  \"b\": [1, 2]\n}")}}},
		// 50 KB of API output, with a "data" member and no media.
		"bigToolJSON": {Parts: []Part{{Type: "tool-x", Output: json.RawMessage(`{"data":[` +
			strings.TrimSuffix(strings.Repeat(`{"id":12345,"name":"Ada Lovelace","email":"ada@example.com","tags":["a","b"]},`, 640), ",") + `]}`)}}},
		// A tool result holding a 64 KB screenshot.
		"toolImage": {Parts: []Part{{Type: "tool-x", Output: json.RawMessage(`[{"type":"text","text":"ok"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` +
			strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAA", 800) + `"}}]`)}}},
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
