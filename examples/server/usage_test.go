package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/recapgo/recap/tokens"
)

// TestUsageCalibrates: with -chat-model, the usage clients report to POST
// /api/usage corrects the server's counts: a provider counting 30% more
// than o200k_base is matched within a few percent, from above, after ten
// reports, and the payload routes count with the correction.
func TestUsageCalibrates(t *testing.T) {
	base := startServer(t, nil, "-chat-model", "provider-x", "-message-overhead", "3")
	counter, _ := tokens.NewTiktoken(tokens.O200kBase)
	msgs := loadChat(1, 6)
	o200k := 0
	for _, m := range msgs {
		o200k += counter.CountTokens(m.Text()) + 3
	}
	body, _ := json.Marshal(map[string]any{"messages": msgs})
	before := postPayloadTokens(t, base, string(body))

	const fixed = 40
	reported := int(math.Round(1.3*float64(o200k))) + fixed
	var out usageResponse
	for i := 1; i <= 10; i++ {
		b, _ := json.Marshal(map[string]any{"messages": msgs, "inputTokens": reported, "fixedTokens": fixed})
		status, got := post(t, base+"/api/usage", string(b))
		if status != 200 {
			t.Fatalf("report %d: status %d: %v", i, status, got)
		}
		raw, _ := json.Marshal(got)
		json.Unmarshal(raw, &out)
		if out.Observations != i || out.Model != "provider-x" {
			t.Fatalf("report %d: %+v", i, out)
		}
	}
	if out.Estimate < reported || float64(out.Estimate) > 1.03*float64(reported) {
		t.Errorf("estimate after 10 reports %d, want %d to 3%% above", out.Estimate, reported)
	}
	after := postPayloadTokens(t, base, string(body))
	if float64(after) < 1.25*float64(before)/1.1 { // before: o200k with the default 10% margin
		t.Errorf("payload tokens %d before, %d after calibration: the payload route does not count with it", before, after)
	}
}

func postPayloadTokens(t *testing.T, base, body string) int {
	t.Helper()
	status, out := post(t, base+"/api/chats/usage-chat/payload", body)
	if status != 200 {
		t.Fatalf("payload: status %d: %v", status, out)
	}
	return int(out["payloadTokens"].(float64))
}

func TestUsageRejects(t *testing.T) {
	base := startServer(t, nil, "-chat-model", "provider-x")
	msgs, _ := json.Marshal(loadChat(1, 2))
	for _, tc := range []struct {
		body string
		want string
	}{
		{`{"messages":` + string(msgs) + `}`, "inputTokens: required"},
		{`{"messages":` + string(msgs) + `,"inputTokens":-5}`, "non-negative integer"},
		{`{"messages":` + string(msgs) + `,"inputTokens":1.5}`, "non-negative integer"},
		{`{"messages":` + string(msgs) + `,"inputTokens":"many"}`, "expected a number"},
		{`{"messages":` + string(msgs) + `,"inputTokens":100000}`, "implausible"},
		{`{"messages":` + string(msgs) + `,"inputTokens":3}`, "implausible"},
		{`{"inputTokens":100}`, "messages: required"},
	} {
		status, out := post(t, base+"/api/usage", tc.body)
		if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["error"]), tc.want) {
			t.Errorf("%s: %d %v, want 400 mentioning %q", tc.body, status, out, tc.want)
		}
	}
	plain := startServer(t, nil)
	body := `{"messages":` + string(msgs) + `,"inputTokens":100}`
	if status, out := post(t, plain+"/api/usage", body); status != http.StatusNotImplemented {
		t.Errorf("without -chat-model: %d %v, want 501", status, out)
	}
}

// TestChatModelEstimate: -chat-model names a model recap knows, so the
// server counts with its estimate (Claude's counts more than o200k_base)
// and the family's framing, before any usage is reported.
func TestChatModelEstimate(t *testing.T) {
	msgs, _ := json.Marshal(map[string]any{"messages": loadChat(1, 6)})
	plain := postPayloadTokens(t, startServer(t, nil), string(msgs))
	claude := postPayloadTokens(t, startServer(t, nil, "-chat-model", "claude-sonnet-4-5"), string(msgs))
	if claude <= plain {
		t.Errorf("payload tokens %d for claude-sonnet-4-5, %d with o200k_base: the estimate is not used", claude, plain)
	}
}
