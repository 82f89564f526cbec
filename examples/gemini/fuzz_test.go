package gemini_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/gemini"
	"github.com/recapgo/recap/internal/apitest"
	"google.golang.org/genai"
)

// FuzzContents: any request the SDK can decode either fails to convert
// with an error or converts to recap messages and back to the same JSON,
// with every tool result it pairs by name after a call of its ID and no
// message ID repeated.
func FuzzContents(f *testing.F) {
	for _, seed := range []struct {
		system   *genai.Content
		contents []*genai.Content
	}{
		{system, richChat()},
		{nil, agentChat(2)},
		{genai.NewContentFromText("be brief", genai.RoleUser), nil},
	} {
		data, err := json.Marshal(map[string]any{"systemInstruction": seed.system, "contents": seed.contents})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"}},{"functionCall":{"name":"f","id":"x"}}]},{"parts":[{"functionResponse":{"name":"f"}},{"functionResponse":{"name":"g"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var req struct {
			System   *genai.Content   `json:"systemInstruction"`
			Contents []*genai.Content `json:"contents"`
		}
		if json.Unmarshal(data, &req) != nil {
			return
		}
		msgs, err := gemini.FromContents(req.System, req.Contents)
		if err != nil {
			return
		}
		ids := map[string]bool{}
		calls := map[string]bool{}
		for i, m := range msgs {
			if m.ID == "" || ids[m.ID] {
				t.Fatalf("message %d: ID %q empty or repeated", i, m.ID)
			}
			ids[m.ID] = true
			if strings.Contains(m.Text(), "\x00") && m.Role == recap.RoleSystem {
				t.Fatalf("message %d: marker in the text", i)
			}
			for _, p := range m.Parts {
				switch p.Type {
				case recap.PartToolCall:
					calls[p.ToolCallID] = true
				case recap.PartToolResult:
					// A result with an ID of its own is paired by the
					// caller (an orphan in the input stays one); those the
					// conversion pairs by name follow their calls.
					derived := strings.HasPrefix(p.ToolCallID, "recap-derived-call:")
					if derived && !calls[p.ToolCallID] && !strings.HasSuffix(p.ToolCallID, "#unpaired") {
						t.Fatalf("message %d: result %q before its call", i, p.ToolCallID)
					}
				}
			}
		}
		sys, back, err := gemini.ToContents(msgs)
		if err != nil {
			t.Fatalf("ToContents of FromContents' messages: %v", err)
		}
		if req.System != nil && len(req.System.Parts) == 0 {
			req.System = nil // an empty system instruction is no message
		}
		if len(req.Contents) == 0 {
			req.Contents = nil // [] and null are the same request
		}
		if diff := cmp.Diff(apitest.JSONOf(t, req.System), apitest.JSONOf(t, sys)); diff != "" {
			t.Fatalf("system instruction (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(apitest.JSONOf(t, req.Contents), apitest.JSONOf(t, back)); diff != "" {
			t.Fatalf("contents (-before +after):\n%s", diff)
		}
	})
}
