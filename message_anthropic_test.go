package recap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func readAnthropicChat(t *testing.T) ([]byte, []Message) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "anthropic", "chat.json"))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := DecodeAnthropic(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, msgs
}

// anyJSON decodes JSON text for comparison as a value.
func anyJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return v
}

// TestAnthropicRoundTrip decodes a request body with blocks of every kind
// and checks that EncodeAnthropic gives back its system and messages as
// the same JSON values, with no "id" added, and that a second round trip
// is byte-identical.
func TestAnthropicRoundTrip(t *testing.T) {
	data, msgs := readAnthropicChat(t)
	var body struct{ System, Messages json.RawMessage }
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	system, messages, err := EncodeAnthropic(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(anyJSON(t, body.System), anyJSON(t, system)); diff != "" {
		t.Errorf("system mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(anyJSON(t, body.Messages), anyJSON(t, messages)); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	for i, m := range msgs {
		if m.Format != FormatAnthropic || m.ID != "" {
			t.Errorf("message %d decoded with Format %v, ID %q; want FormatAnthropic and no ID", i, m.Format, m.ID)
		}
	}
	// Each message alone, as MarshalJSON writes it, is the element it
	// came from; and json.Unmarshal of the array reads it back the same.
	out, err := json.Marshal(msgs[2:])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, messages) {
		t.Errorf("json.Marshal of the messages differs from EncodeAnthropic's:\n%s\n%s", out, messages)
	}
	again, err := DecodeAnthropic(messages)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs[2:], again, compactRaw); diff != "" {
		t.Errorf("second decode mismatch (-first +second):\n%s", diff)
	}
	_, messages2, err := EncodeAnthropic(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(messages, messages2) {
		t.Errorf("encoding is not stable:\n%s\n%s", messages, messages2)
	}
	// A string system comes back a string.
	one, err := DecodeAnthropic([]byte(`{"system":"Be brief.","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if system, messages, err := EncodeAnthropic(one); err != nil || string(system) != `"Be brief."` || string(messages) != `[{"role":"user","content":"hi"}]` {
		t.Errorf("EncodeAnthropic = %s, %s, %v; want \"Be brief.\" and the message", system, messages, err)
	}
}

// TestAnthropicByteExact: a compact request whose members are in the order
// the API's documentation writes them (role, content; a block's type, its
// source, its modelled members, then the others by name) comes back byte
// for byte, untouched messages and all.
func TestAnthropicByteExact(t *testing.T) {
	system := `[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}]`
	messages := `[{"role":"user","content":"Plan a weekend."},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Weather first.","signature":"sig"},{"type":"text","text":"Checking."},{"type":"tool_use","id":"t1","name":"weather","input":{"city":"Lisbon"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"sunny","is_error":false},{"type":"text","text":"And a museum?"}]},` +
		`{"role":"assistant","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"museum"}},{"type":"web_search_tool_result","tool_use_id":"s1","content":[]},{"type":"redacted_thinking","data":"RWN5"}]},` +
		`{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},` +
		`{"type":"image","source":{"type":"url","url":"https://example.com/a.jpg"}},` +
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="},"title":"plan.pdf"},` +
		`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Open 10 to 18."}},` +
		`{"type":"text","text":"Which?"}]}]`
	msgs, err := DecodeAnthropic([]byte(`{"system":` + system + `,"messages":` + messages + `}`))
	if err != nil {
		t.Fatal(err)
	}
	gotSystem, gotMessages, err := EncodeAnthropic(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if string(gotSystem) != system {
		t.Errorf("system:\n%s\nwant\n%s", gotSystem, system)
	}
	if string(gotMessages) != messages {
		t.Errorf("messages:\n%s\nwant\n%s", gotMessages, messages)
	}
}

// compactRaw compares JSON values in compact form.
var compactRaw = cmp.Transformer("compact", func(r json.RawMessage) string { return string(compact(r)) })

// TestAnthropicDecode checks the messages and parts that each kind of
// block becomes.
func TestAnthropicDecode(t *testing.T) {
	_, msgs := readAnthropicChat(t)
	roles := make([]Role, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	wantRoles := []Role{RoleSystem, RoleSystem, RoleUser, RoleAssistant, RoleTool, RoleAssistant, RoleTool, RoleUser}
	if diff := cmp.Diff(wantRoles, roles); diff != "" {
		t.Errorf("roles mismatch (-want +got):\n%s", diff)
	}
	type part struct{ Type, Text, ToolCallID, ToolName, MediaType, Filename, URL string }
	var got [][]part
	for _, m := range msgs {
		var ps []part
		for _, p := range m.Parts {
			ps = append(ps, part{p.Type, p.Text, p.ToolCallID, p.ToolName, p.MediaType, p.Filename, p.URL})
		}
		got = append(got, ps)
	}
	want := [][]part{
		{{Type: PartText, Text: "You are a careful travel agent."}},
		{{Type: PartText, Text: "Use the tools."}},
		nil,
		{{Type: PartReasoning, Text: "I should check the weather."}, {Type: PartText, Text: "Let me check the weather."}, {Type: PartToolCall, ToolCallID: "toolu_1", ToolName: "weather"}},
		{{Type: PartToolResult, ToolCallID: "toolu_1"}, {Type: PartText, Text: "Also find a museum."}},
		{{Type: "redacted_thinking"}, {Type: PartToolCall, ToolCallID: "srvtoolu_1", ToolName: "web_search"}, {Type: PartToolResult, ToolCallID: "srvtoolu_1"},
			{Type: PartText, Text: "The Gulbenkian Museum."}, {Type: PartToolCall, ToolCallID: "toolu_2", ToolName: "screenshot"}},
		{{Type: PartToolResult, ToolCallID: "toolu_2"}},
		{{Type: PartImage, MediaType: "image/*", URL: "https://example.com/map.jpg"}, {Type: PartDocument, MediaType: "application/pdf", Filename: "tickets.pdf", URL: "JVBERi0="},
			{Type: PartDocument, Text: "Opening hours: 10 to 18.", MediaType: "text/plain"}, {Type: "search_result"}, {Type: PartText, Text: "Here are my map, my tickets and notes. Which tram?"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts mismatch (-want +got):\n%s", diff)
	}
}

// TestAnthropicText checks what each message counts: tool calls and
// results as their tool text, media as attachments, a plain-text document
// as its text, and blocks recap does not model as their JSON, never
// nothing.
func TestAnthropicText(t *testing.T) {
	_, msgs := readAnthropicChat(t)
	want := []string{
		"You are a careful travel agent.",
		"Use the tools.",
		"Plan a weekend in Lisbon.",
		"I should check the weather.\nLet me check the weather.\nweather\n{\"city\":\"Lisbon\",\"days\":2}",
		"sunny, 24 C\nAlso find a museum.",
		"web_search\n{\"query\":\"Lisbon museums\"}\n" +
			`[{"type":"web_search_result","url":"https://example.com/gulbenkian","title":"Gulbenkian Museum","encrypted_content":"Eo8B"}]` + "\n" +
			"The Gulbenkian Museum.\nscreenshot\n{}",
		`[{"type":"text","text":"the museum's page"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"[attachment: image/png]"}}]`,
		"[attachment: image/*]\n[attachment: application/pdf tickets.pdf]\nOpening hours: 10 to 18.\n" +
			`{"type":"search_result","content":[{"type":"text","text":"Tram 28 runs every 12 minutes."}],"source":"https://example.com/tram","title":"Tram 28"}` +
			"\nHere are my map, my tickets and notes. Which tram?",
	}
	for i, m := range msgs {
		if got := m.Text(); got != want[i] {
			t.Errorf("message %d: Text() =\n%s\nwant\n%s", i, got, want[i])
		}
	}
}

// TestAnthropicCountedAsOpenAI: a tool call and its result count the same
// in the Anthropic format as the same content in OpenAI's, where an
// Anthropic chat read as OpenAI messages counted its tool blocks 0 (issue
// 22 §5: 643 tokens instead of 1,331).
func TestAnthropicCountedAsOpenAI(t *testing.T) {
	result := strings.Repeat("row ", 300)
	anth, err := DecodeAnthropic([]byte(fmt.Sprintf(`[{"role":"user","content":"Query the table."},
		{"role":"assistant","content":[{"type":"text","text":"Querying."},{"type":"tool_use","id":"c1","name":"sql","input":{"q":"select * from t"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":%q}]},
		{"role":"assistant","content":"Done."}]`, result)))
	if err != nil {
		t.Fatal(err)
	}
	var oai []Message
	if err := json.Unmarshal([]byte(fmt.Sprintf(`[{"role":"user","content":"Query the table."},
		{"role":"assistant","content":"Querying.","tool_calls":[{"id":"c1","type":"function","function":{"name":"sql","arguments":"{\"q\":\"select * from t\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":%q},
		{"role":"assistant","content":"Done."}]`, result)), &oai); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, &recorder{}, NewMemoryStore())
	for i := range anth {
		if a, o := anth[i].Text(), oai[i].Text(); a != o {
			t.Errorf("message %d: Anthropic text %q, OpenAI text %q", i, a, o)
		}
	}
	if a, o := c.tokens(nil, anth), c.tokens(nil, oai); a != o || a < 300 {
		t.Errorf("Anthropic chat counts %d tokens, OpenAI %d: want equal, over 300", a, o)
	}
	// The same array decoded by json.Unmarshal, message by message, is
	// read as Anthropic's where a block says so.
	var auto []Message
	data, _ := json.Marshal(anth)
	if err := json.Unmarshal(data, &auto); err != nil {
		t.Fatal(err)
	}
	for i, f := range []Format{FormatOpenAI, FormatAnthropic, FormatAnthropic, FormatOpenAI} {
		if auto[i].Format != f || auto[i].Text() != anth[i].Text() {
			t.Errorf("message %d decoded by UnmarshalJSON as %v, text %q; want %v, %q", i, auto[i].Format, auto[i].Text(), f, anth[i].Text())
		}
	}
}

// TestAnthropicDecodeErrors: what is not an Anthropic chat is an error
// naming the message and block.
func TestAnthropicDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not JSON", `nope`, "want a messages array or a request object"},
		{"no messages", `{"system":"x"}`, `want a "messages" array`},
		{"system a number", `{"system":1,"messages":[]}`, "system: want a string or an array of blocks"},
		{"content a number", `[{"role":"user","content":1}]`, "message 0: member \"content\""},
		{"block without type", `[{"role":"user","content":[{"text":"x"}]}]`, "message 0: content block 0: want a \"type\" string"},
		{"recap's own type", `[{"role":"user","content":[{"type":"tool-call"}]}]`, "not an Anthropic block"},
		{"tool role", `[{"role":"tool","content":"x"}]`, "not an Anthropic role"},
		{"tool_use id a number", `[{"role":"assistant","content":[{"type":"tool_use","id":1}]}]`, `member "id": want a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeAnthropic([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "recap: decode anthropic") {
				t.Fatalf("DecodeAnthropic(%s) = %v, want an error with %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestAnthropicEncodeChanges: changes to the modelled fields show in the
// JSON, and messages of other formats are written as Anthropic messages.
func TestAnthropicEncodeChanges(t *testing.T) {
	_, msgs := readAnthropicChat(t)
	tool := msgs[4].clone()
	tool.Parts[0].Output = json.RawMessage(`"[cleared]"`)
	tool.Parts[1].Text = "Also a café."
	b, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"[cleared]","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Also a café."}]}`
	if string(b) != want {
		t.Errorf("changed tool message:\n%s\nwant\n%s", b, want)
	}
	var oai []Message
	if err := json.Unmarshal([]byte(`[{"role":"system","content":"S"},{"role":"user","content":"Q"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"{\"r\":2}"}]`), &oai); err != nil {
		t.Fatal(err)
	}
	system, messages, err := EncodeAnthropic(oai)
	if err != nil {
		t.Fatal(err)
	}
	wantMsgs := `[{"role":"user","content":"Q"},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{"a":1}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"{\"r\":2}"}]}]`
	if string(system) != `"S"` || string(messages) != wantMsgs {
		t.Errorf("EncodeAnthropic of OpenAI messages = %s, %s\nwant \"S\", %s", system, messages, wantMsgs)
	}
	sum := NewTextMessage(FormatAnthropic, "s-1", RoleUser, "the summary")
	if b, _ := json.Marshal(sum); string(b) != `{"role":"user","content":"the summary"}` {
		t.Errorf("summary message = %s", b)
	}
}

// TestToolResultPairs: a tool result whose call is not before it, in any
// format, is an ErrInvalidMessage naming it; results after their calls,
// in the same message (a server tool) or an earlier one, are not.
func TestToolResultPairs(t *testing.T) {
	tests := []struct {
		name   string
		chat   string
		anth   bool
		orphan int // index of the message at fault, -1 for none
	}{
		{"anthropic paired", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"}]}]`, true, -1},
		{"anthropic server tool in one message", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{}},{"type":"web_search_tool_result","tool_use_id":"s1","content":[]}]}]`, true, -1},
		{"anthropic orphan", `[{"role":"user","content":"q"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"r"}]}]`, true, 1},
		{"anthropic result before its call", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"web_search_tool_result","tool_use_id":"s1","content":[]},{"type":"server_tool_use","id":"s1","name":"web_search","input":{}}]}]`, true, 1},
		{"openai orphan", `[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"c9","content":"r"}]`, false, 1},
		{"openai paired", `[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]`, false, -1},
		{"ui orphan", `[{"id":"u","role":"user","parts":[{"type":"text","text":"q"}]},{"id":"t","role":"tool","parts":[{"type":"tool-result","toolCallId":"x1","output":"r"}]}]`, false, 1},
		{"ui tool part holds both", `[{"id":"u","role":"user","parts":[{"type":"text","text":"q"}]},{"id":"a","role":"assistant","parts":[{"type":"tool-f","toolCallId":"x1","state":"output-available","input":{},"output":"r"}]}]`, false, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msgs []Message
			var err error
			if tt.anth {
				msgs, err = DecodeAnthropic([]byte(tt.chat))
			} else {
				err = json.Unmarshal([]byte(tt.chat), &msgs)
			}
			if err != nil {
				t.Fatal(err)
			}
			c := mustNew(t, &recorder{}, NewMemoryStore())
			_, err = c.Plan(msgs, Summary{})
			var me *MessageError
			switch {
			case tt.orphan < 0 && errors.Is(err, ErrInvalidMessage):
				t.Fatalf("Plan: %v, want no invalid message", err)
			case tt.orphan >= 0 && (!errors.As(err, &me) || me.Index != tt.orphan || !strings.Contains(me.Reason, "tool call")):
				t.Fatalf("Plan: %v, want an ErrInvalidMessage for message %d", err, tt.orphan)
			}
		})
	}
}

