package gemini

import (
	"encoding/json"
	"strings"

	"github.com/recapgo/recap"
	"google.golang.org/genai"
)

// RecallFunction returns recap's recall tool ([recap.RecallToolName],
// [recap.RecallToolDescription] and [recap.RecallToolSchema]) as a Gemini
// function declaration, its parameters in the SDK's Schema, which the
// Gemini API and Vertex AI both take (its "additionalProperties": false
// has no place there). Answer a functionCall part of it with
// [recap.Compressor.AnswerRecall], given the call's Args as JSON and the
// chat as FromContents returns it (the model content with the call
// included), and send the answer back in a user content as
// genai.NewPartFromFunctionResponse(recap.RecallToolName,
// map[string]any{"output": answer}), with the call's ID if it has one.
// Pair it with [recap.WithRecallHint], so that the summary tells the model
// what the tool is for. Each call returns a value of its own.
func RecallFunction() *genai.FunctionDeclaration {
	var params genai.Schema
	_ = json.Unmarshal(recap.RecallToolSchema(), &params) // recap's own schema: valid JSON
	upper(&params)
	params.PropertyOrdering = []string{"query", "k"}
	return &genai.FunctionDeclaration{Name: recap.RecallToolName, Description: recap.RecallToolDescription, Parameters: &params}
}

// RecallTool returns RecallFunction as the tool GenerateContentConfig.Tools
// holds.
func RecallTool() *genai.Tool {
	return &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{RecallFunction()}}
}

// upper writes the types of s and of its properties as the SDK's Type
// constants ("OBJECT", "STRING", "INTEGER"), where JSON Schema has them
// in lower case.
func upper(s *genai.Schema) {
	s.Type = genai.Type(strings.ToUpper(string(s.Type)))
	for _, p := range s.Properties {
		upper(p)
	}
}
