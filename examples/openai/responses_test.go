package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/openai"
	"github.com/recapgo/recap/internal/apitest"
)

// item is an input item sent as the JSON given, as a backend that stores
// the API's output items holds it.
func item(raw string) responses.ResponseInputItemUnionParam {
	return param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(raw))
}

// userMsg, assistantMsg, call and output are items built by the SDK's
// constructors.
func userMsg(text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser)
}

func assistantMsg(text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleAssistant)
}

func call(id, name, args string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfFunctionCall(args, id, name)
}

func output(id, out string) responses.ResponseInputItemUnionParam {
	it := responses.ResponseInputItemParamOfFunctionCallOutput(out)
	it.OfFunctionCallOutput.CallID = oai.String(id)
	return it
}

func outputList(id string, out responses.ResponseFunctionCallOutputItemListParam) responses.ResponseInputItemUnionParam {
	it := responses.ResponseInputItemParamOfFunctionCallOutput(out)
	it.OfFunctionCallOutput.CallID = oai.String(id)
	return it
}

func reasoning(id, summary string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfReasoning(id, []responses.ResponseReasoningItemSummaryParam{{Text: summary}})
}

// shape is what a test expects of a converted message: its role and its
// parts' types, tool call IDs and texts, in short.
func shape(m recap.Message) string {
	var b strings.Builder
	b.WriteString(string(m.Role))
	for _, p := range m.Parts {
		fmt.Fprintf(&b, " %s", p.Type)
		if p.ToolCallID != "" {
			fmt.Fprintf(&b, "(%s)", p.ToolCallID)
		}
	}
	return b.String()
}

