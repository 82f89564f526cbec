package tokens

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fixtureRequest is one line of testdata/requests/fixture.jsonl (see
// gen.mjs there).
type fixtureRequest struct {
	Body            json.RawMessage `json:"body"`
	PromptTokens    int             `json:"prompt_tokens"`
	FunctionsTokens int             `json:"functions_tokens"`
}

func readRequestFixture(t *testing.T) []fixtureRequest {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "requests", "fixture.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixtureRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r fixtureRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// messagesTokens counts a request's messages as openai-chat-tokens does:
// role, content and name, 3 per message, 1 more for a name. It is what
// Compress counts with WithMessageOverhead(OpenAIMessageOverhead) for
// these messages (every role is one token), plus the names.
func messagesTokens(tc Counter, body json.RawMessage) int {
	var req struct {
		Messages []struct{ Role, Content, Name string } `json:"messages"`
	}
	json.Unmarshal(body, &req)
	n := 0
	for _, m := range req.Messages {
		n += tc.CountTokens(m.Role) + tc.CountTokens(m.Content) + 3
		if m.Name != "" {
			n += tc.CountTokens(m.Name) + 1
		}
	}
	return n
}

// TestOpenAIRequestParity: with cl100k_base, the messages plus
// OpenAIRequestOverhead are openai-chat-tokens' estimate of the whole
// request, on every request of the fixture (nested objects, enums,
// arrays, anyOf, descriptions; tools and legacy functions; tool choices).
func TestOpenAIRequestParity(t *testing.T) {
	tc, err := NewTiktoken(Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	reqs := readRequestFixture(t)
	if len(reqs) < 300 {
		t.Fatalf("%d requests in the fixture", len(reqs))
	}
	mismatches := 0
	for i, r := range reqs {
		fixed, err := OpenAIRequestOverhead(tc, r.Body)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got := messagesTokens(tc, r.Body) + fixed; got != r.PromptTokens {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("request %d: %d tokens, openai-chat-tokens %d\n%s", i, got, r.PromptTokens, r.Body)
			}
		}
	}
	if mismatches > 0 {
		t.Fatalf("%d of %d requests differ", mismatches, len(reqs))
	}
}

// TestOpenAIRequestEstimateErrsHigh: with o200k_base, the estimate is never
// below either method it takes the larger of.
func TestOpenAIRequestEstimateErrsHigh(t *testing.T) {
	tc, err := NewTiktoken(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range readRequestFixture(t) {
		got, err := OpenAIRequestOverhead(tc, r.Body)
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Tools []struct {
				Function json.RawMessage `json:"function"`
			} `json:"tools"`
			Functions []json.RawMessage `json:"functions"`
		}
		json.Unmarshal(r.Body, &req)
		raw := req.Functions
		for _, tool := range req.Tools {
			raw = append(raw, tool.Function)
		}
		var fns []function
		for _, f := range raw {
			fn, err := parseFunction(f)
			if err != nil {
				t.Fatal(err)
			}
			fns = append(fns, fn)
		}
		if c := cookbookTools(tc, fns) + OpenAIReplyPriming; got < c {
			t.Fatalf("request %d: %d tokens, under the cookbook's %d", i, got, c)
		}
		if ts := tc.CountTokens(renderFunctions(fns)) + OpenAIReplyPriming; got < ts {
			t.Fatalf("request %d: %d tokens, under the rendering's %d", i, got, ts)
		}
	}
}

func TestOpenAIRequestOverhead(t *testing.T) {
	tc, err := NewTiktoken(Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	weather := `{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string","description":"The city"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}}`
	render := "namespace functions {\n\n// Get the weather\ntype get_weather = (_: {\n// The city\ncity: string,\nunit?: \"c\" | \"f\",\n}) => any;\n\n} // namespace functions"
	defs := tc.CountTokens(render) + 9
	tests := []struct {
		name string
		body string
		want int
	}{
		{"no tools", `{"messages":[{"role":"user","content":"hi"}]}`, OpenAIReplyPriming},
		{"a tool", `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":` + weather + `}]}`, OpenAIReplyPriming + defs},
		{"legacy functions", `{"messages":[],"functions":[` + weather + `]}`, OpenAIReplyPriming + defs},
		{"with a system message", `{"messages":[{"role":"system","content":"Be brief."}],"tools":[{"type":"function","function":` + weather + `}]}`,
			OpenAIReplyPriming + defs - 4 + tc.CountTokens("Be brief.\n") - tc.CountTokens("Be brief.")},
		{"tool choice none", `{"tools":[{"type":"function","function":` + weather + `}],"tool_choice":"none"}`, OpenAIReplyPriming + defs + 1},
		{"tool choice auto", `{"tools":[{"type":"function","function":` + weather + `}],"tool_choice":"auto"}`, OpenAIReplyPriming + defs},
		{"forced tool", `{"tools":[{"type":"function","function":` + weather + `}],"tool_choice":{"type":"function","function":{"name":"get_weather"}}}`,
			OpenAIReplyPriming + defs + tc.CountTokens("get_weather") + 4},
		{"other tool types are not counted", `{"tools":[{"type":"web_search"}]}`, OpenAIReplyPriming},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OpenAIRequestOverhead(tc, []byte(tt.body))
			if err != nil || got != tt.want {
				t.Errorf("OpenAIRequestOverhead = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	if got := renderFunctions([]function{mustFunction(t, weather)}); got != render {
		t.Errorf("rendering:\n%s\nwant:\n%s", got, render)
	}
}

func mustFunction(t *testing.T, raw string) function {
	t.Helper()
	f, err := parseFunction(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestOpenAIRequestOverheadErrors(t *testing.T) {
	tc, _ := NewTiktoken(Cl100kBase)
	for _, body := range []string{
		``, `[]`, `{"tools":[{"type":"function","function":{"description":"no name"}}]}`,
		`{"functions":[{"name":"f","parameters":{"type":"object","properties":{"a":{]}}}]}`,
		`{"functions":"not a list"}`,
	} {
		if _, err := OpenAIRequestOverhead(tc, []byte(body)); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%q: err = %v, want ErrInvalidRequest", body, err)
		}
	}
}

func TestJSNumber(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", 1: "1", -3: "-3", 2.5: "2.5", 0.1: "0.1", 1e-7: "1e-7", 1e21: "1e+21", 1e20: "100000000000000000000",
		123456.789: "123456.789", 1.5e-6: "0.0000015", -2.5e22: "-2.5e+22", 0.000001: "0.000001",
	} {
		if got := jsNumber(f); got != want {
			t.Errorf("jsNumber(%v) = %s, want %s", f, got, want)
		}
	}
	if got := jsString(json.RawMessage(`"a \"b\""`)); got != `a "b"` {
		t.Errorf("jsString = %s", got)
	}
}
