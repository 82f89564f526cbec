package recap

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readOpenAIChat(t *testing.T) ([]byte, []Message) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "openai", "chat.json"))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	return data, msgs
}

// TestOpenAIRoundTrip decodes OpenAI Chat Completions messages of every
// kind and checks that encoding them again gives the same JSON value, with
// no "id" added, and that a second round trip is byte-identical.
func TestOpenAIRoundTrip(t *testing.T) {
	data, msgs := readOpenAIChat(t)
	out, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []map[string]any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("re-encoded OpenAI messages mismatch (-want +got):\n%s", diff)
	}
	for i, m := range got {
		if _, ok := m["id"]; ok {
			t.Errorf("message %d: an id was added: %v", i, m)
		}
		if msgs[i].Format != FormatOpenAI || msgs[i].ID != "" {
			t.Errorf("message %d decoded with Format %v, ID %q; want FormatOpenAI and no ID", i, msgs[i].Format, msgs[i].ID)
		}
	}
	var again []Message
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	out2, err := json.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, out2) {
		t.Errorf("encoding is not stable:\n%s\n%s", out, out2)
	}
}

// TestOpenAIText checks what each message of the fixture counts: tool
// calls' names and arguments, tool results, refusals and notes for
// attachments; never a URL or base64 data.
func TestOpenAIText(t *testing.T) {
	_, msgs := readOpenAIChat(t)
	want := []struct {
		reason string
		text   string
	}{
		{"system string content", "You are a travel agent. Answer briefly."},
		{"developer content array", "Prefer trains to planes."},
		{"user with a name: the name is not counted", "Plan a weekend in Lisbon."},
		// An unknown block counts as its JSON, all of it (issue 22 §5),
		// where it counted its text only.
		{"user content blocks: text, attachment notes, an unknown block's JSON",
			"Here are my photo, a voice note and my budget.\n[attachment: image/png]\n[attachment: image/*]\n[attachment: audio/wav]\n[attachment: application/pdf budget.pdf]\n[attachment]\n" +
				`{"type":"input_text","text":"an unknown block type","cache_control":{"type":"ephemeral"}}`},
		{"parallel tool calls: names and compact arguments",
			"getWeather\n{\"city\":\"Lisbon\",\"days\":2}\nsearchHotels\n{\"city\":\"Lisbon\",\"maxPrice\":150}"},
		{"tool result of JSON text, compact", `{"forecast":[{"day":"Sat","tempC":21},{"day":"Sun","tempC":19}]}`},
		{"tool result of plain text, as it is", "MCP server timed out"},
		{"content and a tool call whose arguments are not valid JSON, as they are",
			"Saturday 21°C, Sunday 19°C. Let me retry the hotels.\nsearchHotels\n{\"city\":\"Lisbon\""},
		{"tool result of content blocks, as JSON",
			`[{"type":"text","text":"Casa Alfama, 120 EUR"},{"type":"text","text":"Hotel Belém, 140 EUR"}]`},
		{"user", "Book the cheapest and tell me how to pick a lock to get in early."},
		{"refusal member", "I can't help with picking locks."},
		{"text and refusal blocks", "Casa Alfama is booked.\nI won't share the lock code."},
		{"user with metadata", "Thanks!"},
	}
	if len(msgs) != len(want) {
		t.Fatalf("fixture has %d messages, want %d", len(msgs), len(want))
	}
	for i, m := range msgs {
		if got := m.Text(); got != want[i].text {
			t.Errorf("message %d (%s): Text() = %q, want %q", i, want[i].reason, got, want[i].text)
		}
	}
}

