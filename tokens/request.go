package tokens

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Counting what a Chat Completions request costs beyond the text of its
// messages: the framing of each message, the reply priming, tool (function)
// definitions and the tool choice (for recap's WithMessageOverhead and
// WithReservedTokens).

// OpenAIMessageOverhead is the tokens OpenAI's chat models (GPT-4o, GPT-4,
// GPT-3.5-turbo) add to a message's content: <|im_start|>, the role (one
// token for system, user, assistant and tool), <|im_sep|> and <|im_end|>.
// A payload's count with this overhead per message, plus
// [OpenAIReplyPriming] once per request, is what OpenAI's cookbook counts
// (3 per message plus the role's tokens) and what gpt-tokenizer's
// encodeChat returns, for messages without a name. A message name makes
// them differ: the cookbook adds 1 plus the name's tokens, encodeChat
// replaces the role's token with the name's. Names are not counted.
const OpenAIMessageOverhead = 4

// OpenAIReplyPriming is the tokens OpenAI adds to every Chat Completions
// request to prime the reply (<|start|>assistant<|message|>).
const OpenAIReplyPriming = 3

// ErrInvalidRequest is matched by the errors of [OpenAIRequestOverhead] for
// a request body or a tool definition it cannot read.
var ErrInvalidRequest = errors.New("tokens: invalid request")