// TestAnthropicCompress: an Anthropic agent chat through a Compressor, its
// payload sent back as the next request's history (system and messages):
// the payload is Anthropic messages, never starts with a tool_result whose
// tool_use was summarized away, and keeps what the chat sent.
func TestAnthropicCompress(t *testing.T) {
	ctx := context.Background()
	for _, role := range []Role{RoleSystem, RoleUser, RoleAssistant} {
		t.Run(string(role), func(t *testing.T) {
			c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(60), WithSummaryRole(role))
			system := `"You are terse."`
			var messages []json.RawMessage
			summarized := false
			var prev Summary
			for turn := 1; turn <= 12; turn++ {
				q := fmt.Sprintf(`{"role":"user","content":"question %d one two three four five"}`, turn)
				call := fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"looking %d"},{"type":"tool_use","id":"t%d","name":"search","input":{"q":"%d"}}]}`, turn, turn, turn)
				result := fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"result %d six seven eight nine"}]}`, turn, turn)
				messages = append(messages, json.RawMessage(q), json.RawMessage(call), json.RawMessage(result))
				body, _ := json.Marshal(map[string]any{"system": json.RawMessage(system), "messages": messages})
				msgs, err := DecodeAnthropic(body)
				if err != nil {
					t.Fatal(err)
				}
				res, err := c.Compress(ctx, "c", msgs)
				if err != nil || res.Err != nil || res.Stale {
					t.Fatalf("turn %d: %v, %v, stale %v", turn, err, res.Err, res.Stale)
				}
				if !isPrefix(prev.Covered, res.Summary.Covered) {
					t.Fatalf("turn %d: the summary covers less: %v, then %v", turn, prev.Covered, res.Summary.Covered)
				}
				prev = res.Summary
				sys, out, err := EncodeAnthropic(res.Payload)
				if err != nil {
					t.Fatal(err)
				}
				var back []Message
				if back, err = DecodeAnthropic(out); err != nil {
					t.Fatal(err)
				}
				// A summary of the user or assistant role leads the
				// messages; the first real message is a user message that
				// is not a tool result.
				first := 0
				if role != RoleSystem && res.Summary.Text != "" {
					first = 1
					summarized = true
				}
				if len(back) <= first || back[first].Role != RoleUser {
					t.Fatalf("turn %d: payload messages start with %s: %s", turn, back[first].Role, out)
				}
				if role == RoleSystem && res.Summary.Text != "" {
					summarized = true
					if !strings.Contains(string(sys), res.Summary.Text) {
						t.Fatalf("turn %d: the summary is not in the system: %s", turn, sys)
					}
				}
				system = string(sys)
				if err := json.Unmarshal(out, &messages); err != nil {
					t.Fatal(err)
				}
			}
			if !summarized {
				t.Fatal("the chat was never summarized")
			}
		})
	}
}