// TestResponsesItems: every kind of input item, built by the SDK's
// constructors or kept as the API's JSON, converts to the message the
// core's rules need and back to the same JSON.
func TestResponsesItems(t *testing.T) {
	tests := []struct {
		name   string
		items  responses.ResponseInputParam
		want   []string // shapes of the messages
		text   string   // a text that the messages' Text contains
		reason string
	}{
		{name: "EasyUser", items: responses.ResponseInputParam{userMsg("Hi")}, want: []string{"user"}, text: "Hi",
			reason: "a user message item starts a turn"},
		{name: "EasySystem", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("Be brief.", responses.EasyInputMessageRoleSystem)}, want: []string{"system"},
			reason: "a system item is pinned"},
		{name: "Developer", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("Be brief.", responses.EasyInputMessageRoleDeveloper)}, want: []string{"developer"},
			reason: "a developer item is pinned"},
		{name: "UserParts", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			{OfInputText: &responses.ResponseInputTextParam{Text: "What is on the map?"}},
			{OfInputImage: &responses.ResponseInputImageParam{ImageURL: oai.String("data:image/png;base64,iVBORw0KGgo="), Detail: responses.ResponseInputImageDetailHigh}},
			{OfInputFile: &responses.ResponseInputFileParam{FileID: oai.String("file-1"), Filename: oai.String("plan.pdf")}},
		}, responses.EasyInputMessageRoleUser)}, want: []string{"user input_text file file"}, text: "[attachment: image/png]",
			reason: "images and files are file parts, counted as attachments, never their bytes"},
		{name: "InputMessage", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfInputMessage(responses.ResponseInputMessageContentListParam{{OfInputText: &responses.ResponseInputTextParam{Text: "a"}}}, "developer")},
			want: []string{"developer input_text"}, reason: "a typed input message"},
		{name: "OutputMessage", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfOutputMessage([]responses.ResponseOutputMessageContentUnionParam{
			{OfOutputText: &responses.ResponseOutputTextParam{Text: "21 degrees.", Annotations: []responses.ResponseOutputTextAnnotationUnionParam{}}},
			{OfRefusal: &responses.ResponseOutputRefusalParam{Refusal: "No booking."}},
		}, "msg_1", responses.ResponseOutputMessageStatusCompleted)}, want: []string{"assistant output_text refusal"}, text: "No booking.",
			reason: "an output message sent back keeps its id, status and annotations"},
		{name: "FunctionCall", items: responses.ResponseInputParam{call("call_1", "weather", `{"city":"Lisbon"}`), output("call_1", `{"temp":21}`)},
			want: []string{"assistant tool-call(call_1)", "tool tool-result(call_1)"}, text: "temp",
			reason: "a function call and its output are a tool pair"},
		{name: "FunctionCallSpaces", items: responses.ResponseInputParam{call("call_1", "f", `{ "a" : 1 }`), call("call_2", "f", "not json"), call("call_3", "f", "")},
			want:   []string{"assistant tool-call(call_1)", "assistant tool-call(call_2)", "assistant tool-call(call_3)"},
			reason: "arguments keep their bytes, valid JSON or not"},
		{name: "OutputList", items: responses.ResponseInputParam{call("call_1", "shot", "{}"), outputList("call_1", responses.ResponseFunctionCallOutputItemListParam{
			{OfInputText: &responses.ResponseInputTextContentParam{Text: "the page"}}})},
			want: []string{"assistant tool-call(call_1)", "tool tool-result(call_1)"}, text: "the page", reason: "an output as content parts"},
		{name: "OutputWithoutCallID", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfFunctionCallOutput("x")},
			want: []string{"tool tool-result"}, reason: "a member left out stays left out"},
		{name: "CustomCall", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfCustomToolCall("call_2", "SELECT 1", "sql"), responses.ResponseInputItemParamOfCustomToolCallOutput("call_2", "1")},
			want: []string{"assistant tool-call(call_2)", "tool tool-result(call_2)"}, reason: "a custom tool call and its output are a tool pair"},
		{name: "ReasoningThenCall", items: responses.ResponseInputParam{reasoning("rs_1", "Call the tool."), item(`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}","status":"completed"}`), output("call_1", "ok")},
			want: []string{"assistant reasoning tool-call(call_1)", "tool tool-result(call_1)"}, text: "Call the tool.",
			reason: "a reasoning item shares the message of the item after it, which the API requires next to it"},
		{name: "ReasoningThenMessage", items: responses.ResponseInputParam{item(`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"}`), item(`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Done.","annotations":[]}]}`)},
			want: []string{"assistant reasoning output_text"}, reason: "encrypted reasoning travels with its message"},
		{name: "ReasoningAlone", items: responses.ResponseInputParam{reasoning("rs_1", "Think."), reasoning("rs_2", "More."), userMsg("Hi")},
			want: []string{"assistant reasoning", "assistant reasoning", "user"}, reason: "reasoning before a user message stays a message of its own"},
		{name: "ReasoningLast", items: responses.ResponseInputParam{userMsg("Hi"), reasoning("rs_1", "Think.")},
			want: []string{"user", "assistant reasoning"}, text: "Think.", reason: "reasoning at the end"},
		{name: "ComputerCall", items: responses.ResponseInputParam{
			item(`{"type":"computer_call","id":"cu_1","call_id":"call_3","action":{"type":"click","button":"left","x":10,"y":20},"pending_safety_checks":[],"status":"completed"}`),
			responses.ResponseInputItemParamOfComputerCallOutput("call_3", responses.ResponseComputerToolCallOutputScreenshotParam{ImageURL: oai.String("data:image/png;base64,iVBORw0KGgo=")})},
			want: []string{"assistant tool-call(call_3)", "tool tool-result(call_3)"}, text: "[attachment: image/png]",
			reason: "a computer call and its screenshot are a tool pair; the screenshot counts as an attachment"},
		{name: "ShellCall", items: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfShellCall(responses.ResponseInputItemShellCallActionParam{Commands: []string{"ls"}}, "call_4"),
			responses.ResponseInputItemParamOfShellCallOutput("call_4", []responses.ResponseFunctionShellCallOutputContentParam{{Stdout: "a.txt", Stderr: ""}})},
			want: []string{"assistant tool-call(call_4)", "tool tool-result(call_4)"}, text: "a.txt", reason: "a shell call and its output are a tool pair"},
		{name: "ApplyPatch", items: responses.ResponseInputParam{
			item(`{"type":"apply_patch_call","call_id":"call_5","operation":{"type":"delete_file","path":"a.txt"},"status":"completed"}`),
			responses.ResponseInputItemParamOfApplyPatchCallOutput("call_5", "completed")},
			want: []string{"assistant tool-call(call_5)", "tool tool-result(call_5)"}, reason: "an apply_patch call and its output are a tool pair"},
		{name: "MCPApproval", items: responses.ResponseInputParam{
			item(`{"type":"mcp_approval_request","id":"mcpr_1","name":"deploy","arguments":"{}","server_label":"ops"}`),
			responses.ResponseInputItemParamOfMcpApprovalResponse("mcpr_1", true)},
			want: []string{"assistant tool-call(mcpr_1)", "tool tool-result(mcpr_1)"}, reason: "an approval answers its request: a tool pair"},
		{name: "MCPCall", items: responses.ResponseInputParam{item(`{"type":"mcp_call","id":"mcp_1","name":"search","arguments":"{\"q\":\"x\"}","server_label":"docs","output":"three results"}`)},
			want: []string{"assistant mcp_call"}, text: "three results", reason: "a self-contained call is carried, its output counted"},
		{name: "WebSearch", items: responses.ResponseInputParam{item(`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"Lisbon weather"}}`)},
			want: []string{"assistant web_search_call"}, text: "Lisbon weather", reason: "a web search is carried"},
		{name: "FileSearch", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfFileSearchCall("fs_1", []string{"visa"}, responses.ResponseFileSearchToolCallStatusCompleted)},
			want: []string{"assistant file_search_call"}, text: "visa", reason: "a file search is carried"},
		{name: "ImageGeneration", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfImageGenerationCall("ig_1", "iVBORw0KGgo=", "completed")},
			want: []string{"assistant image_generation_call"}, text: "[attachment: image]", reason: "a generated image counts as an attachment"},
		{name: "LocalShellOutput", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfLocalShellCallOutput("ls_1", "ok")},
			want: []string{"assistant local_shell_call_output"}, reason: "without a call_id, an output is carried"},
		{name: "MCPList", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfMcpListTools("ml_1", "srv", []responses.ResponseInputItemMcpListToolsToolParam{{Name: "search", InputSchema: map[string]any{"type": "object"}}})},
			want: []string{"assistant mcp_list_tools"}, text: "search", reason: "a tool listing is carried"},
		{name: "Compaction", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfCompaction("gAAAA-opaque")},
			want: []string{"assistant compaction"}, reason: "an opaque compaction is carried, uncounted"},
		{name: "ItemReference", items: responses.ResponseInputParam{responses.ResponseInputItemParamOfItemReference("msg_0")},
			want: []string{"assistant item_reference"}, reason: "a reference is carried"},
		{name: "AdditionalTools", items: responses.ResponseInputParam{{OfAdditionalTools: &responses.ResponseInputItemAdditionalToolsParam{Tools: []responses.ToolUnionParam{}}}},
			want: []string{"developer additional_tools"}, reason: "an item of the developer's is a developer message, pinned at the start"},
		{name: "Unknown", items: responses.ResponseInputParam{item(`{"type":"tool-x","call":1}`)},
			want: []string{"assistant item"}, reason: "a type recap reads as a tool part is renamed, the item kept"},
		{name: "PresentButEmpty", items: responses.ResponseInputParam{item(`{"role":"user","content":[{"type":"input_text"},{"type":"input_text","text":""},{"type":"weird","x":1},{"type":"text","text":"t"}]}`),
			item(`{"role":"user","content":null}`), item(`{"role":"user","content":[]}`), item(`{"role":"user","content":""}`),
			item(`{"type":"function_call_output","call_id":"","output":null}`)},
			want:   []string{"user input_text input_text weird block", "user", "user", "user", "tool tool-result"},
			reason: "a member absent, null, empty or of a type recap gives a meaning stays as it was"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := openai.FromResponsesInput(tt.items)
			if err != nil {
				t.Fatalf("FromResponsesInput: %v (%s)", err, tt.reason)
			}
			got := make([]string, len(msgs))
			for i, m := range msgs {
				got[i] = shape(m)
				if m.Format != recap.FormatOpenAI || !strings.HasPrefix(m.ID, recap.ChainIDPrefix) {
					t.Errorf("message %d: format %v, ID %q", i, m.Format, m.ID)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: messages mismatch (-want +got):\n%s", tt.reason, diff)
			}
			var texts []string
			for _, m := range msgs {
				texts = append(texts, m.Text())
			}
			if text := strings.Join(texts, "\n"); !strings.Contains(text, tt.text) || strings.Contains(text, "iVBOR") || strings.Contains(text, "gAAAA") {
				t.Errorf("Text() = %q, want %q in it and no data", text, tt.text)
			}
			back, err := openai.ToResponsesInput(msgs)
			if err != nil {
				t.Fatalf("ToResponsesInput: %v (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(apitest.JSONOf(t, tt.items), apitest.JSONOf(t, back)); diff != "" {
				t.Errorf("%s: round trip mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// conversation is a Responses API conversation with every kind of item a
// backend sends back: easy and typed messages, an image, reasoning, a
// function call and its output, a custom tool call, a web search, an
// output message with annotations and an item reference.
func conversation() responses.ResponseInputParam {
	return responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("You are a travel agent.", responses.EasyInputMessageRoleSystem),
		item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"Weather in Lisbon?"},{"type":"input_image","image_url":"https://example.com/map.png","detail":"low"}]}`),
		item(`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"The user wants the weather; call the tool."}],"encrypted_content":"gAAAA-opaque"}`),
		item(`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Lisbon\"}","status":"completed"}`),
		item(`{"type":"function_call_output","call_id":"call_1","output":"{\"temp\":21}"}`),
		item(`{"type":"custom_tool_call","id":"ctc_1","call_id":"call_2","name":"sql","input":"SELECT 1"}`),
		item(`{"type":"custom_tool_call_output","call_id":"call_2","output":"1"}`),
		item(`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"Lisbon weather"}}`),
		item(`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"21 degrees and clear.","annotations":[]}]}`),
		item(`{"type":"item_reference","id":"msg_0"}`),
		userMsg("Thanks! And Porto?"),
	}
}

func TestResponsesRoundTrip(t *testing.T) {
	items := conversation()
	msgs, err := openai.FromResponsesInput(items)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(msgs))
	for i, m := range msgs {
		got[i] = shape(m)
	}
	want := []string{"system", "user input_text file", "assistant reasoning tool-call(call_1)", "tool tool-result(call_1)",
		"assistant tool-call(call_2)", "tool tool-result(call_2)", "assistant web_search_call", "assistant output_text", "assistant item_reference", "user"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if text := msgs[2].Text(); !strings.Contains(text, "call the tool") || strings.Contains(text, "gAAAA") {
		t.Errorf("reasoning and call counted as %q", text)
	}
	back, err := openai.ToResponsesInput(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, items), apitest.JSONOf(t, back)); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	// The SDK sends the items as they are.
	data, err := json.Marshal(responses.ResponseNewParams{Model: "gpt-5", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: back}})
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Input any }
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, items), body.Input); diff != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", diff)
	}
	// An older snapshot's IDs are a prefix of the grown chat's.
	older, _ := openai.FromResponsesInput(items[:6])
	for i := range older[:len(older)-1] { // the last one's item may have grown
		if older[i].ID != msgs[i].ID {
			t.Fatalf("message %d: ID %q in the older snapshot, %q now", i, older[i].ID, msgs[i].ID)
		}
	}
}

func TestFromResponsesInputErrors(t *testing.T) {
	tests := []struct {
		name   string
		item   responses.ResponseInputItemUnionParam
		reason string
	}{
		{"Zero", responses.ResponseInputItemUnionParam{}, "no variant set: the SDK writes null"},
		{"NotObject", item(`[1]`), "not an item"},
		{"NoRole", item(`{"content":"x"}`), "a message needs a role"},
		{"ToolRole", item(`{"role":"tool","content":"x"}`), "the Responses API has no tool messages"},
		{"TypeNotString", item(`{"type":5}`), "a member of the wrong type"},
		{"CallIDNotString", item(`{"type":"function_call","call_id":5}`), "a member of the wrong type"},
		{"ArgumentsObject", item(`{"type":"function_call","call_id":"c","name":"f","arguments":{"a":1}}`), "arguments are a string"},
		{"ContentNumber", item(`{"role":"user","content":5}`), "content is a string or an array"},
		{"PartNotObject", item(`{"role":"user","content":[1]}`), "a content part is an object"},
		{"ReservedMember", item(`{"role":"user","content":[{"type":"input_text","text":"x","\u0000recap-item":{}}]}`), "recap's own member name"},
		{"SummaryNotArray", item(`{"type":"reasoning","summary":"x"}`), "a reasoning summary is an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openai.FromResponsesInput(responses.ResponseInputParam{userMsg("hi"), tt.item})
			if err == nil || !strings.Contains(err.Error(), "item 1") {
				t.Errorf("FromResponsesInput = %v, want an error naming item 1 (%s)", err, tt.reason)
			}
		})
	}
}

func TestToResponsesInputErrors(t *testing.T) {
	tests := []struct {
		name   string
		msg    recap.Message
		reason string
	}{
		{"NoRole", recap.Message{ID: "x", Content: "x", Format: recap.FormatOpenAI}, "a message needs a role"},
		{"UnknownRole", recap.Message{ID: "x", Role: "wizard", Content: "x", Format: recap.FormatOpenAI}, "not a role of the API"},
		{"ToolWithoutResult", recap.Message{ID: "x", Role: recap.RoleTool, Content: "x", Format: recap.FormatOpenAI}, "a tool message is an output item"},
		{"TwoResults", recap.Message{ID: "x", Role: recap.RoleTool, Format: recap.FormatOpenAI, Parts: []recap.Part{{Type: recap.PartToolResult, ToolCallID: "a"}, {Type: recap.PartToolResult, ToolCallID: "b"}}}, "an output item answers one call"},
		{"ResultInUser", recap.Message{ID: "x", Role: recap.RoleUser, Format: recap.FormatOpenAI, Parts: []recap.Part{{Type: recap.PartToolResult, ToolCallID: "a"}}}, "a result is a tool message's"},
		{"BadExtra", recap.Message{ID: "x", Role: recap.RoleUser, Content: "x", Format: recap.FormatOpenAI, Extra: map[string]json.RawMessage{"k": json.RawMessage("{bad")}}, "Extra must hold JSON"},
		{"ChatImage", recap.Message{ID: "x", Role: recap.RoleUser, Format: recap.FormatOpenAI, Parts: []recap.Part{{Type: recap.PartImageURL, URL: "https://x/a.png"}}}, "a Chat Completions image block is not a Responses part"},
		{"UIToolPart", recap.Message{ID: "x", Role: recap.RoleAssistant, Format: recap.FormatUI, Parts: []recap.Part{{Type: "tool-weather", ToolCallID: "c1"}}}, "an AI SDK tool part has no Responses form"},
		{"CallWithoutName", recap.Message{ID: "x", Role: recap.RoleAssistant, Format: recap.FormatOpenAI, Parts: []recap.Part{{Type: recap.PartToolCall, ToolCallID: "c1"}}}, "a function call needs a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openai.ToResponsesInput([]recap.Message{{ID: "s", Role: recap.RoleSystem, Content: "s"}, tt.msg})
			if !errors.Is(err, openai.ErrNotConvertible) || !strings.Contains(err.Error(), "message 1 (x)") {
				t.Errorf("ToResponsesInput = %v, want ErrNotConvertible naming message 1 (%s)", err, tt.reason)
			}
		})
	}
}

// TestToResponsesInputOtherOrigins: the summary and Chat Completions
// messages become the items they stand for.
func TestToResponsesInputOtherOrigins(t *testing.T) {
	chat, err := openai.FromChatCompletion([]oai.ChatCompletionMessageParamUnion{
		withCalls(toolCall("c1", "weather", `{"city":"Lisbon"}`), toolCall("c2", "weather", `{"city":"Porto"}`)),
		oai.ToolMessage("sunny", "c1"),
		oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{
			Content:   oai.ChatCompletionAssistantMessageParamContentUnion{OfString: oai.String("Checking.")},
			ToolCalls: []oai.ChatCompletionMessageToolCallUnionParam{toolCall("c3", "f", "{}")}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	summary := recap.NewTextMessage(recap.FormatOpenAI, recap.SummaryIDPrefix+"h-x", recap.RoleSystem, "The summary.")
	tests := []struct {
		name   string
		msgs   []recap.Message
		want   string
		reason string
	}{
		{"Summary", []recap.Message{summary}, `[{"role":"system","content":"The summary."}]`, "the summary is a system message item"},
		{"SummaryWithDeveloper", []recap.Message{{ID: "d", Role: recap.RoleDeveloper, Content: "Be brief.", Format: recap.FormatOpenAI}, summary},
			`[{"role":"developer","content":"Be brief."},{"role":"developer","content":"The summary."}]`, "a chat that uses developer messages gets its summary as one"},
		{"SummaryWithBoth", []recap.Message{{ID: "s", Role: recap.RoleSystem, Content: "Be brief.", Format: recap.FormatOpenAI}, {ID: "d", Role: recap.RoleDeveloper, Content: "Dev.", Format: recap.FormatOpenAI}, summary},
			`[{"role":"system","content":"Be brief."},{"role":"developer","content":"Dev."},{"role":"system","content":"The summary."}]`, "a chat with a system message keeps a system summary"},
		{"PlainSummary", []recap.Message{recap.NewTextMessage(recap.FormatPlain, recap.SummaryIDPrefix+"m1", recap.RoleUser, "The summary.")},
			`[{"role":"user","content":"The summary."}]`, "a plain message, without its id"},
		{"ChatCalls", chat, `[
			{"type":"function_call","call_id":"c1","name":"weather","arguments":"{\"city\":\"Lisbon\"}"},
			{"type":"function_call","call_id":"c2","name":"weather","arguments":"{\"city\":\"Porto\"}"},
			{"type":"function_call_output","call_id":"c1","output":"sunny"},
			{"role":"assistant","content":"Checking."},
			{"type":"function_call","call_id":"c3","name":"f","arguments":"{}"}]`, "a Chat Completions assistant message is a message and its calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := openai.ToResponsesInput(tt.msgs)
			if err != nil {
				t.Fatal(err)
			}
			var w any
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, apitest.JSONOf(t, items)); diff != "" {
				t.Errorf("%s: mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// agentItems is a Responses conversation of n turns, each an agent loop
// of a reasoning model: reasoning before every call and answer, function
// calls with ids, a computer call with its screenshot, outputs.
func agentItems(n int) responses.ResponseInputParam {
	// A long answer: WithMaxTurnTokens keeps it alone, and must keep the
	// reasoning before it too.
	packing := strings.Repeat("Pack a light jacket for the evening breeze by the river, walking shoes for the hills and a scarf. ", 6)
	items := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("You are a travel agent.", responses.EasyInputMessageRoleDeveloper)}
	for i := 1; i <= n; i++ {
		items = append(items, userMsg(fmt.Sprintf("Turn %d: the weather in Lisbon on day %d, and what to pack for the evening?", i, i)))
		for step := 1; step <= 3; step++ {
			id := fmt.Sprintf("%d_%d", i, step)
			items = append(items,
				item(fmt.Sprintf(`{"type":"reasoning","id":"rs_%s","summary":[{"type":"summary_text","text":"Step %s: look it up."}],"encrypted_content":"gAAAA%s"}`, id, id, id)),
				item(fmt.Sprintf(`{"type":"function_call","id":"fc_%s","call_id":"call_%s","name":"weather","arguments":"{\"city\":\"Lisbon\",\"day\":%d}","status":"completed"}`, id, id, i)),
				output("call_"+id, fmt.Sprintf(`{"temp":%d,"wind":"light from the north-west, stronger by the river","sky":"clear in the morning, some clouds in the late afternoon","hourly":[%d,%d,%d,%d,%d,%d,%d,%d],"advice":"a light jacket for the evening"}`,
					18+i, 14+i, 15+i, 17+i, 19+i, 21+i, 20+i, 18+i, 16+i)))
		}
		items = append(items,
			item(fmt.Sprintf(`{"type":"computer_call","id":"cu_%d","call_id":"cc_%d","action":{"type":"screenshot"},"pending_safety_checks":[],"status":"completed"}`, i, i)),
			responses.ResponseInputItemParamOfComputerCallOutput(fmt.Sprintf("cc_%d", i), responses.ResponseComputerToolCallOutputScreenshotParam{ImageURL: oai.String("data:image/png;base64,iVBORw0KGgo=")}),
			item(fmt.Sprintf(`{"type":"reasoning","id":"rs_%d_a","summary":[],"encrypted_content":"gAAAA"}`, i)),
			item(fmt.Sprintf(`{"type":"message","id":"msg_%d","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Day %d: %d degrees. %s","annotations":[]}]}`, i, i, 18+i, packing)))
	}
	return items
}

// checkResponsesRequest checks input items as the API does: every output
// item answers a call before it, every reasoning item is followed by the
// item it preceded in chat, and an item that followed a reasoning item in
// chat still follows it.
func checkResponsesRequest(t testing.TB, sent []any, chat []any) {
	t.Helper()
	after := map[string]string{} // reasoning id to the id of the item after it
	for i := 0; i+1 < len(chat); i++ {
		a, b := chat[i].(map[string]any), chat[i+1].(map[string]any)
		if a["type"] == "reasoning" && b["id"] != nil {
			after[a["id"].(string)] = b["id"].(string)
		}
	}
	before := map[string]string{}
	for r, next := range after {
		before[next] = r
	}
	calls := map[string]bool{}
	for i, raw := range sent {
		it := raw.(map[string]any)
		typ, _ := it["type"].(string)
		id, _ := it["id"].(string)
		if cid, ok := it["call_id"].(string); ok {
			if strings.HasSuffix(typ, "_output") {
				if !calls[cid] {
					t.Errorf("item %d: %s of %s without its call before it", i, typ, cid)
				}
			} else {
				calls[cid] = true
			}
		}
		if next, ok := after[id]; ok {
			if i+1 >= len(sent) || sent[i+1].(map[string]any)["id"] != next {
				t.Errorf("item %d: reasoning %s without its following item %s", i, id, next)
			}
		}
		if r, ok := before[id]; ok {
			if i == 0 || sent[i-1].(map[string]any)["id"] != r {
				t.Errorf("item %d: %s without its reasoning item %s", i, id, r)
			}
		}
	}
}

// TestResponsesThroughCompressor: Responses items through a Compressor and
// back, sent with the SDK to an httptest server: the summary is a
// developer message item (the chat uses developer messages), every output
// follows its call, reasoning stays next to its item (even when
// WithMaxTurnTokens folds steps of a turn), a screenshot is never replaced
// by a placeholder, and the echoed payload keeps the summary on the next
// turn.
func TestResponsesThroughCompressor(t *testing.T) {
	tests := []struct {
		name string
		opts []recap.Option
	}{
		{"Window", []recap.Option{recap.WithTriggerTokens(300), recap.WithWindowConversations(1)}},
		{"Clearing", []recap.Option{recap.WithTriggerTokens(300), recap.WithWindowConversations(2), recap.WithToolResultClearing(1, 0)}},
		{"MaxTurn", []recap.Option{recap.WithTriggerTokens(100), recap.WithWindowConversations(1), recap.WithMaxTurnTokens(150)}},
		{"Chunked", []recap.Option{recap.WithTriggerTokens(100), recap.WithWindowConversations(1), recap.WithMaxSummarizeInput(200)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) {
				return "Summary: Lisbon weather by day, a jacket every evening.", nil
			}), recap.NewMemoryStore(), tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			items := agentItems(5)
			msgs, err := openai.FromResponsesInput(items)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compress(context.Background(), "r1", msgs)
			if err != nil || !res.Summarized {
				t.Fatalf("Compress = %+v, %v", res, err)
			}
			input, err := openai.ToResponsesInput(res.Payload)
			if err != nil {
				t.Fatal(err)
			}
			s := apitest.New(t, "/v1/responses", apitest.Response{Status: 200, Body: `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[],"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}`})
			client := oai.NewClient(option.WithAPIKey("sk-test"), option.WithBaseURL(s.URL+"/v1"))
			_, err = client.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-5", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
			if err != nil {
				t.Fatal(err)
			}
			sent := s.Body(0)["input"].([]any)
			if m := sent[1].(map[string]any); m["role"] != "developer" || m["content"] != res.Summary.Text || len(m) != 2 {
				t.Errorf("item 1 sent: %v, want the summary", m)
			}
			checkResponsesRequest(t, sent, apitest.JSONOf(t, items).([]any))
			for i, raw := range sent {
				if it := raw.(map[string]any); it["type"] == "computer_call_output" {
					if out, _ := it["output"].(map[string]any); out["type"] != "computer_screenshot" {
						t.Errorf("item %d: screenshot replaced: %v", i, it)
					}
				}
			}
			if tt.name == "Clearing" && len(res.Cleared) == 0 {
				t.Errorf("nothing cleared")
			}

			next := append(input, assistantMsg("Pack a jacket."), userMsg("And day 7?"))
			msgs, err = openai.FromResponsesInput(next)
			if err != nil {
				t.Fatal(err)
			}
			res2, err := c.Compress(context.Background(), "r1", msgs)
			if err != nil || res2.Stale || res2.Older || !res2.Summary.Equal(res.Summary) && !res2.Summarized {
				t.Fatalf("next turn: %+v, %v", res2, err)
			}
			input2, err := openai.ToResponsesInput(res2.Payload)
			if err != nil {
				t.Fatal(err)
			}
			checkResponsesRequest(t, apitest.JSONOf(t, input2).([]any), apitest.JSONOf(t, next).([]any))
		})
	}
}

