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
	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/openai"
	"github.com/recapgo/recap/internal/apitest"
	"github.com/recapgo/recap/tokens"
)

// toolCall is an assistant's function call of the SDK.
func toolCall(id, name, args string) oai.ChatCompletionMessageToolCallUnionParam {
	return oai.ChatCompletionMessageToolCallUnionParam{OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
		ID: id, Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: name, Arguments: args}}}
}

// withCalls is an assistant message of the SDK with tool calls.
func withCalls(calls ...oai.ChatCompletionMessageToolCallUnionParam) oai.ChatCompletionMessageParamUnion {
	return oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{ToolCalls: calls}}
}

// override is a message of the SDK sent as the JSON given, as a backend
// that stores the API's JSON holds it.
func override(raw string) oai.ChatCompletionMessageParamUnion {
	return param.Override[oai.ChatCompletionMessageParamUnion](json.RawMessage(raw))
}

// agentChat is a chat of n turns as a backend holds it in the SDK's types:
// a system prompt, questions with an image, parallel tool calls and their
// results, answers.
func agentChat(n int) []oai.ChatCompletionMessageParamUnion {
	chat := []oai.ChatCompletionMessageParamUnion{oai.SystemMessage("You are a travel agent. Use the tools.")}
	for i := 1; i <= n; i++ {
		q := fmt.Sprintf("Turn %d: what is the weather in Lisbon and Porto on day %d, and what should I pack?", i, i)
		if i%3 == 1 {
			chat = append(chat, oai.UserMessage([]oai.ChatCompletionContentPartUnionParam{
				oai.TextContentPart(q),
				oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: "https://example.com/map.png", Detail: "low"}),
			}))
		} else {
			chat = append(chat, oai.UserMessage(q))
		}
		a, b := fmt.Sprintf("call_%da", i), fmt.Sprintf("call_%db", i)
		chat = append(chat,
			withCalls(toolCall(a, "weather", fmt.Sprintf(`{"city":"Lisbon","day":%d}`, i)), toolCall(b, "weather", fmt.Sprintf(`{"city":"Porto","day":%d}`, i))),
			oai.ToolMessage(fmt.Sprintf(`{"temp":%d,"sky":"clear"}`, 20+i), a),
			oai.ToolMessage("rain, 14 degrees", b),
			oai.AssistantMessage(fmt.Sprintf("On day %d Lisbon is clear at %d degrees and Porto has rain: pack a light jacket and an umbrella.", i, 20+i)))
	}
	return chat
}