// FuzzAnthropicRoundTrip: whatever DecodeAnthropic accepts encodes, and
// decodes again to the same messages, which encode to the same bytes.
func FuzzAnthropicRoundTrip(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "anthropic", "chat.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":null}]}]`))
	f.Add([]byte(`{"system":[],"messages":[{"role":"assistant","content":[]}]}`))
	f.Add([]byte(`[{"role":"user","content":[{"type":"document","source":{"type":"content","content":[{"type":"text","text":"a"}]}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := DecodeAnthropic(data)
		if err != nil {
			return
		}
		system, messages, err := EncodeAnthropic(msgs)
		if err != nil {
			t.Fatalf("EncodeAnthropic of decoded messages: %v", err)
		}
		for _, m := range msgs {
			_ = m.Text()
		}
		// (By hand: json.Marshal would escape HTML in the raw values.)
		body := `{"messages":` + string(messages) + `}`
		if system != nil {
			body = `{"system":` + string(system) + `,"messages":` + string(messages) + `}`
		}
		again, err := DecodeAnthropic([]byte(body))
		if err != nil {
			t.Fatalf("decode of %s: %v", body, err)
		}
		if jsonKind(data) == '[' && system == nil && utf8.Valid(data) {
			// A messages array without leading system messages comes
			// back as the same JSON value.
			var in, out any
			if json.Unmarshal(data, &in) == nil && json.Unmarshal(messages, &out) == nil {
				if diff := cmp.Diff(in, out); diff != "" {
					t.Fatalf("round trip mismatch (-in +out):\n%s", diff)
				}
			}
		}
		system2, messages2, err := EncodeAnthropic(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(system, system2) || !bytes.Equal(messages, messages2) {
			t.Fatalf("not stable:\n%s %s\n%s %s", system, messages, system2, messages2)
		}
	})
}

// TestAnthropicClearing: WithToolResultClearing clears tool_result blocks,
// never a server tool's result (web_search_tool_result...), whose content
// the API wants as it made it.
func TestAnthropicClearing(t *testing.T) {
	big := strings.Repeat("line of output ", 20)
	var b strings.Builder
	b.WriteString(`[`)
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, `{"role":"user","content":"question %d"},
			{"role":"assistant","content":[{"type":"server_tool_use","id":"s%d","name":"web_search","input":{"query":"q"}},
				{"type":"web_search_tool_result","tool_use_id":"s%d","content":[{"type":"web_search_result","url":"https://x","title":%q}]},
				{"type":"tool_use","id":"t%d","name":"logs","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]},
			{"role":"assistant","content":"ok"},`, i, i, i, big, i, i, big)
	}
	b.WriteString(`{"role":"user","content":"and now?"}]`)
	msgs, err := DecodeAnthropic([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(100000), WithToolResultClearing(1, 5))
	res, err := c.Compress(context.Background(), "c", msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cleared) == 0 {
		t.Fatal("nothing cleared")
	}
	for _, r := range res.Cleared {
		if !strings.HasPrefix(r.CallID, "t") {
			t.Errorf("cleared the result of %s, a server tool's", r.CallID)
		}
	}
	_, out, err := EncodeAnthropic(res.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), `"type":"web_search_result"`); n != 8 {
		t.Errorf("%d web search results in the payload, want 8: %s", n, out)
	}
	if !strings.Contains(string(out), `"content":"[recap: the output of logs (call t1`) {
		t.Errorf("t1's result is not a placeholder: %s", out)
	}
}