// randomItems is a random Responses conversation: messages with images,
// reasoning (with or without the item after it), parallel function calls,
// custom and computer calls with their outputs, web searches, refusals,
// answers long and short; it ends with a question or with a turn's steps,
// as an agent loop sends them.
func randomItems(r *rand.Rand) responses.ResponseInputParam {
	items := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("sys", []responses.EasyInputMessageRole{responses.EasyInputMessageRoleSystem, responses.EasyInputMessageRoleDeveloper}[r.IntN(2)])}
	n := 0
	next := func() string { n++; return fmt.Sprint(n) }
	for turn := 0; turn < 1+r.IntN(10); turn++ {
		words := strings.Repeat("word ", 1+r.IntN(40))
		if r.IntN(4) == 0 {
			items = append(items, responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
				{OfInputText: &responses.ResponseInputTextParam{Text: words}},
				{OfInputImage: &responses.ResponseInputImageParam{ImageURL: oai.String("data:image/png;base64,iVBORw0KGgo="), Detail: responses.ResponseInputImageDetailAuto}},
			}, responses.EasyInputMessageRoleUser))
		} else {
			items = append(items, userMsg(words))
		}
		for step := 0; step < r.IntN(4); step++ {
			if r.IntN(2) == 0 {
				id := next()
				items = append(items, item(fmt.Sprintf(`{"type":"reasoning","id":"rs_%s","summary":[{"type":"summary_text","text":%q}]}`, id, words)))
			}
			var ids []string
			kinds := map[string]int{} // 0 custom, 1 computer, else function
			for k := 0; k <= r.IntN(3); k++ {
				id := next()
				kind := r.IntN(6)
				switch kind {
				case 0:
					items = append(items, responses.ResponseInputItemParamOfCustomToolCall("call_"+id, words, "sql"))
				case 1:
					items = append(items, item(fmt.Sprintf(`{"type":"computer_call","id":"cu_%s","call_id":"call_%s","action":{"type":"screenshot"},"pending_safety_checks":[],"status":"completed"}`, id, id)))
				case 2:
					items = append(items, item(fmt.Sprintf(`{"type":"web_search_call","id":"ws_%s","status":"completed","action":{"type":"search","query":%q}}`, id, words)))
					continue // no output
				default:
					items = append(items, item(fmt.Sprintf(`{"type":"function_call","id":"fc_%s","call_id":"call_%s","name":"f","arguments":"{\"x\":%d}"}`, id, id, k)))
				}
				ids, kinds[id] = append(ids, id), kind
			}
			for _, id := range ids {
				switch kinds[id] {
				case 0:
					items = append(items, responses.ResponseInputItemParamOfCustomToolCallOutput("call_"+id, words))
				case 1:
					items = append(items, responses.ResponseInputItemParamOfComputerCallOutput("call_"+id, responses.ResponseComputerToolCallOutputScreenshotParam{ImageURL: oai.String("data:image/png;base64,iVBORw0KGgo=")}))
				default:
					items = append(items, output("call_"+id, words))
				}
			}
		}
		reasoned := r.IntN(3) == 0
		if reasoned {
			items = append(items, item(fmt.Sprintf(`{"type":"reasoning","id":"rs_%s","summary":[],"encrypted_content":"gAAAA"}`, next())))
		}
		if r.IntN(4) == 0 {
			words = strings.Repeat("word ", 100+r.IntN(200)) // an answer WithMaxTurnTokens keeps alone
		}
		switch {
		case reasoned || r.IntN(5) == 0: // as a reasoning model's output comes back
			items = append(items, item(fmt.Sprintf(`{"type":"message","id":"msg_%s","role":"assistant","status":"completed","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, next(), words)))
		case r.IntN(8) == 0:
			items = append(items, item(`{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"no"}]}`))
		default:
			items = append(items, assistantMsg(words))
		}
	}
	if r.IntN(2) == 0 {
		return items // the current turn is the last one, its steps done
	}
	return append(items, userMsg("now?"))
}

// TestResponsesRandom: random conversations convert back to themselves;
// through a Compressor at random settings the payload is a valid request
// (outputs after their calls, reasoning next to its item), and the
// payload echoed back with a new question keeps the summary.
func TestResponsesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 200; n++ {
		items := randomItems(r)
		msgs, err := openai.FromResponsesInput(items)
		if err != nil {
			t.Fatal(err)
		}
		back, err := openai.ToResponsesInput(msgs)
		if err != nil {
			t.Fatal(err)
		}
		chat := apitest.JSONOf(t, items)
		if diff := cmp.Diff(chat, apitest.JSONOf(t, back)); diff != "" {
			t.Fatalf("conversation %d: round trip mismatch (-want +got):\n%s", n, diff)
		}
		opts := []recap.Option{recap.WithTriggerTokens(20 + r.IntN(200)), recap.WithWindowConversations(1 + r.IntN(3)),
			recap.WithMaxSummarizeInput([]int{0, 300}[r.IntN(2)])}
		if r.IntN(2) == 0 {
			opts = append(opts, recap.WithToolResultClearing(r.IntN(3), 0))
		}
		if r.IntN(3) == 0 {
			opts = append(opts, recap.WithMaxTurnTokens(100+r.IntN(200)))
		}
		c, err := recap.New(recap.SummarizerFunc(func(context.Context, recap.SummarizeRequest) (string, error) { return "short summary", nil }),
			recap.NewMemoryStore(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compress(context.Background(), "c", msgs)
		if err != nil {
			t.Fatal(err)
		}
		input, err := openai.ToResponsesInput(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		checkResponsesRequest(t, apitest.JSONOf(t, input).([]any), chat.([]any))

		next := append(input, assistantMsg("answer"), userMsg("and then?"))
		if msgs, err = openai.FromResponsesInput(next); err != nil {
			t.Fatal(err)
		}
		res2, err := c.Compress(context.Background(), "c", msgs)
		if err != nil || res2.Stale || res2.Older {
			t.Fatalf("conversation %d, next turn: stale %v, older %v, %v", n, res2.Stale, res2.Older, err)
		}
		if res.Summarized && !res2.Summarized && !res2.Summary.Equal(res.Summary) {
			t.Fatalf("conversation %d, next turn: summary %q, want %q kept", n, res2.Summary.Text, res.Summary.Text)
		}
		input2, err := openai.ToResponsesInput(res2.Payload)
		if err != nil {
			t.Fatal(err)
		}
		checkResponsesRequest(t, apitest.JSONOf(t, input2).([]any), apitest.JSONOf(t, next).([]any))
	}
}

// FuzzResponsesInput: any JSON items either fail to convert, or convert
// back to themselves; no input panics.
func FuzzResponsesInput(f *testing.F) {
	for _, it := range conversation() {
		data, _ := json.Marshal(it)
		f.Add(string(data), `{"role":"user","content":"x"}`)
	}
	f.Add(`{"type":"reasoning","id":"rs_1","summary":[]}`, `{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`)
	f.Add(`{"type":"computer_call","call_id":"c","action":{}}`, `{"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot"}}`)
	f.Add(`{"type":"mcp_approval_request","id":"a"}`, `{"type":"mcp_approval_response","approval_request_id":"a","approve":false}`)
	f.Add(`{"role":"user","content":[{"type":"input_text"}]}`, `{"role":"assistant","content":null}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if !json.Valid([]byte(a)) || !json.Valid([]byte(b)) {
			return // the SDK cannot send it
		}
		items := responses.ResponseInputParam{item(a), item(b)}
		msgs, err := openai.FromResponsesInput(items)
		if err != nil {
			return
		}
		back, err := openai.ToResponsesInput(msgs)
		if err != nil {
			t.Fatalf("%s %s: converted, but not back: %v", a, b, err)
		}
		if diff := cmp.Diff(apitest.JSONOf(t, items), apitest.JSONOf(t, back)); diff != "" {
			t.Fatalf("%s %s: round trip mismatch (-want +got):\n%s", a, b, diff)
		}
	})
}
