package openai

import (
	"encoding/json"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/recapgo/recap"
)

// RecallTool returns recap's recall tool ([recap.RecallToolName],
// [recap.RecallToolDescription] and [recap.RecallToolSchema]) as a Chat
// Completions function tool, for ChatCompletionNewParams.Tools. Answer a
// call of it with [recap.Compressor.AnswerRecall], given the call's
// Function.Arguments and the chat as FromChatCompletion returns it (the
// assistant message with the call included), and send the answer back as
// oai.ToolMessage(answer, call.ID). Pair it with [recap.WithRecallHint],
// so that the summary tells the model what the tool is for. Each call
// returns a value of its own.
func RecallTool() oai.ChatCompletionToolUnionParam {
	return oai.ChatCompletionFunctionTool(oai.FunctionDefinitionParam{
		Name:        recap.RecallToolName,
		Description: oai.String(recap.RecallToolDescription),
		Parameters:  oai.FunctionParameters(recallSchema()),
	})
}

// RecallResponsesTool returns recap's recall tool as a Responses API
// function tool, for ResponseNewParams.Tools; not strict, since its "k"
// is optional. Answer a function_call item of it with
// [recap.Compressor.AnswerRecall], given the item's Arguments and the
// conversation as FromResponsesInput returns it (the function_call item
// included), and send the answer as a function_call_output item of the
// call's CallID. Each call returns a value of its own.
func RecallResponsesTool() responses.ToolUnionParam {
	t := responses.ToolParamOfFunction(recap.RecallToolName, recallSchema(), false)
	t.OfFunction.Description = oai.String(recap.RecallToolDescription)
	return t
}

// recallSchema returns recap.RecallToolSchema as the map the SDK takes.
func recallSchema() map[string]any {
	var schema map[string]any
	_ = json.Unmarshal(recap.RecallToolSchema(), &schema) // recap's own schema: valid JSON
	return schema
}