// TestOpenAIDecode checks where the members of OpenAI messages land.
func TestOpenAIDecode(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name   string
		reason string
		json   string
		want   Message
	}{
		{"ToolCalls", "tool calls are tool-call parts, content null is kept in Extra",
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]}`,
			Message{Role: RoleAssistant, Format: FormatOpenAI,
				Parts: []Part{{Type: PartToolCall, ToolCallID: "c1", ToolName: "f", Input: raw(`{"a": 1}`), Extra: map[string]json.RawMessage{"function": raw(`{}`)}}},
				Extra: map[string]json.RawMessage{"content": raw(`null`)}}},
		{"CustomToolCall", "a custom tool call keeps its type; its free-text input is a WireString",
			`{"role":"assistant","tool_calls":[{"id":"c1","type":"custom","custom":{"name":"sql","input":"SELECT 1"}}]}`,
			Message{Role: RoleAssistant, Format: FormatOpenAI,
				Parts: []Part{{Type: PartToolCall, ToolCallID: "c1", ToolName: "sql", Input: raw(`"SELECT 1"`), Wire: WireString, Extra: map[string]json.RawMessage{"type": raw(`"custom"`), "custom": raw(`{}`)}}}}},
		{"UnknownToolCall", "a tool call of an unknown type is kept whole",
			`{"role":"assistant","tool_calls":[{"id":"c1","type":"mcp","mcp":{"server":"s"}}]}`,
			Message{Role: RoleAssistant, Format: FormatOpenAI,
				Parts: []Part{{Type: PartToolCall, ToolCallID: "c1", Extra: map[string]json.RawMessage{"type": raw(`"mcp"`), "mcp": raw(`{"server":"s"}`)}}}}},
		{"ToolMessage", "a tool message's content is the Output of a tool-result part",
			`{"role":"tool","tool_call_id":"c1","content":"[1, 2]"}`,
			Message{Role: RoleTool, Format: FormatOpenAI, Parts: []Part{{Type: PartToolResult, ToolCallID: "c1", Output: raw(`[1, 2]`)}}}},
		{"ToolMessageText", "plain text content is a WireString",
			`{"role":"tool","tool_call_id":"c1","content":"sunny"}`,
			Message{Role: RoleTool, Format: FormatOpenAI, Parts: []Part{{Type: PartToolResult, ToolCallID: "c1", Output: raw(`"sunny"`), Wire: WireString}}}},
		{"ToolMessageBlocks", "content blocks are carried as a WireValue",
			`{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"x"}]}`,
			Message{Role: RoleTool, Format: FormatOpenAI, Parts: []Part{{Type: PartToolResult, ToolCallID: "c1", Output: raw(`[{"type":"text","text":"x"}]`), Wire: WireValue}}}},
		{"ToolMessageEmpty", "an empty tool result is the JSON string \"\"",
			`{"role":"tool","tool_call_id":"c1","content":""}`,
			Message{Role: RoleTool, Format: FormatOpenAI, Parts: []Part{{Type: PartToolResult, ToolCallID: "c1", Output: raw(`""`), Wire: WireString}}}},
		{"ImageBlock", "an image block is a file part; detail stays in its nested object",
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AA","detail":"low"}}]}`,
			Message{Role: RoleUser, Format: FormatOpenAI,
				Parts: []Part{{Type: PartImageURL, URL: "data:image/jpeg;base64,AA", MediaType: "image/jpeg", Extra: map[string]json.RawMessage{"image_url": raw(`{"detail":"low"}`)}}}}},
		{"FileBlock", "a file block has a file name and its data as URL; file_id stays",
			`{"role":"user","content":[{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,AA","file_id":"f1"}}]}`,
			Message{Role: RoleUser, Format: FormatOpenAI,
				Parts: []Part{{Type: PartFile, URL: "data:application/pdf;base64,AA", Filename: "a.pdf", MediaType: "application/pdf", Extra: map[string]json.RawMessage{"file": raw(`{"file_id":"f1"}`)}}}}},
		{"AudioBlock", "an audio block's media type comes from its format",
			`{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AA","format":"mp3"}}]}`,
			Message{Role: RoleUser, Format: FormatOpenAI,
				Parts: []Part{{Type: PartInputAudio, MediaType: "audio/mp3", Extra: map[string]json.RawMessage{"input_audio": raw(`{"data":"AA","format":"mp3"}`)}}}}},
		{"WithID", "an id sets ID and stays in Extra, to be written back",
			`{"id":"m1","role":"user","name":"ana","content":"hi"}`,
			Message{ID: "m1", Role: RoleUser, Content: "hi", Format: FormatOpenAI, Extra: map[string]json.RawMessage{"id": raw(`"m1"`), "name": raw(`"ana"`)}}},
		{"Refusal", "refusal is Refusal",
			`{"role":"assistant","content":null,"refusal":"no"}`,
			Message{Role: RoleAssistant, Refusal: "no", Format: FormatOpenAI, Extra: map[string]json.RawMessage{"content": raw(`null`)}}},
		{"EmptyArrays", "empty content and tool_calls arrays are kept in Extra",
			`{"role":"assistant","content":[],"tool_calls":[]}`,
			Message{Role: RoleAssistant, Format: FormatOpenAI, Extra: map[string]json.RawMessage{"content": raw(`[]`), "tool_calls": raw(`[]`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Message
			if err := json.Unmarshal([]byte(tt.json), &m); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, m); diff != "" {
				t.Errorf("%s: mismatch (-want +got):\n%s", tt.reason, diff)
			}
			checkRoundTrip(t, []byte(tt.json), m)
		})
	}
}

// TestOpenAIWire checks that tool call arguments and tool results
// round-trip exactly whatever their wire form.
func TestOpenAIWire(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		wire   string // the arguments member
		input  string
		form   WireForm
	}{
		{"Compact", "valid JSON text is Input as it is", `"{\"a\":1}"`, `{"a":1}`, WireJSONText},
		{"Pretty", "pretty JSON text is kept byte for byte", `"{\n  \"a\": 1\n}"`, "{\n  \"a\": 1\n}", WireJSONText},
		{"Partial", "text that is not JSON is a JSON string", `"{\"a\":"`, `"{\"a\":"`, WireString},
		{"Empty", "an empty string is not JSON", `""`, `""`, WireString},
		{"JSONString", "a JSON string in the wire string is JSON text, not WireString", `"\"hi\""`, `"hi"`, WireJSONText},
		{"Object", "an object sent by a non-conforming client is a WireValue", `{"a":1}`, `{"a":1}`, WireValue},
		{"Null", "null is a WireValue", `null`, `null`, WireValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(`{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":` + tt.wire + `}}]}`)
			var m Message
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			p := m.Parts[0]
			if string(p.Input) != tt.input || p.Wire != tt.form {
				t.Errorf("%s: Input %s (%v), want %s (%v)", tt.reason, p.Input, p.Wire, tt.input, tt.form)
			}
			checkRoundTrip(t, data, m)
		})
	}
}

