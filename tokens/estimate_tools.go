package tokens

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// toolCosts are the tokens a family adds for tool definitions beyond
// their names, descriptions and property names, as ai-tokenizer 1.0.6
// (MIT) fits them to the providers' reported usage.
type toolCosts struct {
	exist          int // once, when a request has tools: the provider's tool-use system prompt
	perTool        int // each tool after the first
	perDesc        int // each tool with a description
	firstProp      int // the first property of an object
	nextProp       int // each other property
	propDesc       int // each property with a description
	perEnum        int // each property with an enum
	nestedObject   int // each property that is an object
	arrayOfObjects int // each property that is an array of objects
}

// claudeTools returns ai-tokenizer's tool costs of a Claude model; they
// differ in the tool-use system prompt only. A model ai-tokenizer does not
// know gets the largest (Claude 3 Opus's), so that the estimate errs high.
func claudeTools(name string) toolCosts {
	exist := 586
	for _, m := range claudeToolPrompts {
		if claudeModelIs(name, m.model) {
			exist = m.tokens
			break
		}
	}
	return toolCosts{exist: exist, perTool: 53, perDesc: 5, firstProp: 13, nextProp: 12, propDesc: 5,
		perEnum: 9, nestedObject: 12, arrayOfObjects: 13}
}

// claudeToolPrompts are ai-tokenizer's tool-use system prompts of the
// Claude models it knows, in tokens.
var claudeToolPrompts = []struct {
	model  string
	tokens int
}{
	{"claude-3-opus", 586},
	{"claude-3-haiku", 317},
	{"claude-3-5-haiku", 317},
	{"claude-3-5-sonnet-20240620", 347},
	{"claude-3-5-sonnet", 366},
	{"claude-3-7-sonnet", 366},
	{"claude-opus-4", 366},
	{"claude-opus-4-1", 366},
	{"claude-sonnet-4", 366},
	{"claude-sonnet-4-5", 549},
	{"claude-haiku-4-5", 549},
	{"claude-opus-4-5", 549},
}

// claudeModelIs reports whether name (lower case, without a provider's
// prefix) is model or a dated, versioned or aliased release of it:
// "claude-sonnet-4-20250514", Bedrock's "claude-sonnet-4-20250514-v1:0",
// Vertex's "claude-sonnet-4@20250514", "claude-3-5-sonnet-latest"; but
// not "claude-sonnet-4-5", another model. OpenRouter's dots
// ("claude-opus-4.1") count as hyphens.
func claudeModelIs(name, model string) bool {
	name = strings.ReplaceAll(name, ".", "-")
	rest, ok := strings.CutPrefix(name, model)
	if !ok {
		return false
	}
	switch {
	case rest == "", rest[0] == '@', rest[0] == ':':
		return true
	case strings.HasPrefix(rest, "-20"), strings.HasPrefix(rest, "-v"), strings.HasPrefix(rest, "-latest"):
		return true
	}
	return false
}

// geminiTools is the largest of each of ai-tokenizer's tool costs of its
// Gemini models (they differ between the 2.5 previews of September 2025
// and the rest), so that the estimate errs high for every Gemini model.
var geminiTools = toolCosts{exist: 18, perTool: 18, firstProp: 10, nextProp: 10, perEnum: 5,
	nestedObject: 29, arrayOfObjects: 29}

// ToolTokens returns what the tool definitions in tools, a JSON array (or
// a request body, whose "tools" and legacy "functions" it reads), add to
// a request to the Estimator's model: the tools' share of the request's
// fixed part, to add to recap's WithReservedTokens with RequestOverhead. Each
// definition may be in any provider's shape:
//
//   - Anthropic: {"name", "description", "input_schema"}
//   - OpenAI Chat Completions: {"type": "function", "function": {"name",
//     "description", "parameters"}}
//   - OpenAI Responses: {"type": "function", "name", "description",
//     "parameters"}
//   - Gemini: {"functionDeclarations": [{"name", "description",
//     "parameters" or "parametersJsonSchema"}, ...]}, or one declaration
//
// For an OpenAI model it is the count of [OpenAIRequestOverhead] for the
// tools alone: their rendering, as for a request without a system
// message (the larger count), without the reply priming and the tool
// choice. For Claude and Gemini it is ai-tokenizer's estimate, times 1 +
// EstimateMargin, rounded up: the tool-use system prompt once (for
// Claude, per model: 317 to 586 tokens, the largest for a model
// ai-tokenizer does not know), per tool its name, its description and a
// fixed cost, and per property of its parameters (nested objects and
// arrays of objects included, and the members of anyOf, oneOf and allOf)
// its name, description and enum values and a fixed cost; for Gemini the
// largest of ai-tokenizer's constants of its Gemini models. Matched by
// TestEstimatorToolTokens against ai-tokenizer on 240 random tool sets
// (testdata/estimate/tools.jsonl).
//
// Not counted: "$ref" references into "$defs" (count a schema with its
// references resolved), and the system prompts of the providers' own
// tools (OpenAI's web search, Anthropic's server tools such as
// web_search, Gemini's googleSearch and codeExecution), which are the
// providers' and not published; a definition without a name or
// parameters is such a tool. Where those matter, feed a recap Calibrator with
// the usage the provider reports, or count the request with the
// provider's endpoint. tools that is neither a JSON array of objects nor
// a JSON object, or a definition that is not JSON, is an error matching
// ErrInvalidRequest.
func (e *Estimator) ToolTokens(tools []byte) (int, error) {
	fns, err := toolFunctions(tools)
	if err != nil {
		return 0, err
	}
	if len(fns) == 0 {
		return 0, nil
	}
	var costs toolCosts
	switch e.family {
	case FamilyOpenAI:
		defs := e.base.CountTokens(renderFunctions(fns)) + 9
		if enc, ok := e.base.(*Tiktoken); !ok || enc.Encoding() != Cl100kBase {
			defs = max(defs, cookbookTools(e.base, fns))
		}
		return defs, nil
	case FamilyClaude:
		costs = claudeTools(e.model)
	default:
		costs = geminiTools
	}
	n := costs.exist
	for i, f := range fns {
		n += e.base.CountTokens(f.name)
		if f.description != "" {
			n += costs.perDesc + e.base.CountTokens(f.description)
		}
		n += costs.properties(e.base, f.parameters, 0)
		if i > 0 {
			n += costs.perTool
		}
	}
	return int(math.Ceil(float64(n) * (1 + EstimateMargin))), nil
}