// TestChatCompletionMessages: every kind of message the SDK builds
// converts to recap and back to the same JSON, as what recap models.
func TestChatCompletionMessages(t *testing.T) {
	tests := []struct {
		name   string
		msg    oai.ChatCompletionMessageParamUnion
		reason string
		check  func(t *testing.T, m recap.Message)
	}{
		{name: "System", msg: oai.SystemMessage("Be brief."), reason: "a system prompt is pinned by recap",
			check: func(t *testing.T, m recap.Message) {
				want(t, m.Role == recap.RoleSystem && m.Content == "Be brief.", m)
			}},
		{name: "SystemParts", msg: oai.SystemMessage([]oai.ChatCompletionContentPartTextParam{{Text: "a"}, {Text: "b"}}), reason: "a content array stays an array"},
		{name: "Developer", msg: oai.DeveloperMessage("Answer in English."), reason: "developer messages are pinned like system ones",
			check: func(t *testing.T, m recap.Message) { want(t, m.Role == recap.RoleDeveloper, m) }},
		{name: "User", msg: oai.UserMessage("Hello"), reason: "a user message starts a turn",
			check: func(t *testing.T, m recap.Message) { want(t, m.Role == recap.RoleUser && m.Content == "Hello", m) }},
		{name: "UserEmpty", msg: oai.UserMessage(""), reason: "an empty content string is kept, not left out"},
		{name: "UserNamed", msg: oai.ChatCompletionMessageParamUnion{OfUser: &oai.ChatCompletionUserMessageParam{Name: oai.String("bob"), Content: oai.ChatCompletionUserMessageParamContentUnion{OfString: oai.String("hi")}}}, reason: "name stays in Extra"},
		{name: "UserImage", msg: oai.UserMessage([]oai.ChatCompletionContentPartUnionParam{oai.TextContentPart("Where?"), oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,iVBORw0KGgo=", Detail: "high"})}),
			reason: "an image is a file part, counted by media type, never its bytes",
			check: func(t *testing.T, m recap.Message) {
				want(t, len(m.Parts) == 2 && m.Parts[1].IsFile() && m.Parts[1].MediaType == "image/png" && !strings.Contains(m.Text(), "iVBOR"), m)
			}},
		{name: "UserFile", msg: oai.UserMessage([]oai.ChatCompletionContentPartUnionParam{oai.FileContentPart(oai.ChatCompletionContentPartFileFileParam{FileID: oai.String("file-1"), Filename: oai.String("a.pdf")})}), reason: "a file block keeps its file_id"},
		{name: "UserAudio", msg: oai.UserMessage([]oai.ChatCompletionContentPartUnionParam{oai.InputAudioContentPart(oai.ChatCompletionContentPartInputAudioInputAudioParam{Data: "AAAA", Format: "wav"})}), reason: "an audio block is a file part"},
		{name: "Assistant", msg: oai.AssistantMessage("Sure."), reason: "an answer"},
		{name: "AssistantParts", msg: oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{Content: oai.ChatCompletionAssistantMessageParamContentUnion{OfArrayOfContentParts: []oai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{{OfText: &oai.ChatCompletionContentPartTextParam{Text: "t"}}, {OfRefusal: &oai.ChatCompletionContentPartRefusalParam{Refusal: "no"}}}}}},
			reason: "text and refusal blocks of an assistant"},
		{name: "Refusal", msg: oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{Refusal: oai.String("I cannot book flights.")}}, reason: "refusal is counted",
			check: func(t *testing.T, m recap.Message) { want(t, m.Text() == "I cannot book flights.", m) }},
		{name: "ParallelCalls", msg: withCalls(toolCall("c1", "weather", `{"city":"Lisbon"}`), toolCall("c2", "weather", `{ "city" : "Porto" }`)),
			reason: "parallel calls are tool-call parts; arguments keep their bytes",
			check: func(t *testing.T, m recap.Message) {
				want(t, len(m.Parts) == 2 && m.Parts[0].Type == recap.PartToolCall && m.Parts[1].ToolCallID == "c2", m)
			}},
		{name: "CallBadJSON", msg: withCalls(toolCall("c3", "f", "not json {")), reason: "arguments that are not JSON stay a string"},
		{name: "CustomCall", msg: withCalls(oai.ChatCompletionMessageToolCallUnionParam{OfCustom: &oai.ChatCompletionMessageCustomToolCallParam{ID: "c4", Custom: oai.ChatCompletionMessageCustomToolCallCustomParam{Name: "sql", Input: "SELECT 1"}}}),
			reason: "a custom tool call is a tool call too"},
		{name: "Tool", msg: oai.ToolMessage(`{"temp":21}`, "c1"), reason: "a tool message is a tool-result part of its call",
			check: func(t *testing.T, m recap.Message) {
				want(t, m.Role == recap.RoleTool && len(m.Parts) == 1 && m.Parts[0].ToolCallID == "c1", m)
			}},
		{name: "ToolParts", msg: oai.ToolMessage([]oai.ChatCompletionContentPartTextParam{{Text: "a"}}, "c1"), reason: "a tool result as text blocks"},
		{name: "Function", msg: oai.ChatCompletionMessageParamUnion{OfFunction: &oai.ChatCompletionFunctionMessageParam{Name: "f", Content: oai.String("x")}}, reason: "the deprecated function role survives"},
		{name: "Audio", msg: oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{Audio: oai.ChatCompletionAssistantMessageParamAudio{ID: "aud_1"}}}, reason: "an audio reference stays in Extra"},
		{name: "FunctionCall", msg: oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{FunctionCall: oai.ChatCompletionAssistantMessageParamFunctionCall{Name: "f", Arguments: "{}"}}}, reason: "a deprecated function_call stays in Extra"},
		{name: "UnknownMember", msg: override(`{"role":"user","content":"x","metadata":{"a":1}}`), reason: "a member the SDK does not know is sent as it is"},
		{name: "OwnID", msg: override(`{"id":"m1","role":"user","content":"x"}`), reason: "an id of the caller's is the message's ID, and stays",
			check: func(t *testing.T, m recap.Message) { want(t, m.ID == "m1" && m.Format == recap.FormatOpenAI, m) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := openai.FromChatCompletion([]oai.ChatCompletionMessageParamUnion{tt.msg})
			if err != nil {
				t.Fatalf("FromChatCompletion: %v (%s)", err, tt.reason)
			}
			if msgs[0].Format != recap.FormatOpenAI || msgs[0].ID == "" {
				t.Errorf("format %v, ID %q", msgs[0].Format, msgs[0].ID)
			}
			if tt.check != nil {
				tt.check(t, msgs[0])
			}
			back, err := openai.ToChatCompletion(msgs)
			if err != nil {
				t.Fatalf("ToChatCompletion: %v (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(apitest.JSONOf(t, []oai.ChatCompletionMessageParamUnion{tt.msg}), apitest.JSONOf(t, back)); diff != "" {
				t.Errorf("%s: round trip mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// want reports m unless ok.
func want(t *testing.T, ok bool, m recap.Message) {
	t.Helper()
	if !ok {
		t.Errorf("converted to %+v", m)
	}
}

func TestChatCompletionRoundTrip(t *testing.T) {
	chat := agentChat(3)
	msgs, err := openai.FromChatCompletion(chat)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		if m.Format != recap.FormatOpenAI || !strings.HasPrefix(m.ID, recap.ChainIDPrefix) {
			t.Errorf("message %d: format %v, ID %q", i, m.Format, m.ID)
		}
	}
	back, err := openai.ToChatCompletion(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(apitest.JSONOf(t, chat), apitest.JSONOf(t, back)); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	// An older snapshot's IDs are a prefix of the grown chat's.
	older, _ := openai.FromChatCompletion(chat[:5])
	for i := range older {
		if older[i].ID != msgs[i].ID {
			t.Fatalf("message %d: ID %q in the older snapshot, %q now", i, older[i].ID, msgs[i].ID)
		}
	}
	// The caller's slices are not modified.
	if diff := cmp.Diff(apitest.JSONOf(t, agentChat(3)), apitest.JSONOf(t, chat)); diff != "" {
		t.Errorf("FromChatCompletion modified its input (-want +got):\n%s", diff)
	}
}

func TestFromChatCompletionErrors(t *testing.T) {
	tests := []struct {
		name   string
		msg    oai.ChatCompletionMessageParamUnion
		reason string
	}{
		{"Zero", oai.ChatCompletionMessageParamUnion{}, "no variant set: the SDK writes null"},
		{"NoRole", override(`{"content":"x"}`), "a message needs a role"},
		{"UnknownRole", override(`{"role":"wizard","content":"x"}`), "not a role of the API"},
		{"RoleNotString", override(`{"role":5}`), "a member of the wrong type"},
		{"NotObject", override(`[1]`), "not a message"},
		{"Parts", override(`{"role":"user","parts":[{"type":"text","text":"x"}]}`), "a UIMessage is not a Chat Completions message"},
		{"CallWithoutType", override(`{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`), "a tool call without a type cannot be written back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := []oai.ChatCompletionMessageParamUnion{oai.SystemMessage("s"), tt.msg}
			_, err := openai.FromChatCompletion(chat)
			if err == nil || !strings.Contains(err.Error(), "message 1") {
				t.Errorf("FromChatCompletion = %v, want an error naming message 1 (%s)", err, tt.reason)
			}
		})
	}
}

func TestToChatCompletionErrors(t *testing.T) {
	tests := []struct {
		name   string
		msg    recap.Message
		reason string
	}{
		{"NoRole", recap.Message{ID: "x", Content: "x", Format: recap.FormatOpenAI}, "a message needs a role"},
		{"UnknownRole", recap.Message{ID: "x", Role: "wizard", Content: "x", Format: recap.FormatOpenAI}, "not a role of the API"},
		{"TwoResults", recap.Message{ID: "x", Role: recap.RoleTool, Format: recap.FormatOpenAI, Parts: []recap.Part{{Type: recap.PartToolResult, ToolCallID: "a"}, {Type: recap.PartToolResult, ToolCallID: "b"}}}, "a tool message answers one call"},
		{"BadExtra", recap.Message{ID: "x", Role: recap.RoleUser, Content: "x", Format: recap.FormatOpenAI, Extra: map[string]json.RawMessage{"k": json.RawMessage("{bad")}}, "Extra must hold JSON"},
		{"UIToolPart", recap.Message{ID: "x", Role: recap.RoleAssistant, Format: recap.FormatUI, Parts: []recap.Part{{Type: "tool-weather", ToolCallID: "c1", State: "output-available"}}}, "an AI SDK tool part has no Chat Completions form"},
		{"UIFile", recap.Message{ID: "x", Role: recap.RoleUser, Format: recap.FormatUI, Parts: []recap.Part{{Type: recap.PartFile, URL: "https://x/a.png", MediaType: "image/png"}}}, "a UIMessage file is not a Chat Completions block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openai.ToChatCompletion([]recap.Message{{ID: "s", Role: recap.RoleSystem, Content: "s"}, tt.msg})
			if !errors.Is(err, openai.ErrNotConvertible) || !strings.Contains(err.Error(), "message 1 (x)") {
				t.Errorf("ToChatCompletion = %v, want ErrNotConvertible naming message 1 (%s)", err, tt.reason)
			}
		})
	}
}

// TestToChatCompletionOtherFormats: a message that is not an OpenAI one
// (a plain summary, a UIMessage's text, a plain message with tool parts)
// is written as the OpenAI message it stands for.
func TestToChatCompletionOtherFormats(t *testing.T) {
	tests := []struct {
		name   string
		msg    recap.Message
		want   string
		reason string
	}{
		{"PlainSummary", recap.NewTextMessage(recap.FormatPlain, recap.SummaryIDPrefix+"m9", recap.RoleSystem, "The summary."),
			`{"role":"system","content":"The summary."}`, "the summary of a plain chat, without its id"},
		{"UserSummary", recap.NewTextMessage(recap.FormatPlain, recap.SummaryIDPrefix+"m9", recap.RoleUser, "The summary."),
			`{"role":"user","content":"The summary."}`, "WithSummaryRole(RoleUser)"},
		{"UIText", recap.NewTextMessage(recap.FormatUI, "u1", recap.RoleAssistant, "Hi."),
			`{"role":"assistant","content":[{"type":"text","text":"Hi."}]}`, "a UIMessage's text part, without its id and metadata"},
		{"PlainCall", recap.Message{ID: "p1", Role: recap.RoleAssistant, Parts: []recap.Part{{Type: recap.PartToolCall, ToolCallID: "c1", ToolName: "f", Input: json.RawMessage(`{"a":1}`), Wire: recap.WireValue}}, Extra: map[string]json.RawMessage{"createdAt": json.RawMessage(`1`)}},
			`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}`, "arguments as a string of JSON, as the API wants"},
		{"PlainResult", recap.Message{ID: "p2", Role: recap.RoleTool, Parts: []recap.Part{{Type: recap.PartToolResult, ToolCallID: "c1", Output: json.RawMessage(`"sunny"`), Wire: recap.WireValue}}},
			`{"role":"tool","tool_call_id":"c1","content":"sunny"}`, "a string result as the content string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := openai.ToChatCompletion([]recap.Message{tt.msg})
			if err != nil {
				t.Fatal(err)
			}
			var w any
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, apitest.JSONOf(t, out[0])); diff != "" {
				t.Errorf("%s: mismatch (-want +got):\n%s", tt.reason, diff)
			}
			if *out[0].GetRole() != string(tt.msg.Role) {
				t.Errorf("the SDK reads role %q", *out[0].GetRole())
			}
		})
	}
}

// TestChatCompletionThroughCompressor: a backend's loop on SDK types:
// convert, compress, convert back, send with the SDK; the request is
// valid (every tool result after its call, the summary in a system
// message), and the next turn, sent as the payload echoed back plus a new
// question, keeps the summary.
func TestChatCompletionThroughCompressor(t *testing.T) {
	for _, role := range []recap.Role{recap.RoleSystem, recap.RoleUser} {
		t.Run(string(role), func(t *testing.T) {
			var calls int
			sum := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
				calls++
				return fmt.Sprintf("Summary %d: the user plans a Lisbon and Porto trip; weather looked up day by day.", calls), nil
			})
			c, err := recap.New(sum, recap.NewMemoryStore(), recap.WithTriggerTokens(200), recap.WithWindowConversations(1),
				recap.WithMessageOverhead(tokens.OpenAIMessageOverhead), recap.WithSummaryRole(role))
			if err != nil {
				t.Fatal(err)
			}
			chat := agentChat(6)
			msgs, err := openai.FromChatCompletion(chat)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Compress(context.Background(), "chat-1", msgs)
			if err != nil || !res.Summarized || res.Err != nil {
				t.Fatalf("Compress = %+v, %v", res.Summary, err)
			}
			payload, err := openai.ToChatCompletion(res.Payload)
			if err != nil {
				t.Fatal(err)
			}
			s := newServer(t, response{status: 200, body: completion("Pack a jacket.", "stop")})
			client := oai.NewClient(option.WithAPIKey("sk-test"), option.WithBaseURL(s.URL+"/v1"))
			if _, err := client.Chat.Completions.New(context.Background(), oai.ChatCompletionNewParams{Model: "gpt-4o", Messages: payload}); err != nil {
				t.Fatal(err)
			}
			sent := s.Body(0)["messages"].([]any)
			checkChatRequest(t, sent)
			if m := sent[1].(map[string]any); m["role"] != string(role) || m["content"] != res.Summary.Text || len(m) != 2 {
				t.Errorf("message 1 sent: %v, want the summary as a %s message", m, role)
			}

			// Next turn: the payload echoed back, an answer and a new question.
			next := append(payload, oai.AssistantMessage("Pack a jacket."), oai.UserMessage("And for day 7?"))
			msgs, err = openai.FromChatCompletion(next)
			if err != nil {
				t.Fatal(err)
			}
			res2, err := c.Compress(context.Background(), "chat-1", msgs)
			if err != nil || res2.Stale || res2.Older || res2.Err != nil {
				t.Fatalf("next turn: %+v, %v", res2, err)
			}
			if !res2.Summary.Equal(res.Summary) && !res2.Summarized {
				t.Errorf("next turn's summary %+v, want %+v kept", res2.Summary, res.Summary)
			}
			if calls != 1+btoi(res2.Summarized) {
				t.Errorf("%d summarizations", calls)
			}
			payload2, err := openai.ToChatCompletion(res2.Payload)
			if err != nil {
				t.Fatal(err)
			}
			checkChatRequest(t, apitest.JSONOf(t, payload2).([]any))
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkChatRequest checks the messages of a Chat Completions request as
// the API does: every tool message answers a call of the assistant
// message before it, after which only tool messages come until all its
// calls are answered. (The API requires no alternation of roles and no
// particular first message.)
func checkChatRequest(t testing.TB, msgs []any) {
	t.Helper()
	open := map[string]bool{}
	for i, raw := range msgs {
		m := raw.(map[string]any)
		switch m["role"] {
		case "tool":
			id, _ := m["tool_call_id"].(string)
			if !open[id] {
				t.Errorf("message %d: tool result %q without its call before it", i, id)
			}
			delete(open, id)
		case "system", "developer", "user", "assistant":
			if len(open) > 0 {
				t.Errorf("message %d (%v): calls %v not answered before it", i, m["role"], open)
			}
			calls, _ := m["tool_calls"].([]any)
			for _, c := range calls {
				open[c.(map[string]any)["id"].(string)] = true
			}
		default:
			t.Errorf("message %d: role %v", i, m["role"])
		}
	}
	if len(open) > 0 {
		t.Errorf("calls %v not answered at the end", open)
	}
}

// randomChat is a random chat of the SDK's messages: any mix of text,
// images, parallel tool calls (function and custom), results as strings
// or text blocks, refusals; it ends with a question.
func randomChat(r *rand.Rand) []oai.ChatCompletionMessageParamUnion {
	chat := []oai.ChatCompletionMessageParamUnion{oai.SystemMessage("sys")}
	if r.IntN(3) == 0 {
		chat = append(chat, oai.DeveloperMessage("dev"))
	}
	for turn := 0; turn < 1+r.IntN(12); turn++ {
		words := strings.Repeat("word ", 1+r.IntN(40))
		if r.IntN(4) == 0 {
			chat = append(chat, oai.UserMessage([]oai.ChatCompletionContentPartUnionParam{oai.TextContentPart(words),
				oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,iVBORw0KGgo="})}))
		} else {
			chat = append(chat, oai.UserMessage(words))
		}
		for step := 0; step < r.IntN(3); step++ {
			var calls []oai.ChatCompletionMessageToolCallUnionParam
			for k := 0; k <= r.IntN(3); k++ {
				id := fmt.Sprintf("c%d_%d_%d", turn, step, k)
				if r.IntN(5) == 0 {
					calls = append(calls, oai.ChatCompletionMessageToolCallUnionParam{OfCustom: &oai.ChatCompletionMessageCustomToolCallParam{ID: id, Custom: oai.ChatCompletionMessageCustomToolCallCustomParam{Name: "sql", Input: "SELECT " + words}}})
				} else {
					calls = append(calls, toolCall(id, "f", fmt.Sprintf(`{"x":%d}`, k)))
				}
			}
			chat = append(chat, withCalls(calls...))
			for _, c := range calls {
				id := *c.GetID()
				if r.IntN(4) == 0 {
					chat = append(chat, oai.ToolMessage([]oai.ChatCompletionContentPartTextParam{{Text: words}}, id))
				} else {
					chat = append(chat, oai.ToolMessage(words, id))
				}
			}
		}
		if r.IntN(10) == 0 {
			chat = append(chat, oai.ChatCompletionMessageParamUnion{OfAssistant: &oai.ChatCompletionAssistantMessageParam{Refusal: oai.String("no")}})
		} else {
			chat = append(chat, oai.AssistantMessage(words))
		}
	}
	return append(chat, oai.UserMessage("now?"))
}

// TestChatCompletionRandom: random chats convert back to themselves;
// through a Compressor at random settings the payload is a valid request
// (no tool result without its call), and the payload echoed back with a
// new question keeps the summary.
func TestChatCompletionRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		chat := randomChat(r)
		msgs, err := openai.FromChatCompletion(chat)
		if err != nil {
			t.Fatal(err)
		}
		back, err := openai.ToChatCompletion(msgs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(apitest.JSONOf(t, chat), apitest.JSONOf(t, back)); diff != "" {
			t.Fatalf("chat %d: round trip mismatch (-want +got):\n%s", n, diff)
		}
		opts := []recap.Option{recap.WithTriggerTokens(20 + r.IntN(200)), recap.WithWindowConversations(1 + r.IntN(3)),
			recap.WithMaxSummarizeInput([]int{0, 300}[r.IntN(2)])}
		if r.IntN(2) == 0 {
			opts = append(opts, recap.WithToolResultClearing(r.IntN(3), 0))
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
		payload, err := openai.ToChatCompletion(res.Payload)
		if err != nil {
			t.Fatal(err)
		}
		checkChatRequest(t, apitest.JSONOf(t, payload).([]any))

		next := append(payload, oai.AssistantMessage("answer"), oai.UserMessage("and then?"))
		if msgs, err = openai.FromChatCompletion(next); err != nil {
			t.Fatal(err)
		}
		res2, err := c.Compress(context.Background(), "c", msgs)
		if err != nil || res2.Stale || res2.Older {
			t.Fatalf("chat %d, next turn: stale %v, older %v, %v", n, res2.Stale, res2.Older, err)
		}
		if res.Summarized && !res2.Summarized && !res2.Summary.Equal(res.Summary) {
			t.Fatalf("chat %d, next turn: summary %q, want %q kept", n, res2.Summary.Text, res.Summary.Text)
		}
		if _, err := openai.ToChatCompletion(res2.Payload); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzChatCompletion: any JSON message either fails to convert, or
// converts back to itself; no input panics.
func FuzzChatCompletion(f *testing.F) {
	for _, m := range agentChat(2) {
		data, _ := json.Marshal(m)
		f.Add(string(data))
	}
	for _, s := range []string{`{"role":"user","content":[]}`, `{"role":"tool","content":null}`, `{"id":"x","role":"user","content":"a"}`,
		`{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"n","input":"i"}}]}`, `null`, `{"role":"user","parts":[]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return // the SDK cannot send it
		}
		chat := []oai.ChatCompletionMessageParamUnion{override(raw)}
		msgs, err := openai.FromChatCompletion(chat)
		if err != nil {
			return
		}
		back, err := openai.ToChatCompletion(msgs)
		if err != nil {
			t.Fatalf("%s: converted, but not back: %v", raw, err)
		}
		if diff := cmp.Diff(apitest.JSONOf(t, chat), apitest.JSONOf(t, back)); diff != "" {
			t.Fatalf("%s: round trip mismatch (-want +got):\n%s", raw, diff)
		}
	})
}
