package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/setup"
	"github.com/recapgo/recap/tokens"
)

var update = flag.Bool("update", false, "update golden test files")

func noEnv(string) (string, bool) { return "", false }

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// runCLI runs the program with an empty standard input and returns its
// exit code, stdout and stderr.
func runCLI(t *testing.T, lookup func(string) (string, bool), args ...string) (int, string, string) {
	t.Helper()
	return runStdin(t, lookup, "", args...)
}

// runStdin runs the program with stdin as its standard input and returns
// its exit code, stdout and stderr.
func runStdin(t *testing.T, lookup func(string) (string, bool), stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, lookup)
	return code, stdout.String(), stderr.String()
}

// golden compares got with the file name in testdata/golden, which
// -update rewrites.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("testdata", "golden", name), got)
}

// goldenFile compares got with the file at path, which -update rewrites.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	name := filepath.Base(path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func chats(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "chats", "*.json"))
	if err != nil || len(files) < 5 {
		t.Fatalf("sample chats: %v %v", files, err)
	}
	return files
}

func TestPlanGolden(t *testing.T) {
	for _, file := range chats(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, noEnv, "plan", "-trigger", "300", file)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "plan-"+name+".txt", out)
		})
	}
}

func TestCompressGolden(t *testing.T) {
	for _, file := range chats(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, noEnv, "compress", "-trigger", "300", file)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var err error
			if name == "anthropic" {
				// A request body, its system and messages compressed.
				_, err = recap.DecodeAnthropic([]byte(out))
			} else {
				var payload []recap.Message
				err = json.Unmarshal([]byte(out), &payload)
			}
			if err != nil {
				t.Fatalf("payload is not JSON messages: %v", err)
			}
			golden(t, "compress-"+name+".txt", out+"--- stderr\n"+errOut)
		})
	}
}

