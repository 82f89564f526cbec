package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recapgo/recap/tokens"
)

// weatherTools are tool definitions as a client sends them to Anthropic.
const weatherTools = `[{"name":"get_weather","description":"Current weather in a city, with the temperature and the wind",
  "input_schema":{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Lisbon"},
  "unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}},
 {"name":"get_forecast","description":"Forecast for the next days","input_schema":{"type":"object","properties":{
  "city":{"type":"string"},"days":{"type":"integer","description":"1 to 10"}}}}]`

// TestReservedTokens: -tools keeps its tools' tokens (and the request's
// priming) off -max-payload, as recap estimates them for -chat-model, on
// top of -reserved-tokens; payloads fit under what is left.
func TestReservedTokens(t *testing.T) {
	tools := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(tools, []byte(weatherTools), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := tokens.EstimatorForModel("claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.ToolTokens([]byte(weatherTools))
	if err != nil {
		t.Fatal(err)
	}
	const ceiling, extra = 1000, 20
	reserved := n + e.RequestOverhead() + extra
	if reserved < 500 {
		t.Fatalf("the tools reserve %d tokens; the test wants most of the ceiling", reserved)
	}
	for _, tc := range []struct {
		name string
		args []string
		room int
	}{
		{"no tools", nil, ceiling},
		{"tools", []string{"-chat-model", "claude-sonnet-4-5", "-tools", tools, "-reserved-tokens", "20"}, ceiling - reserved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := startServer(t, nil, append([]string{"-trigger", "100000", "-max-payload", "1000"}, tc.args...)...)
			status, out := post(t, base+"/api/chats/c/payload", chatJSON(t, 30))
			if status != 200 {
				t.Fatalf("%d %v", status, out)
			}
			got := int(out["payloadTokens"].(float64))
			if got > tc.room || got < tc.room-200 {
				t.Errorf("payload of %d tokens, want at most %d (and close to it)", got, tc.room)
			}
		})
	}
}

func TestReservedTokensFlagErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"type":"function","function":{"description":"no name"}}]`), 0o600)
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(weatherTools), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-max-payload", "1000", "-reserved-tokens", "-1"}, "-reserved-tokens -1"},
		{[]string{"-max-payload", "1000", "-tools", filepath.Join(dir, "none.json")}, "-tools"},
		{[]string{"-max-payload", "1000", "-tools", bad}, "invalid request"},
		{[]string{"-tools", good}, "set it"},
		{[]string{"-max-payload", "100", "-tools", good}, "WithReservedTokens"},
	} {
		args := append([]string{"-insecure-no-auth", "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "x.db")}, tc.args...)
		err := run(context.Background(), args, func(string) string { return "" }, io.Discard, io.Discard, time.Now)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}
