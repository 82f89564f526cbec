package recap

import "fmt"

// A tool result answers a tool call made before it, in the same message
// (an Anthropic server tool's result beside its call) or an earlier one.
// A result whose call is not in the history, such as one left behind
// when a client trimmed the chat, is refused: a provider rejects it
// (Anthropic answers a tool_result without its tool_use with a 400), and
// recap cannot tell what it answers, so it could neither summarize nor
// keep it well.

// orphanReason is the reason a tool result of call ID id is invalid.
func orphanReason(id string) string {
	return fmt.Sprintf("a tool result for call %q, whose tool call (tool_use) is not before it in the chat: "+
		"send the history from the message that made the call", id)
}

// checkPairs returns a *MessageError for the first message of msgs that
// holds a tool result ("tool-result" part) whose ToolCallID no earlier
// "tool-call" part has, in the same message or one before it. A result
// without a ToolCallID pairs with nothing and is not checked; an AI SDK
// tool part holds its call and its result together.
func checkPairs(msgs []Message) error {
	var calls map[string]bool
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			if p.ToolCallID == "" {
				continue
			}
			switch p.Type {
			case PartToolCall:
				if calls == nil {
					calls = make(map[string]bool)
				}
				calls[p.ToolCallID] = true
			case PartToolResult:
				if !calls[p.ToolCallID] {
					return &MessageError{Index: i, ID: msgs[i].ID, Reason: orphanReason(p.ToolCallID)}
				}
			}
		}
	}
	return nil
}
