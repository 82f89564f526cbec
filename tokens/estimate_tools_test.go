package tokens

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEstimatorToolTokens: for the random tool sets of
// testdata/estimate/tools.jsonl (see gen_tools.mjs), ToolTokens is
// ai-tokenizer's estimate times 1 + EstimateMargin, rounded up, for
// Claude models with different tool-use prompts and for Gemini with the
// largest of ai-tokenizer's Gemini constants, which must be recap's.
func TestEstimatorToolTokens(t *testing.T) {
	sets := 0
	readLines(t, "testdata/estimate/tools.jsonl", func(line []byte) {
		var rec struct {
			Model  string             `json:"model"`
			Tools  json.RawMessage    `json:"tools"`
			Count  int                `json:"count"`
			Gemini map[string]float64 `json:"gemini"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Gemini != nil {
			g := func(k string) int { return int(rec.Gemini[k]) }
			want := toolCosts{exist: g("toolsExist"), perTool: g("perTool"), perDesc: g("perDesc"),
				firstProp: g("perFirstProp"), nextProp: g("perAdditionalProp"), propDesc: g("perPropDesc"),
				perEnum: g("perEnum"), nestedObject: g("perNestedObject"), arrayOfObjects: g("perArrayOfObjects")}
			if diff := cmp.Diff(want, geminiTools, cmp.AllowUnexported(toolCosts{})); diff != "" {
				t.Errorf("geminiTools differ from ai-tokenizer's largest Gemini constants (-ai-tokenizer +recap):\n%s", diff)
			}
			return
		}
		model := rec.Model
		if model == "recap/gemini" {
			model = "gemini-2.5-pro"
		}
		e, err := EstimatorForModel(model)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.ToolTokens(rec.Tools)
		if err != nil {
			t.Fatalf("%s: %v", rec.Tools, err)
		}
		want := int(math.Ceil(float64(rec.Count) * (1 + EstimateMargin)))
		if rec.Count == 0 {
			want = 0 // no tools
		}
		if got != want {
			t.Errorf("%s, %s: ToolTokens = %d, want %d (ai-tokenizer's %d)", rec.Model, rec.Tools, got, want, rec.Count)
		}
		sets++
	})
	if sets < 200 {
		t.Fatalf("%d tool sets in the fixture", sets)
	}
}

// TestToolTokensShapes: the same tools in each provider's shape cost the
// same; providers' own tools cost nothing; and bad input is
// ErrInvalidRequest.
func TestToolTokensShapes(t *testing.T) {
	const schema = `{"type":"object","properties":{"city":{"type":"string","description":"The city"},` +
		`"unit":{"type":"string","enum":["c","f"]},"days":{"type":"array","items":{"type":"object","properties":{"d":{"type":"integer"}}}}},"required":["city"]}`
	const gemini = `{"type":"OBJECT","properties":{"city":{"type":"STRING","description":"The city"},` +
		`"unit":{"type":"STRING","enum":["c","f"]},"days":{"type":"ARRAY","items":{"type":"OBJECT","properties":{"d":{"type":"INTEGER"}}}}},"required":["city"]}`
	shapes := map[string]string{
		"anthropic":         `[{"name":"get_weather","description":"Weather now","input_schema":` + schema + `},{"type":"custom","name":"noop"}]`,
		"chat completions":  `[{"type":"function","function":{"name":"get_weather","description":"Weather now","parameters":` + schema + `}},{"type":"function","function":{"name":"noop"}}]`,
		"responses":         `[{"type":"function","name":"get_weather","description":"Weather now","parameters":` + schema + `,"strict":true},{"type":"function","name":"noop"}]`,
		"gemini":            `[{"functionDeclarations":[{"name":"get_weather","description":"Weather now","parameters":` + gemini + `},{"name":"noop"}]}]`,
		"gemini json":       `[{"functionDeclarations":[{"name":"get_weather","description":"Weather now","parametersJsonSchema":` + schema + `}]},{"function_declarations":[{"name":"noop"}]}]`,
		"gemini, bare":      `[{"name":"get_weather","description":"Weather now","parametersJsonSchema":` + schema + `},{"name":"noop","parameters":null}]`,
		"request body":      `{"model":"claude-sonnet-4-5","max_tokens":1024,"tools":[{"name":"get_weather","description":"Weather now","input_schema":` + schema + `},{"name":"noop"}],"messages":[]}`,
		"legacy functions":  `{"functions":[{"name":"get_weather","description":"Weather now","parameters":` + schema + `}],"tools":[{"type":"function","function":{"name":"noop"}}]}`,
		"with server tools": `[{"type":"web_search_20250305","name":"web_search","max_uses":5},{"name":"get_weather","description":"Weather now","input_schema":` + schema + `},{"googleSearch":{}},{"type":"web_search"},{"codeExecution":{}},{"name":"noop"}]`,
	}
	for _, model := range []string{"claude-sonnet-4-5", "gemini-2.5-flash", "gpt-4o"} {
		e, err := EstimatorForModel(model)
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.ToolTokens([]byte(shapes["anthropic"]))
		if err != nil || want <= 0 {
			t.Fatalf("%s: %d, %v", model, want, err)
		}
		for name, tools := range shapes {
			got, err := e.ToolTokens([]byte(tools))
			if err != nil || got != want {
				t.Errorf("%s, %s: ToolTokens = %d, %v; want %d", model, name, got, err, want)
			}
		}
		for _, none := range []string{``, `null`, `[]`, `{}`, `{"messages":[]}`, `[{"type":"web_search_20250305","name":"web_search"},{"googleSearch":{}}]`} {
			if got, err := e.ToolTokens([]byte(none)); got != 0 || err != nil {
				t.Errorf("%s, %q: ToolTokens = %d, %v; want 0", model, none, got, err)
			}
		}
		for _, bad := range []string{`{"tools":{}}`, `[1]`, `"tools"`, `{"tools":[1]}`, `[{"functionDeclarations":[{"description":"no name"}]}]`,
			`[{"type":"function","function":{"name":"f","parameters":{"properties":[}}}]`} {
			if _, err := e.ToolTokens([]byte(bad)); !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("%s, %s: err %v, want ErrInvalidRequest", model, bad, err)
			}
		}
	}
}

// TestToolTokensOpenAI: for an OpenAI model, ToolTokens is what
// OpenAIRequestOverhead counts for the tools of a request without a system
// message, less the reply priming.
func TestToolTokensOpenAI(t *testing.T) {
	readLines(t, "testdata/requests/fixture.jsonl", func(line []byte) {
		var rec struct {
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		var req struct {
			Tools     json.RawMessage   `json:"tools"`
			Functions []json.RawMessage `json:"functions"`
		}
		if err := json.Unmarshal(rec.Body, &req); err != nil {
			t.Fatal(err)
		}
		tools := req.Tools
		if len(req.Functions) > 0 {
			wrapped := make([]map[string]any, len(req.Functions))
			for i, f := range req.Functions {
				wrapped[i] = map[string]any{"type": "function", "function": f}
			}
			tools, _ = json.Marshal(wrapped)
		}
		for _, model := range []string{"gpt-4", "gpt-4o"} {
			e, err := EstimatorForModel(model)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(map[string]json.RawMessage{"tools": tools})
			if len(tools) == 0 {
				body = []byte(`{}`)
			}
			want, err := OpenAIRequestOverhead(e.base, body)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.ToolTokens(tools)
			if err != nil || got != want-OpenAIReplyPriming {
				t.Errorf("%s, %s: ToolTokens = %d, %v; want %d", model, tools, got, err, want-OpenAIReplyPriming)
			}
		}
	})
}

func TestClaudeToolPrompt(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  int
	}{
		{"claude-3-opus-20240229", 586},
		{"claude-3-haiku-20240307", 317},
		{"anthropic/claude-3.5-haiku", 317},
		{"claude-3-5-sonnet-20240620", 347},
		{"claude-3-5-sonnet-20241022", 366},
		{"claude-3-5-sonnet-latest", 366},
		{"claude-3-7-sonnet@20250219", 366},
		{"anthropic.claude-sonnet-4-20250514-v1:0", 366},
		{"claude-opus-4-1", 366},
		{"anthropic/claude-opus-4.1", 366},
		{"claude-sonnet-4-5-20250929", 549},
		{"claude-haiku-4-5", 549},
		{"claude-opus-4-5", 549},
		{"claude-sonnet-4-6", 586}, // unknown: the largest
		{"claude-opus-5", 586},
	} {
		e, err := EstimatorForModel(tt.model)
		if err != nil {
			t.Fatal(err)
		}
		if got := claudeTools(e.model).exist; got != tt.want {
			t.Errorf("%s: tool-use prompt %d, want %d", tt.model, got, tt.want)
		}
	}
}

// FuzzToolTokens: ToolTokens never panics, is never negative, and a
// further tool never lowers it.
func FuzzToolTokens(f *testing.F) {
	f.Add(`{"name":"get_weather","description":"Weather","input_schema":{"type":"object","properties":{"city":{"type":"string","enum":["a",1,null]}}}}`, "gemini-2.5-flash")
	f.Add(`{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"a":{"type":"ARRAY","items":{"anyOf":[{"type":"object","properties":{"b":{}}}]}}}}}]}`, "claude-opus-4-5")
	f.Add(`{"type":"function","function":{"name":"f","parameters":{"oneOf":[{"properties":{"x":{"allOf":[{"properties":{"y":{}}}]}}}]}}}`, "gpt-4o")
	f.Fuzz(func(t *testing.T, tool, model string) {
		e, err := EstimatorForModel(model)
		if err != nil {
			return
		}
		one, err := e.ToolTokens([]byte("[" + tool + "]"))
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("error %v does not match ErrInvalidRequest", err)
			}
			return
		}
		if one < 0 {
			t.Fatalf("ToolTokens = %d", one)
		}
		if strings.TrimSpace(tool) == "" {
			return // "[ ]": no element to put another beside
		}
		const other = `{"name":"other_tool","description":"Another one","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}}`
		two, err := e.ToolTokens([]byte("[" + strings.Join([]string{tool, other}, ",") + "]"))
		if err != nil || two < one {
			t.Fatalf("with a further tool: %d, %v; want at least %d", two, err, one)
		}
	})
}