// TestCompressContinues runs compress on the first part of a chat and then
// on all of it, with one store file: the second run starts from the first
// run's boundary and merges its summary.
func TestCompressContinues(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "chats", "long.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	part, _ := json.Marshal(all[:41]) // system + 20 conversations
	partFile := filepath.Join(dir, "chat.json")
	if err := os.WriteFile(partFile, part, 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "chat.db")
	code, _, errOut := runCLI(t, noEnv, "compress", "-store", db, "-trigger", "400", partFile)
	if code != 0 || !strings.Contains(errOut, "new boundary: a18") {
		t.Fatalf("first run: exit %d\n%s", code, errOut)
	}
	if err := os.WriteFile(partFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, noEnv, "plan", "-store", db, "-trigger", "400", partFile)
	if code != 0 || !strings.Contains(out, "recap-summary:a18") || !strings.Contains(out, "covered") {
		t.Fatalf("plan after first run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, noEnv, "compress", "-store", db, "-trigger", "400", "-o", filepath.Join(dir, "out.json"), partFile)
	if code != 0 || out != "" || !strings.Contains(errOut, "new boundary: a259") {
		t.Fatalf("second run: exit %d\n%s%s", code, out, errOut)
	}
	written, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil || !bytes.Contains(written, []byte("recap-summary:a259")) {
		t.Fatalf("-o file: %v\n%s", err, written)
	}
}

func TestEnvAndFlags(t *testing.T) {
	file := filepath.Join("testdata", "chats", "plain.json")
	tests := []struct {
		name   string
		reason string
		env    map[string]string
		args   []string
		code   int
		want   string // in stdout or stderr
	}{
		{"ViteEnv", "the VITE_ names set the options", map[string]string{"VITE_SUMMARY_WINDOW_CONVERSATIONS": "1"}, nil, 0, "assistant  38      history  Yes. Medical care"},
		{"RecapWinsOverVite", "RECAP_ names win over VITE_ ones", map[string]string{"VITE_SUMMARY_TRIGGER_TOKENS": "1", "RECAP_SUMMARY_TRIGGER_TOKENS": "100000"}, nil, 0, "trigger fires: false"},
		{"FlagWinsOverEnv", "flags win over the environment", map[string]string{"RECAP_SUMMARY_TRIGGER_TOKENS": "100000"}, []string{"-trigger", "10"}, 0, "trigger fires: true"},
		{"BadEnv", "a bad variable is an error naming it", map[string]string{"VITE_SUMMARY_TRIGGER_TOKENS": "many"}, nil, 1, `VITE_SUMMARY_TRIGGER_TOKENS="many"`},
		{"BadFlag", "an invalid option value is an error", nil, []string{"-window", "0"}, 1, "WithWindowConversations"},
		{"BadEncoding", "an unknown encoding is an error", nil, []string{"-encoding", "llama"}, 1, "unknown encoding"},
		{"BadFormat", "an unknown format is an error", nil, []string{"-format", "xml"}, 1, "unknown format"},
		{"WrongFormat", "forcing ui on OpenAI messages without IDs fails validation", nil, []string{"-format", "ui"}, 1, "no ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"plan"}, tt.args...), file)
			code, out, errOut := runCLI(t, env(tt.env), args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("%s: exit %d, want %d with %q in\n%s%s", tt.reason, code, tt.code, tt.want, out, errOut)
			}
		})
	}
}

func TestDecodeOpenAI(t *testing.T) {
	in := `[
	 {"role":"developer","content":"Be brief."},
	 {"role":"user","name":"ana","content":"Hi, I am Ana."},
	 {"role":"user","content":[{"type":"text","text":"Weather?"},{"type":"image_url","image_url":{"url":"x"}}]},
	 {"role":"assistant","content":"Checking.","tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]},
	 {"role":"tool","tool_call_id":"c1","content":"{\"t\":-3}"},
	 {"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"x","arguments":"not json"}}]}
	]`
	msgs, format, err := decodeChat([]byte(in), "auto")
	if err != nil || format != "openai" {
		t.Fatalf("decodeChat: %v, format %q", err, format)
	}
	// Every message keeps its OpenAI shape (no id, no parts), and gets an
	// ID chained to the one before it.
	out, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("re-encoded OpenAI messages (-input +output):\n%s", diff)
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		if !strings.HasPrefix(m.ID, recap.ChainIDPrefix) || seen[m.ID] || m.Format != recap.FormatOpenAI {
			t.Errorf("message %d: ID %q, format %v", i, m.ID, m.Format)
		}
		seen[m.ID] = true
	}
	if msgs[0].Role != recap.RoleDeveloper || !strings.Contains(msgs[4].Text(), `{"t":-3}`) || !strings.Contains(msgs[3].Text(), "weather") {
		t.Errorf("decoded as %+v", msgs)
	}
}

