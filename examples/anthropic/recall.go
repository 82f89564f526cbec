package anthropic

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/recapgo/recap"
)

// RecallToolParam returns recap's recall tool ([recap.RecallToolName],
// [recap.RecallToolDescription] and [recap.RecallToolSchema]) as a
// Messages API tool. Answer a tool_use block of it with
// [recap.Compressor.AnswerRecall], given the block's Input and the chat
// as FromMessages returns it (the assistant message with the block
// included), and send the answer back in a user message as
// sdk.NewToolResultBlock(block.ID, answer, false). Pair it with
// [recap.WithRecallHint], so that the summary tells the model what the
// tool is for. Each call returns a value of its own.
func RecallToolParam() sdk.ToolParam {
	var schema map[string]any
	_ = json.Unmarshal(recap.RecallToolSchema(), &schema) // recap's own schema: valid JSON
	in := sdk.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	for _, r := range schema["required"].([]any) {
		in.Required = append(in.Required, r.(string))
	}
	for k, v := range schema {
		switch k {
		case "type", "properties", "required":
		default:
			in.ExtraFields[k] = v // additionalProperties
		}
	}
	return sdk.ToolParam{Name: recap.RecallToolName, Description: sdk.String(recap.RecallToolDescription), InputSchema: in}
}

// RecallTool returns RecallToolParam as the union MessageNewParams.Tools
// holds.
func RecallTool() sdk.ToolUnionParam {
	t := RecallToolParam()
	return sdk.ToolUnionParam{OfTool: &t}
}