// TestOpenAIEncodeChanges checks that MarshalJSON writes an OpenAI message
// from its fields, so that changes to them show.
func TestOpenAIEncodeChanges(t *testing.T) {
	decode := func(s string) Message {
		var m Message
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		name   string
		reason string
		msg    Message
		change func(*Message)
		want   string
	}{
		{"ClearToolResult", "a cleared tool result is written as JSON text even where the input was plain text",
			decode(`{"role":"tool","tool_call_id":"c1","content":"a very long result"}`),
			func(m *Message) { m.Parts[0].Output = json.RawMessage(`{"cleared":true}`) },
			`{"role":"tool","content":"{\"cleared\":true}","tool_call_id":"c1"}`},
		{"ToolInput", "a new tool input is written as the arguments string",
			decode(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}","strict":true}}]}`),
			func(m *Message) { m.Parts[0].Input = json.RawMessage(`{"q":"x"}`) },
			`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"q\":\"x\"}","strict":true}}],"content":null}`},
		{"ContentAndBlocks", "Content beside blocks leads the content array as a text block",
			decode(`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}`),
			func(m *Message) { m.Content = "look" },
			`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}`},
		{"NewImageURL", "a changed URL is written into the nested object, beside its other members",
			decode(`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"auto"}}]}`),
			func(m *Message) { m.Parts[0].URL = "https://x/z.png" },
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/z.png","detail":"auto"}}]}`},
		{"IDNotWritten", "an ID given by recap or a caller is not written",
			decode(`{"role":"user","content":"hi"}`),
			func(m *Message) { m.ID = "h-1" },
			`{"role":"user","content":"hi"}`},
		{"GoBuiltToolCall", "a tool call built in Go is a function call",
			Message{Role: RoleAssistant, Format: FormatOpenAI},
			func(m *Message) {
				m.Parts = []Part{{Type: PartToolCall, ToolCallID: "c9", ToolName: "g", Input: json.RawMessage(`{"x":1}`)}}
			},
			`{"role":"assistant","tool_calls":[{"id":"c9","type":"function","function":{"name":"g","arguments":"{\"x\":1}"}}]}`},
		{"GoBuiltToolResult", "a tool result built in Go",
			Message{Role: RoleTool, Format: FormatOpenAI},
			func(m *Message) {
				m.Parts = []Part{{Type: PartToolResult, ToolCallID: "c9", Output: json.RawMessage(`"done"`), Wire: WireString}}
			},
			`{"role":"tool","content":"done","tool_call_id":"c9"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.msg
			tt.change(&m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("%s:\n got %s\nwant %s", tt.reason, b, tt.want)
			}
		})
	}
}

func TestOpenAIEncodeErrors(t *testing.T) {
	result := Part{Type: PartToolResult, Output: json.RawMessage(`1`)}
	tests := []struct {
		name   string
		reason string
		msg    Message
		want   string
	}{
		{"TwoResults", "an OpenAI tool message answers one call",
			Message{Role: RoleTool, Format: FormatOpenAI, Parts: []Part{result, result}}, "at most one tool-result part"},
		{"ResultAndContent", "a tool message has one content",
			Message{Role: RoleTool, Format: FormatOpenAI, Content: "x", Parts: []Part{result}}, "cannot sit beside Content or content blocks"},
		{"ResultAndBlocks", "a tool message has one content",
			Message{Role: RoleTool, Format: FormatOpenAI, Parts: []Part{result, {Type: PartText, Text: "x"}}}, "cannot sit beside Content or content blocks"},
		{"InvalidOutput", "an Output must be JSON",
			Message{Role: RoleTool, Format: FormatOpenAI, Parts: []Part{{Type: PartToolResult, Output: json.RawMessage(`{`)}}}, `member "content": invalid JSON`},
		{"InvalidInput", "an Input must be JSON",
			Message{Role: RoleAssistant, Format: FormatOpenAI, Parts: []Part{{Type: PartToolCall, Input: json.RawMessage(`{`)}}}, `member "arguments": invalid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := json.Marshal(tt.msg)
			if err == nil || !strings.Contains(err.Error(), "recap: encode") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: err = %v, want a recap error containing %q", tt.reason, err, tt.want)
			}
		})
	}
}

func TestOpenAIFileParts(t *testing.T) {
	_, msgs := readOpenAIChat(t)
	var types []string
	for _, p := range msgs[3].Parts {
		if p.IsFile() {
			types = append(types, p.Type)
		}
	}
	want := []string{PartImageURL, PartImageURL, PartInputAudio, PartFile, PartFile}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("IsFile parts mismatch (-want +got):\n%s", diff)
	}
}