// TestLLMFromEnvironment: with RECAP_OPENAI_BASE_URL set, compress asks
// that OpenAI-compatible server; when it fails, the extractive fallback
// stands in and says so.
func TestLLMFromEnvironment(t *testing.T) {
	fail := false
	var requests int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Header().Set("Content-Type", "application/json")
		if fail {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(503)
			io.WriteString(w, `{"error":{"message":"model is loading","type":"server_error"}}`)
			return
		}
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"llama3","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Japan trip in April, vegetarian, 2,000 euros."}}]}`)
	}))
	defer srv.Close()
	env := map[string]string{"RECAP_OPENAI_BASE_URL": srv.URL + "/v1", "RECAP_MODEL": "llama3"}
	file := filepath.Join("testdata", "chats", "plain.json")

	code, out, errOut := runCLI(t, envMap(env), "compress", "-trigger", "300", file)
	if code != 0 || !strings.Contains(out, "Japan trip in April, vegetarian, 2,000 euros.") ||
		!strings.Contains(errOut, "with openai-compatible model llama3 at "+srv.URL+"/v1") {
		t.Fatalf("with the LLM: exit %d\n%s", code, errOut)
	}
	fail, requests = true, 0
	code, out, errOut = runCLI(t, envMap(env), "compress", "-trigger", "300", file)
	if code != 0 || !strings.Contains(errOut, "with the extractive fallback (offline, no LLM)") || requests != 4 {
		t.Fatalf("LLM down: exit %d, %d requests\n%s", code, requests, errOut)
	}
}

// TestProvidersFromEnvironment: with RECAP_GEMINI_API_KEY or
// RECAP_ANTHROPIC_API_KEY set, compress asks that provider's
// OpenAI-compatible endpoint under its base URL, with the key as a bearer
// token and the provider's default model.
func TestProvidersFromEnvironment(t *testing.T) {
	tests := []struct {
		name, keyVar, urlVar, path, model string
	}{
		{"gemini", "RECAP_GEMINI_API_KEY", "RECAP_GEMINI_BASE_URL", "/v1beta/openai/chat/completions", setup.DefaultGeminiModel},
		{"anthropic", "RECAP_ANTHROPIC_API_KEY", "RECAP_ANTHROPIC_BASE_URL", "/v1/chat/completions", setup.DefaultAnthropicModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paths, auths, models []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct{ Model string }
				json.NewDecoder(r.Body).Decode(&body)
				paths, auths, models = append(paths, r.URL.Path), append(auths, r.Header.Get("Authorization")), append(models, body.Model)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Japan trip in April, vegetarian, 2,000 euros."}}]}`)
			}))
			defer srv.Close()
			env := map[string]string{tt.keyVar: "k", tt.urlVar: srv.URL}
			code, out, errOut := runCLI(t, envMap(env), "compress", "-trigger", "300", filepath.Join("testdata", "chats", "plain.json"))
			if code != 0 || !strings.Contains(out, "Japan trip in April, vegetarian, 2,000 euros.") ||
				!strings.Contains(errOut, "with "+tt.name+" model "+tt.model) {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			if len(paths) != 1 || paths[0] != tt.path || auths[0] != "Bearer k" || models[0] != tt.model {
				t.Errorf("requests to %v, auth %v, models %v; want 1 to %s with Bearer k and %s", paths, auths, models, tt.path, tt.model)
			}
		})
	}
}

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestSpinnerOffWhenNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	sum := recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "s", nil })
	if got := withSpinner(sum, &buf); fmt.Sprintf("%p", got) != fmt.Sprintf("%p", sum) {
		t.Errorf("withSpinner wrapped a summarizer writing to a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := withSpinner(sum, f); fmt.Sprintf("%p", got) != fmt.Sprintf("%p", sum) {
		t.Errorf("withSpinner wrapped a summarizer writing to a regular file")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if got := withSpinner(sum, null); fmt.Sprintf("%p", got) != fmt.Sprintf("%p", sum) {
		t.Errorf("withSpinner wrapped a summarizer writing to %s, a character device but no terminal", os.DevNull)
	}
}

func TestMaxPayload(t *testing.T) {
	file := filepath.Join("testdata", "chats", "plain.json")
	code, out, errOut := runCLI(t, noEnv, "compress", "-trigger", "100000", "-max-payload", "120", file)
	var payload []recap.Message
	if code != 0 || json.Unmarshal([]byte(out), &payload) != nil || !strings.Contains(errOut, "left out to fit -max-payload: h-") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	code, out, errOut = runCLI(t, noEnv, "compress", "-trigger", "100000", "-max-payload", "5", file)
	if code != 1 || !strings.Contains(errOut, "exceed the payload budget") || !strings.Contains(out, `"content": "Great. Now write me a day-by-day itinerary."`) || strings.Contains(out, `"id"`) {
		t.Fatalf("budget below the pinned prompt and turn: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCheckFlag: -check makes compress check the new summary
// (recap.WithSummaryCheck) and report what it found; without it, nothing
// is checked.
func TestCheckFlag(t *testing.T) {
	file := filepath.Join("testdata", "chats", "plain.json")
	code, out, errOut := runCLI(t, noEnv, "compress", "-check", "-trigger", "100", file)
	var payload []recap.Message
	if code != 0 || json.Unmarshal([]byte(out), &payload) != nil || !strings.Contains(errOut, "recap: summary check: ") {
		t.Fatalf("-check: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runCLI(t, noEnv, "compress", "-trigger", "100", file)
	if code != 0 || strings.Contains(errOut, "summary check") || !strings.Contains(errOut, "summarized") {
		t.Fatalf("without -check: exit %d\n%s", code, errOut)
	}
	code, out, errOut = runCLI(t, noEnv, "simulate", "-check", "-trigger", "100", file)
	if code != 0 || !strings.Contains(out, "CALLS") {
		t.Fatalf("simulate -check: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestBadChats: a chat that cannot be read is an error that names the file
// once, after one "recap: " prefix, and says what is wrong in JSON terms;
// content is never dropped silently.
func TestBadChats(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		chat   string
		args   []string
		want   string   // the whole of stderr, after "recap: FILE: ", or after "recap: FILE" if it starts with a space
		cmds   []string // the commands run (default plan, compress and simulate)
	}{
		{"EmptyFile", "an empty file says so, not that JSON ended", "", nil, " is empty: want a JSON array of messages", nil},
		{"WhiteSpace", "white space is empty", " \n\t\r\n", nil, " is empty: want a JSON array of messages", nil},
		{"ByteOrderMarkOnly", "a byte order mark and a newline are empty", "\ufeff\n", nil, " is empty: want a JSON array of messages", nil},
		{"EmptyArray", "an empty array is a chat without messages", " [ ] ", nil, " has no messages", nil},
		{"Object", "no Go type name", `{"not":"array"}`, nil, "want a JSON array of messages, got an object", nil},
		{"String", "no Go type name", `"hi"`, nil, "want a JSON array of messages, got a string", nil},
		{"Null", "null is no chat", `null`, nil, "want a JSON array of messages, got null", nil},
		{"NotObjects", "each message is an object", `[{"id":"u","role":"user","content":"hi"}, 7]`, nil, "message 1: want a JSON object, got a number", nil},
		{"Syntax", "a syntax error says where", "[\n{\"id\":\"u\",}]", nil, `invalid JSON on line 2: invalid character '}' looking for beginning of object key string`, nil},
		{"Truncated", "a truncated file says so", `[{"id":"u"`, nil, "invalid JSON on line 1: unexpected end of JSON input", nil},
		{"MixedNoID", "a UIMessage chat with an id-less message is not taken for OpenAI (which would drop every parts array)",
			`[{"id":"u1","role":"user","parts":[{"type":"text","text":"Hi"}]},{"role":"assistant","parts":[{"type":"text","text":"Hello"}]},{"id":"u2","role":"user","parts":[{"type":"text","text":"Bye"}]}]`,
			nil, "message 0 has parts, as an AI SDK UIMessage, but message 1 has no id, as an OpenAI message: a chat must be in one format", nil},
		{"MixedToolCalls", "parts and tool_calls in one chat is an error",
			`[{"id":"u1","role":"user","content":"Hi"},{"id":"a1","role":"assistant","content":"","tool_calls":[]},{"id":"u2","role":"user","parts":[{"type":"text","text":"Bye"}]}]`,
			nil, "message 2 has parts, as an AI SDK UIMessage, but message 1 has tool_calls, as an OpenAI message: a chat must be in one format", nil},
		{"UINoID", "forced ui: the id-less message is named",
			`[{"id":"u1","role":"user","parts":[{"type":"text","text":"Hi"}]},{"role":"assistant","parts":[{"type":"text","text":"Hello"}]},{"id":"u2","role":"user","parts":[{"type":"text","text":"Bye"}]}]`,
			[]string{"-format", "ui"}, `invalid message 1 (id ""): no ID: an AI SDK UIMessage carries its own "id", made by generateId (useChat) or generateMessageId (toUIMessageStreamResponse); keep it when you store and send messages. recap derives IDs only for formats without them, such as OpenAI's`,
			[]string{"plan", "compress"}}, // simulate names the turn whose replay found it
		{"AnthropicOrphan", "a tool_result whose tool_use is not in the chat is named, not sent",
			`[{"role":"user","content":"q"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"r"}]}]`,
			nil, `invalid message 1 (id "h-c3890b9bc7d4.edc3491f"): a tool result for call "t9", whose tool call (tool_use) is not before it in the chat: send the history from the message that made the call`,
			[]string{"plan", "compress"}},
		{"OpenAIOrphan", "an OpenAI tool message whose call is not in the chat is named",
			`[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"c9","content":"r"}]`,
			nil, `invalid message 1 (id "h-102c80241f37.29552601"): a tool result for call "c9", whose tool call (tool_use) is not before it in the chat: send the history from the message that made the call`,
			[]string{"plan", "compress"}},
		{"AnthropicAsOpenAI", "forced openai would count the tool blocks 0",
			`[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]}]`,
			[]string{"-format", "openai"}, "message 1 has a tool_use block: it is an Anthropic message, not a chat in format openai (use -format anthropic)", nil},
		{"AnthropicWithToolCalls", "an Anthropic block and OpenAI tool_calls in one chat",
			`[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"assistant","content":null,"tool_calls":[]}]`,
			nil, "message 1 has a tool_use block, as an Anthropic message, but message 2 has tool_calls, as an OpenAI message: a chat must be in one format", nil},
		{"BodyAsUI", "a request body forced to ui",
			`{"system":"s","messages":[{"role":"user","content":"q"}]}`,
			[]string{"-format", "ui"}, `an object with "messages" is an Anthropic request body, not a chat in format ui (use -format anthropic)`, nil},
		{"BodyBadMessages", "a request body whose messages are not an array",
			`{"messages":{"role":"user"}}`, nil, "messages: want a JSON array of messages, got an object", nil},
		{"OpenAIWithParts", "forced openai would drop the parts",
			`[{"role":"user","content":"Hi"},{"role":"assistant","parts":[{"type":"text","text":"Hello"}]}]`,
			[]string{"-format", "openai"}, "message 1 has parts: it is an AI SDK UIMessage, not an OpenAI message (use -format ui)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "chat.json")
			if err := os.WriteFile(file, []byte(tt.chat), 0o644); err != nil {
				t.Fatal(err)
			}
			cmds := tt.cmds
			if cmds == nil {
				cmds = []string{"plan", "compress", "simulate"}
			}
			for _, cmd := range cmds {
				args := append(append([]string{cmd}, tt.args...), file)
				code, out, errOut := runCLI(t, noEnv, args...)
				want := "recap: " + file + ": " + tt.want + "\n"
				if strings.HasPrefix(tt.want, " ") {
					want = "recap: " + file + tt.want + "\n"
				}
				if code != 1 || out != "" || errOut != want {
					t.Errorf("%s: %s: exit %d, stdout %q\nstderr mismatch (-want +got):\n%s", cmd, tt.reason, code, out, cmp.Diff(want, errOut))
				}
			}
		})
	}
}

// TestAnthropicChat: an Anthropic request body and its messages array
// are read as Anthropic messages, their tool blocks counted (an Anthropic
// array read as OpenAI messages counted them 0, issue 22 §5), and the
// payload is a request body whose messages start with a user message, not
// a tool_result whose tool_use was summarized away.
func TestAnthropicChat(t *testing.T) {
	file := filepath.Join("testdata", "chats", "anthropic.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Messages json.RawMessage }
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	array := filepath.Join(t.TempDir(), "messages.json")
	if err := os.WriteFile(array, body.Messages, 0o644); err != nil {
		t.Fatal(err)
	}
	msgs, format, err := decodeChat(data, "auto")
	if err != nil || format != "anthropic" {
		t.Fatalf("decodeChat: %v, format %q", err, format)
	}
	agent, _ := os.ReadFile(filepath.Join("testdata", "chats", "agent.json"))
	openai, _, err := decodeChat(agent, "auto")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := newTokenizer("o200k_base", "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "s", nil }), recap.NewMemoryStore(), tok.options()...)
	if err != nil {
		t.Fatal(err)
	}
	// The same chat as agent.json: the tool results are strings with
	// spaces where OpenAI's are compacted JSON text, a few tokens more.
	if a, o := c.Measure(msgs), c.Measure(openai); a < o || a > o+o/10 {
		t.Errorf("the Anthropic chat measures %d tokens, the same chat in OpenAI's format %d", a, o)
	}
	for _, f := range []string{file, array} {
		code, out, errOut := runCLI(t, noEnv, "compress", "-trigger", "300", f)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errOut)
		}
		var got struct {
			Model    string
			System   json.RawMessage
			Messages []struct {
				Role    string
				Content json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: payload is not a request body: %v\n%s", f, err, out)
		}
		if f == file && got.Model != "claude-sonnet-4-5" {
			t.Errorf("%s: the body's model is lost: %s", f, out)
		}
		if len(got.Messages) == 0 || got.Messages[0].Role != "user" || strings.Contains(string(got.Messages[0].Content), "tool_result") {
			t.Errorf("%s: the payload's messages do not start with a user's message:\n%s", f, out)
		}
		// The summary, of the default summary role, ends the system.
		if !strings.Contains(string(got.System), "Earlier in this chat") || f == file && !strings.Contains(string(got.System), "You are Atlas") ||
			!strings.Contains(errOut, "summarized") {
			t.Errorf("%s: system %s, stderr %s", f, got.System, errOut)
		}
	}
}

// TestByteOrderMark: a chat saved with a UTF-8 byte order mark reads as
// without it.
func TestByteOrderMark(t *testing.T) {
	file := filepath.Join("testdata", "chats", "aisdk.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bom := filepath.Join(t.TempDir(), "aisdk.json")
	if err := os.WriteFile(bom, append([]byte("\uFEFF"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want, _ := runCLI(t, noEnv, "plan", "-trigger", "300", file)
	code, got, errOut := runCLI(t, noEnv, "plan", "-trigger", "300", bom)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan with a byte order mark mismatch (-want +got):\n%s", diff)
	}
}

// TestAISDKChats: the chats that examples/aisdk/gen.mjs made with the real
// Vercel AI SDK decode as UIMessages and compress, every message of the
// payload but the summary as it came in.
func TestAISDKChats(t *testing.T) {
	dir := filepath.Join("..", "aisdk", "testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the AI SDK chats are in the repository's examples/aisdk, not in this module alone: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".body.json") {
			continue
		}
		n++
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var in []recap.Message
			if err := json.Unmarshal(data, &in); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, noEnv, "compress", "-trigger", "200", "-window", "2", file)
			var payload []recap.Message
			if code != 0 || json.Unmarshal([]byte(out), &payload) != nil || !strings.Contains(errOut, "new boundary") {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			byID := map[string]recap.Message{}
			for _, m := range in {
				byID[m.ID] = m
			}
			for _, m := range payload {
				if strings.HasPrefix(m.ID, recap.SummaryIDPrefix) {
					continue
				}
				want, _ := json.Marshal(byID[m.ID])
				got, _ := json.Marshal(m)
				if !bytes.Equal(want, got) {
					t.Errorf("payload message %s mismatch (-want +got):\n%s", m.ID, cmp.Diff(string(want), string(got)))
				}
			}
		})
	}
	if n < 3 {
		t.Fatalf("%d AI SDK chats in ../aisdk/testdata, want 3 or more", n)
	}
}

// A fakeLLM is an OpenAI-compatible server that answers every call with a
// short summary and records, for each call, the IDs of the messages it was
// given and the tokens (o200k_base) of the previous summary and of their
// texts: what recap.WithMaxSummarizeInput bounds.
type fakeLLM struct {
	*httptest.Server
	mu     sync.Mutex // guards calls
	calls  []fakeCall
	failed error // the first request that could not be read
}

type fakeCall struct {
	ids    []string
	tokens int
}

// The parts of a prompt that recap.RenderPrompt makes.
var (
	promptPrevious = regexp.MustCompile(`(?s)<previous-summary-[0-9a-f]+>\n(.*?)\n</previous-summary-[0-9a-f]+>`)
	promptMessage  = regexp.MustCompile(`(?s)<message-[0-9a-f]+ role="[^"]*" id="([^"]*)">\n(.*?)\n</message-[0-9a-f]+>`)
)

func newFakeLLM(t *testing.T) *fakeLLM {
	t.Helper()
	counter, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeLLM{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		err := json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		defer f.mu.Unlock()
		if err != nil || len(body.Messages) != 2 || body.Messages[1].Role != "user" {
			if f.failed == nil {
				f.failed = fmt.Errorf("request %d: %v, %d messages", len(f.calls)+1, err, len(body.Messages))
			}
			w.WriteHeader(400)
			return
		}
		prompt := body.Messages[1].Content
		var c fakeCall
		if m := promptPrevious.FindStringSubmatch(prompt); m != nil {
			c.tokens += counter.CountTokens(m[1])
		}
		for _, m := range promptMessage.FindAllStringSubmatch(prompt, -1) {
			c.ids = append(c.ids, m[1])
			c.tokens += counter.CountTokens(m[2])
		}
		f.calls = append(f.calls, c)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Summary of %d calls."}}]}`, len(f.calls))
	}))
	t.Cleanup(f.Close)
	return f
}

// env returns the environment that chooses f as the LLM.
func (f *fakeLLM) env() func(string) (string, bool) {
	return env(map[string]string{"RECAP_OPENAI_BASE_URL": f.URL + "/v1", "RECAP_MODEL": "llama3"})
}

// reset forgets the calls recorded so far and returns them.
func (f *fakeLLM) reset(t *testing.T) []fakeCall {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed != nil {
		t.Fatal(f.failed)
	}
	calls := f.calls
	f.calls = nil
	return calls
}

// largeChat writes a chat of n conversations of about 150 tokens each,
// all different, to a file and returns its path.
func largeChat(t *testing.T, n int) string {
	t.Helper()
	msgs := []map[string]string{{"id": "sys", "role": "system", "content": "You are a helpful assistant."}}
	for i := 0; i < n; i++ {
		q := fmt.Sprintf("Question %d: what should I pack for day %d of the trip, given %d degrees and rain on %d of the afternoons?", i, i, i%30, i%7)
		a := strings.Repeat(fmt.Sprintf("For day %d, pack %d layers, an umbrella numbered %d and shoes for %d kilometres of walking. ", i, i%5+1, i*7, i%20+3), 4)
		msgs = append(msgs, map[string]string{"id": fmt.Sprintf("u%d", i), "role": "user", "content": q},
			map[string]string{"id": fmt.Sprintf("a%d", i), "role": "assistant", "content": a})
	}
	msgs = append(msgs, map[string]string{"id": "last", "role": "user", "content": "Thanks. And the last day?"})
	data, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "large.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMaxInput: with an LLM, compress folds a part to summarize larger
// than -max-input (default defaultMaxInput) in several calls, each given
// at most that many tokens, which together see every message the new
// boundary passes once, in order; -max-input 0 sends it in one call.
func TestMaxInput(t *testing.T) {
	llm := newFakeLLM(t)
	file := largeChat(t, 300) // about 45,000 tokens
	tests := []struct {
		name     string
		reason   string
		args     []string
		bound    int // 0: one call
		minCalls int
	}{
		{"Default", "the server's bound, by default", nil, defaultMaxInput, 2},
		{"Small", "a small bound, many calls", []string{"-max-input", "4000"}, 4000, 10},
		{"None", "0: no bound, one call", []string{"-max-input", "0"}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"compress"}, tt.args...), file)
			code, _, errOut := runCLI(t, llm.env(), args...)
			calls := llm.reset(t)
			if code != 0 || !strings.Contains(errOut, "with openai-compatible model llama3") {
				t.Fatalf("%s: exit %d\n%s", tt.reason, code, errOut)
			}
			if len(calls) < tt.minCalls || (tt.bound == 0 && len(calls) != 1) {
				t.Errorf("%s: %d calls, want %d or more (exactly 1 without a bound)", tt.reason, len(calls), tt.minCalls)
			}
			var ids []string
			total := 0
			for i, c := range calls {
				if tt.bound > 0 && c.tokens > tt.bound {
					t.Errorf("%s: call %d was given %d tokens, over %d", tt.reason, i+1, c.tokens, tt.bound)
				}
				ids = append(ids, c.ids...)
				total += c.tokens
			}
			if tt.bound == 0 && total <= defaultMaxInput {
				t.Errorf("%s: the one call was given %d tokens, not over the default bound: the chat is too small for the test", tt.reason, total)
			}
			// Window 2: the last conversation and the current turn stay
			// raw; every message before them was summarized once, in order.
			var want []string
			for i := 0; i < 299; i++ {
				want = append(want, fmt.Sprintf("u%d", i), fmt.Sprintf("a%d", i))
			}
			if diff := cmp.Diff(want, ids); diff != "" {
				t.Errorf("%s: messages summarized (-want +got):\n%s", tt.reason, diff)
			}
			if !strings.Contains(errOut, "new boundary: a298\n") {
				t.Errorf("%s: report:\n%s", tt.reason, errOut)
			}
		})
	}
}