// OpenAIRequestOverhead returns the tokens a Chat Completions request body
// costs beyond its messages, each counted as its text's tokens plus
// [OpenAIMessageOverhead] (as recap's Compress counts them with
// WithMessageOverhead(tokens.OpenAIMessageOverhead)): the reply priming
// ([OpenAIReplyPriming]), the definitions of its tools of type "function"
// (or of the legacy "functions"), its tool choice, and the newline that
// tool definitions add to its first system message. It is the request's
// fixed part, the same on every turn while the tools do not change: pass
// it to recap's WithReservedTokens so that the payload ceiling leaves room
// for it. The body's messages are read only for that system message.
//
// OpenAI renders function definitions for the model as TypeScript-like
// type declarations ("namespace functions { type get_weather = (_: {
// city: string, }) => any; }"), and counts those tokens, plus 9 for the
// wrapping, less 4 when the request has a system message of its own. With
// a cl100k_base counter (GPT-4, GPT-3.5-turbo), OpenAIRequestOverhead
// follows these rules exactly as the npm package openai-chat-tokens
// 0.2.8 infers them from the API (nested objects, enums, arrays, anyOf,
// descriptions; testdata/requests). With any other counter, o200k_base
// (GPT-4o and later) included, it is an estimate that errs high: the
// larger of that rendering and of the per-key accounting of OpenAI's
// cookbook for GPT-4o ("How to count tokens with tiktoken":
// 7 per function, 3 per property, 3 per enum item, 12 in all). Neither
// rule is published by OpenAI as a specification; calibrate against the
// usage the API reports (see [github.com/recapgo/recap.Calibrator]) where
// the margin matters.
//
// A "tool_choice" (or "function_call") of "none" costs 1 token, a forced
// function 4 plus its name's tokens, "auto" nothing; "required", which
// neither source covers, is counted as 1. Tools of other types than
// "function" are not counted. A body that is not a JSON object, or a
// function without a name, is an error matching ErrInvalidRequest.
func OpenAIRequestOverhead(tc Counter, body []byte) (int, error) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Type     string          `json:"type"`
			Function json.RawMessage `json:"function"`
		} `json:"tools"`
		Functions    []json.RawMessage `json:"functions"`
		ToolChoice   json.RawMessage   `json:"tool_choice"`
		FunctionCall json.RawMessage   `json:"function_call"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	var raw []json.RawMessage
	for _, t := range req.Tools {
		if t.Type == "function" || t.Type == "" && len(t.Function) > 0 {
			raw = append(raw, t.Function)
		}
	}
	raw = append(raw, req.Functions...)
	fns := make([]function, len(raw))
	for i, r := range raw {
		f, err := parseFunction(r)
		if err != nil {
			return 0, fmt.Errorf("%w: function %d: %v", ErrInvalidRequest, i, err)
		}
		fns[i] = f
	}

	tokens := OpenAIReplyPriming
	if len(fns) > 0 {
		system, hasSystem := "", false
		for _, m := range req.Messages {
			if m.Role == "system" {
				system, hasSystem = contentText(m.Content), true
				break
			}
		}
		defs := tc.CountTokens(renderFunctions(fns)) + 9
		if hasSystem {
			// The definitions reuse the request's system message, which
			// gains a trailing newline.
			defs += tc.CountTokens(system+"\n") - tc.CountTokens(system) - 4
		}
		if enc, ok := tc.(*Tiktoken); !ok || enc.Encoding() != Cl100kBase {
			defs = max(defs, cookbookTools(tc, fns))
		}
		tokens += defs
	}
	choice := req.ToolChoice
	if len(choice) == 0 {
		choice = req.FunctionCall
	}
	tokens += toolChoiceTokens(tc, choice)
	return tokens, nil
}

// contentText returns the text of a message's content: the string, or the
// text of its parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// toolChoiceTokens returns what a tool_choice or function_call costs.
func toolChoiceTokens(tc Counter, raw json.RawMessage) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return 0
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "auto" {
			return 0
		}
		return 1 // "none"; "required" alike
	}
	var forced struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &forced) != nil {
		return 0
	}
	name := forced.Name
	if name == "" {
		name = forced.Function.Name
	}
	return tc.CountTokens(name) + 4
}

// function is a function definition: its parameters are a JSON schema.
type function struct {
	name, description string
	parameters        *schema
}

// schema is the part of a JSON schema that the rendering reads, with the
// properties in their order in the JSON text, as JavaScript keeps them.
type schema struct {
	object       bool   // the schema is a JSON object (true, a string... are not)
	typ          string // "type" when it is a string
	description  string
	enum         []json.RawMessage
	hasEnum      bool
	properties   []property
	required     map[string]bool
	items        *schema
	anyOf        []*schema
	hasAnyOf     bool
	alternatives []*schema // oneOf and allOf members, which only estimates read
}

type property struct {
	name   string
	schema *schema
}

func parseFunction(raw json.RawMessage) (function, error) {
	var f struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return function{}, err
	}
	return newFunction(f.Name, f.Description, f.Parameters)
}

// newFunction returns the definition of a function whose parameters'
// schema is params (none if empty or null).
func newFunction(name, description string, params json.RawMessage) (function, error) {
	if name == "" {
		return function{}, errors.New("no name")
	}
	s := &schema{object: true}
	if len(params) > 0 && !bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
		var err error
		if s, err = parseSchema(params); err != nil {
			return function{}, fmt.Errorf("%s: parameters: %v", name, err)
		}
	}
	return function{name: name, description: description, parameters: s}, nil
}

// parseSchema reads a JSON schema, keeping the order of its properties.
func parseSchema(raw json.RawMessage) (*schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		if !json.Valid(raw) {
			return nil, errors.New("invalid JSON")
		}
		return &schema{}, nil // true, false, a string...: no type
	}
	var fields struct {
		Type        json.RawMessage   `json:"type"`
		Description json.RawMessage   `json:"description"`
		Enum        json.RawMessage   `json:"enum"`
		Properties  json.RawMessage   `json:"properties"`
		Required    []json.RawMessage `json:"required"`
		Items       json.RawMessage   `json:"items"`
		AnyOf       json.RawMessage   `json:"anyOf"`
		OneOf       json.RawMessage   `json:"oneOf"`
		AllOf       json.RawMessage   `json:"allOf"`
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	s := &schema{object: true, required: map[string]bool{}}
	json.Unmarshal(fields.Type, &s.typ)                // not a string: no type
	json.Unmarshal(fields.Description, &s.description) // not a string: none
	if json.Unmarshal(fields.Enum, &s.enum) == nil && len(fields.Enum) > 0 {
		s.hasEnum = true
	}
	for _, r := range fields.Required {
		var name string
		if json.Unmarshal(r, &name) == nil {
			s.required[name] = true
		}
	}
	if len(fields.Properties) > 0 {
		props, err := orderedProperties(fields.Properties)
		if err != nil {
			return nil, fmt.Errorf("properties: %v", err)
		}
		s.properties = props
	}
	if it := string(bytes.TrimSpace(fields.Items)); it != "" && it != "null" && it != "false" && it != "0" && it != `""` {
		items, err := parseSchema(fields.Items)
		if err != nil {
			return nil, fmt.Errorf("items: %v", err)
		}
		if bytes.TrimSpace(fields.Items)[0] == '[' {
			items = &schema{} // a tuple: no type
		}
		s.items = items
	}
	var anyOf []json.RawMessage
	if len(fields.AnyOf) > 0 && json.Unmarshal(fields.AnyOf, &anyOf) == nil {
		s.hasAnyOf = true
		for i, r := range anyOf {
			v, err := parseSchema(r)
			if err != nil {
				return nil, fmt.Errorf("anyOf %d: %v", i, err)
			}
			s.anyOf = append(s.anyOf, v)
		}
	}
	var alts, more []json.RawMessage
	json.Unmarshal(fields.OneOf, &alts) // not an array: none
	json.Unmarshal(fields.AllOf, &more)
	for i, r := range append(alts, more...) {
		v, err := parseSchema(r)
		if err != nil {
			return nil, fmt.Errorf("oneOf/allOf %d: %v", i, err)
		}
		s.alternatives = append(s.alternatives, v)
	}
	return s, nil
}

// orderedProperties reads a "properties" object in the order of its keys.
func orderedProperties(raw json.RawMessage) ([]property, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil // not an object: no properties
	}
	var props []property
	seen := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		s, err := parseSchema(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if i, dup := seen[name]; dup {
			props[i].schema = s // the last one wins, where the first one stood
			continue
		}
		seen[name] = len(props)
		props = append(props, property{name, s})
	}
	return props, nil
}

// renderFunctions renders fns as OpenAI shows function definitions to the
// model, as openai-chat-tokens reproduces it.
func renderFunctions(fns []function) string {
	lines := []string{"namespace functions {", ""}
	for _, f := range fns {
		if f.description != "" {
			lines = append(lines, "// "+f.description)
		}
		if len(f.parameters.properties) > 0 {
			lines = append(lines, "type "+f.name+" = (_: {", renderProperties(f.parameters, 0), "}) => any;")
		} else {
			lines = append(lines, "type "+f.name+" = () => any;")
		}
		lines = append(lines, "")
	}
	lines = append(lines, "} // namespace functions")
	return strings.Join(lines, "\n")
}

// renderProperties renders the properties of s, each line indented.
func renderProperties(s *schema, indent int) string {
	var lines []string
	for _, p := range s.properties {
		if p.schema.description != "" && indent < 2 {
			lines = append(lines, "// "+p.schema.description)
		}
		opt := "?"
		if s.required[p.name] {
			opt = ""
		}
		lines = append(lines, p.name+opt+": "+renderType(p.schema, indent)+",")
	}
	pad := strings.Repeat(" ", indent)
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}

// renderType renders a property's type; JavaScript's "undefined" for a
// schema without one it knows.
func renderType(s *schema, indent int) string {
	if s.hasAnyOf {
		types := make([]string, len(s.anyOf))
		for i, v := range s.anyOf {
			types[i] = renderType(v, indent)
		}
		return strings.Join(types, " | ")
	}
	if !s.object {
		return "undefined"
	}
	switch s.typ {
	case "string":
		if s.hasEnum {
			vals := make([]string, len(s.enum))
			for i, v := range s.enum {
				vals[i] = `"` + jsString(v) + `"`
			}
			return strings.Join(vals, " | ")
		}
		return "string"
	case "number", "integer":
		if s.hasEnum {
			vals := make([]string, len(s.enum))
			for i, v := range s.enum {
				vals[i] = jsString(v)
			}
			return strings.Join(vals, " | ")
		}
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "object":
		return "{\n" + renderProperties(s, indent+2) + "\n}"
	case "array":
		if s.items != nil {
			return renderType(s.items, indent) + "[]"
		}
		return "any[]"
	}
	return "undefined"
}

// cookbookTools counts fns by the rule of OpenAI's cookbook for GPT-4o.
func cookbookTools(tc Counter, fns []function) int {
	n := 0
	for _, f := range fns {
		n += 7 + tc.CountTokens(f.name+":"+strings.TrimSuffix(f.description, "."))
		if len(f.parameters.properties) == 0 {
			continue
		}
		n += 3
		for _, p := range f.parameters.properties {
			n += 3
			if p.schema.hasEnum {
				n -= 3
				for _, v := range p.schema.enum {
					n += 3 + tc.CountTokens(jsString(v))
				}
			}
			n += tc.CountTokens(p.name + ":" + p.schema.typ + ":" + strings.TrimSuffix(p.schema.description, "."))
		}
	}
	return n + 12
}

// jsString returns a JSON value as JavaScript's String() would: a string
// as itself, a number in JavaScript's shortest form.
func jsString(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return jsNumber(v)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	case map[string]any:
		return "[object Object]"
	}
	var b bytes.Buffer
	json.Compact(&b, raw)
	return strings.Trim(b.String(), "[]")
}

// jsNumber formats f as JavaScript's Number.prototype.toString does.
func jsNumber(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 0):
		if f > 0 {
			return "Infinity"
		}
		return "-Infinity"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	m := digits[:1]
	if k > 1 {
		m += "." + digits[1:]
	}
	return sign + m + "e" + es + strconv.Itoa(abs(n-1))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
