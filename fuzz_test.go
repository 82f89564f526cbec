package recap

import (
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzPlan builds a chat from the fuzzer's bytes (one message per byte: its
// low two bits pick the role, the rest its length) and checks that Plan
// either fails with a documented error or puts every message exactly once,
// in order, into Pinned, Covered, Summarize, Window and Turn.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 2, 1, 2, 1}, uint8(3), uint8(2), uint16(10))
	f.Add([]byte{0, 0, 1, 2, 3, 3, 2, 1, 3}, uint8(200), uint8(1), uint16(1))
	f.Add([]byte{1}, uint8(0), uint8(5), uint16(1000))
	roles := []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool}
	f.Fuzz(func(t *testing.T, spec []byte, boundary uint8, window uint8, trigger uint16) {
		if len(spec) > 300 {
			return
		}
		msgs := make([]Message, len(spec))
		for i, b := range spec {
			msgs[i] = Message{ID: fmt.Sprint("m", i), Role: roles[b&3], Content: string(make([]byte, b>>2))}
		}
		var existing Summary
		if int(boundary) < len(msgs)+5 && boundary != 0 {
			existing = Summary{Text: "summary", LastMessageID: fmt.Sprint("m", int(boundary)-1)}
		}
		c, err := New(nil, nil, WithTokenCounter(words), WithWindowConversations(int(window%8)+1), WithTriggerTokens(int(trigger)+1))
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Plan(msgs, existing)
		if err != nil {
			if err != ErrNoMessages && err != ErrNoUserMessage {
				t.Fatalf("Plan: unexpected error %v", err)
			}
			return
		}
		checkPartition(t, msgs, p)
		if users := countUsers(p.Window); users > int(window%8) {
			t.Errorf("window has %d conversations, want at most %d", users, window%8)
		}
	})
}

func countUsers(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == RoleUser {
			n++
		}
	}
	return n
}

// FuzzMessageJSON checks that whatever decodes as messages, in any format,
// encodes again to the same JSON value (for valid UTF-8), keeps its Format
// when decoded again, and that a second encoding is stable.
func FuzzMessageJSON(f *testing.F) {
	f.Add([]byte(`[{"id":"1","role":"user","content":"hi","metadata":{"a":1}}]`))
	f.Add([]byte(`[{"id":"2","role":"assistant","parts":[{"type":"tool-x","input":null,"text":"","x":[1]}]}]`))
	f.Add([]byte(`[{"role":"developer","content":[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}}]},{"role":"user","name":"ana","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA","detail":"high"}},{"type":"input_audio","input_audio":{"data":"AA","format":"wav"}},{"type":"file","file":{"filename":"a.pdf","file_id":"f"}}]}]`))
	f.Add([]byte(`[{"role":"assistant","content":null,"refusal":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}},{"id":"c2","type":"custom","custom":{"name":"g","input":"x"}},{"id":"c3","type":"function","function":{"arguments":{"a":1}}}]}]`))
	f.Add([]byte(`[{"role":"tool","tool_call_id":"c1","content":"not json"},{"role":"tool","tool_call_id":"","content":[{"type":"text","text":"x"}]},{"role":"tool","content":"\"s\""},{"id":"x","role":"assistant","content":[],"tool_calls":[],"audio":{"id":"a"}}]`))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"refusal","refusal":"no","text":"t"},{"type":"image_url","image_url":"https://x"},{"text":"untyped"}]}]`))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"t1","name":"f","input":{}},{"type":"server_tool_use","id":"s1","name":"web_search","input":{}},{"type":"redacted_thinking","data":"x"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]},{"type":"document","source":{"type":"text","data":"d"}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []Message
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
		for _, m := range msgs {
			_ = m.Text()
		}
		out, err := json.Marshal(msgs)
		if err != nil {
			t.Fatalf("Marshal of decoded messages: %v", err)
		}
		var again []Message
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("Unmarshal of %s: %v", out, err)
		}
		for i := range msgs {
			if msgs[i].Format != again[i].Format {
				t.Fatalf("message %d: decoded as %v, then as %v from %s", i, msgs[i].Format, again[i].Format, out)
			}
		}
		out2, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != string(out2) {
			t.Fatalf("encoding not stable:\n%s\n%s", out, out2)
		}
		var a, b any
		_ = json.Unmarshal(data, &a)
		_ = json.Unmarshal(out, &b)
		if utf8.Valid(data) && !cmp.Equal(a, b) {
			t.Fatalf("round trip changed the JSON value (-in +out):\n%s", cmp.Diff(a, b))
		}
	})
}
