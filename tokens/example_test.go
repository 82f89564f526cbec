package tokens_test

import (
	"errors"
	"fmt"

	"github.com/recapgo/recap/tokens"
)

// Counters for an OpenAI, a Claude and a Gemini model: the first exact,
// the others estimates that err high; a model of no known family is an
// error.
func ExampleEstimator() {
	for _, model := range []string{"gpt-4o", "anthropic/claude-sonnet-4.5", "models/gemini-2.5-pro", "llama-3.1-70b"} {
		e, err := tokens.EstimatorForModel(model)
		if errors.Is(err, tokens.ErrUnknownEncoding) {
			fmt.Println(model, "unknown")
			continue
		}
		fmt.Println(model, e.Family(), e.Exact(), e.MessageOverhead(), e.RequestOverhead(),
			e.CountTokens("Summarize our trip plans so far, please."))
	}

	// Output:
	// gpt-4o openai true 4 3 11
	// anthropic/claude-sonnet-4.5 claude false 3 6 13
	// models/gemini-2.5-pro gemini false 0 0 13
	// llama-3.1-70b unknown
}

// What a request's tool definitions cost, in the shape each provider
// takes them, kept off the payload ceiling with recap.WithReservedTokens.
func ExampleEstimator_ToolTokens() {
	tools := map[string]string{
		"claude-sonnet-4-5": `[{"name": "get_weather", "description": "Current weather in a city",
			"input_schema": {"type": "object", "properties": {
				"city": {"type": "string", "description": "City name"},
				"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}]`,
		"gemini-2.5-flash": `[{"functionDeclarations": [{"name": "get_weather", "description": "Current weather in a city",
			"parameters": {"type": "OBJECT", "properties": {
				"city": {"type": "STRING", "description": "City name"},
				"unit": {"type": "STRING", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}]}]`,
		"gpt-4o": `[{"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city",
			"parameters": {"type": "object", "properties": {
				"city": {"type": "string", "description": "City name"},
				"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}]`,
	}
	for _, model := range []string{"claude-sonnet-4-5", "gemini-2.5-flash", "gpt-4o"} {
		e, err := tokens.EstimatorForModel(model)
		if err != nil {
			panic(err)
		}
		n, err := e.ToolTokens([]byte(tools[model]))
		if err != nil {
			panic(err)
		}
		fmt.Println(model, n) // with recap.WithReservedTokens(e.RequestOverhead() + n)
	}

	// Output:
	// claude-sonnet-4-5 628
	// gemini-2.5-flash 60
	// gpt-4o 51
}

func ExampleNewTiktoken() {
	c, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.CountTokens("Hello, world!"))
	fmt.Println(c.CountTokens("<|endoftext|> is just text here"))
	// Output:
	// 4
	// 11
}

// Encode gives tiktoken's token IDs, Decode the text back, and Truncate the
// longest prefix of at most n tokens that ends at a token boundary.
func ExampleTiktoken_Encode() {
	enc, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		panic(err)
	}
	ids := enc.Encode("Hello, world! <|endoftext|>")
	fmt.Println(ids)
	text, err := enc.Decode(ids[:4])
	fmt.Printf("%q %v\n", text, err)
	fmt.Printf("%q\n", enc.Truncate("Hello, world! <|endoftext|>", 3))
	// Output:
	// [13225 11 2375 0 464 91 419 1440 919 91 29]
	// "Hello, world!" <nil>
	// "Hello, world"
}

// Example_package counts, encodes, decodes and truncates with one of the
// embedded encodings.
func Example_package() {
	// doc:tokens
	enc, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		panic(err)
	}
	n := enc.CountTokens("Hello, world!")    // 4
	ids := enc.Encode("Hello, world!")       // tiktoken's encode_ordinary
	text, err := enc.Decode(ids)             // "Hello, world!"
	head := enc.Truncate("Hello, world!", 3) // at most 3 tokens, ending at a token boundary
	// end doc:tokens
	fmt.Println(n, ids, text, err, head)
	// Output: 4 [13225 11 2375 0] Hello, world! <nil> Hello, world
}
