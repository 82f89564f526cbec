package recap

import (
	"encoding/json"
	"testing"
)

// TestUnknownPartsCounted: a part or block of a type recap does not know,
// in any format, counts as its compact JSON (its media as attachments),
// never nothing; the AI SDK's step, source and data parts, which the AI
// SDK does not send to the model, count nothing; an adapter's private part
// counts its Text.
func TestUnknownPartsCounted(t *testing.T) {
	tests := []struct {
		name, reason, msg, want string
		media                   []string
	}{
		{"UIUnknown", "a UIMessage part of a newer type",
			`{"id":"1","role":"assistant","parts":[{"type":"widget","title":"Chart", "rows": [1, 2]}]}`,
			`{"type":"widget","rows":[1,2],"title":"Chart"}`, nil},
		{"UIMarkers", "step, source and data parts are not sent to the model",
			`{"id":"1","role":"assistant","parts":[{"type":"step-start"},{"type":"source-url","url":"https://x"},{"type":"data-weather","data":{"t":1}},{"type":"text","text":"hi"}]}`,
			"hi", nil},
		{"OpenAIUnknown", "an OpenAI block of another type, its text and the rest",
			`{"role":"user","content":[{"type":"input_text","text":"hello","lang":"en"}]}`,
			`{"type":"input_text","text":"hello","lang":"en"}`, nil},
		{"AnthropicUnknownMedia", "an unknown block holding an image counts it as an attachment",
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"},{"type":"container_upload","file":{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}}]}`,
			"x\n" + `{"type":"container_upload","file":{"type":"image","source":{"type":"base64","media_type":"image/png","data":"[attachment: image/png]"}}}`,
			[]string{"image/png"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Message
			if err := json.Unmarshal([]byte(tt.msg), &m); err != nil {
				t.Fatal(err)
			}
			var media []string
			if got := m.text(&media); got != tt.want || len(media) != len(tt.media) {
				t.Errorf("%s: Text() = %s, media %v; want %s, %v", tt.reason, got, media, tt.want, tt.media)
			}
		})
	}
	private := Message{Role: RoleAssistant, Parts: []Part{
		{Type: "compaction", Extra: map[string]json.RawMessage{"\x00item": json.RawMessage(`{"encrypted_content":"gAAAA"}`)}},
		{Type: "image_generation_call", Text: "[attachment: image]", Extra: map[string]json.RawMessage{"\x00item": json.RawMessage(`{"result":"iVBOR"}`)}},
	}}
	if got := private.Text(); got != "[attachment: image]" {
		t.Errorf("an adapter's private parts: Text() = %q, want their Text only", got)
	}
}