// maxSchemaDepth bounds the walk of a schema, which JSON cannot make
// cyclic but can make deep.
const maxSchemaDepth = 64

// properties counts the properties of an object schema s as ai-tokenizer
// does, and those of the objects in its anyOf, oneOf and allOf.
func (c toolCosts) properties(tc Counter, s *schema, depth int) int {
	if s == nil || depth > maxSchemaDepth {
		return 0
	}
	n := 0
	for i, p := range s.properties {
		n += tc.CountTokens(p.name)
		if i == 0 {
			n += c.firstProp
		} else {
			n += c.nextProp
		}
		ps := p.schema
		if ps.description != "" {
			n += c.propDesc + tc.CountTokens(ps.description)
		}
		if ps.hasEnum {
			n += c.perEnum
			for _, v := range ps.enum {
				n += tc.CountTokens(jsString(v))
			}
		}
		switch {
		case isObject(ps):
			n += c.nestedObject + c.properties(tc, ps, depth+1)
		case isArray(ps):
			if isObject(ps.items) {
				n += c.arrayOfObjects
			}
			n += c.properties(tc, ps.items, depth+1)
		default:
			n += c.alternatives(tc, ps, depth+1)
		}
	}
	return n + c.alternatives(tc, s, depth+1)
}

// alternatives counts the objects among the anyOf, oneOf and allOf
// members of s.
func (c toolCosts) alternatives(tc Counter, s *schema, depth int) int {
	n := 0
	for _, alt := range s.anyOf {
		n += c.properties(tc, alt, depth)
	}
	for _, alt := range s.alternatives {
		n += c.properties(tc, alt, depth)
	}
	return n
}

// isObject reports whether s describes an object: "type" "object" (or
// Gemini's "OBJECT"), or properties.
func isObject(s *schema) bool {
	return s != nil && (strings.EqualFold(s.typ, "object") || len(s.properties) > 0)
}

// isArray reports whether s describes an array with an item schema.
func isArray(s *schema) bool {
	return s != nil && s.items != nil && (s.typ == "" || strings.EqualFold(s.typ, "array"))
}

// toolFunctions reads the function definitions of a JSON array of tools
// in any provider's shape (see ToolTokens), in order.
func toolFunctions(tools []byte) ([]function, error) {
	if t := bytes.TrimSpace(tools); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, nil
	}
	var items []json.RawMessage
	if t := bytes.TrimSpace(tools); t[0] == '{' {
		// A request body: its tools, and OpenAI's legacy functions.
		var body struct {
			Tools     []json.RawMessage `json:"tools"`
			Functions []json.RawMessage `json:"functions"`
		}
		if err := json.Unmarshal(tools, &body); err != nil {
			return nil, fmt.Errorf("%w: request: %v", ErrInvalidRequest, err)
		}
		items = body.Tools
		for _, f := range body.Functions {
			items = append(items, json.RawMessage(`{"type":"function","function":`+string(f)+`}`))
		}
	} else if err := json.Unmarshal(tools, &items); err != nil {
		return nil, fmt.Errorf("%w: tools: %v", ErrInvalidRequest, err)
	}
	var fns []function
	for i, raw := range items {
		var t struct {
			Type          string            `json:"type"`
			Name          string            `json:"name"`
			Function      json.RawMessage   `json:"function"`
			Declarations  []json.RawMessage `json:"functionDeclarations"`
			Declarations2 []json.RawMessage `json:"function_declarations"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("%w: tool %d: %v", ErrInvalidRequest, i, err)
		}
		var decls []json.RawMessage
		switch {
		case len(t.Declarations) > 0 || len(t.Declarations2) > 0:
			decls = append(t.Declarations, t.Declarations2...) // Gemini's
		case len(t.Function) > 0 && (t.Type == "function" || t.Type == ""):
			decls = []json.RawMessage{t.Function} // Chat Completions'
		case t.Type != "" && t.Type != "function" && t.Type != "custom" || t.Name == "":
			continue // a provider's own tool
		default:
			decls = []json.RawMessage{raw}
		}
		for j, d := range decls {
			f, err := toolFunction(d)
			if err != nil {
				return nil, fmt.Errorf("%w: tool %d, function %d: %v", ErrInvalidRequest, i, j, err)
			}
			fns = append(fns, f)
		}
	}
	return fns, nil
}

// toolFunction reads one function definition, whose schema may be under
// "parameters", "parametersJsonSchema" or "input_schema".
func toolFunction(raw json.RawMessage) (function, error) {
	var d struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		JSONSchema  json.RawMessage `json:"parametersJsonSchema"`
		JSONSchema2 json.RawMessage `json:"parameters_json_schema"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return function{}, err
	}
	params := d.Parameters
	for _, alt := range []json.RawMessage{d.JSONSchema, d.JSONSchema2, d.InputSchema} {
		if len(params) == 0 || bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
			params = alt
		}
	}
	return newFunction(d.Name, d.Description, params)
}
