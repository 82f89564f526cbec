package recap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func openAIChat(t *testing.T, data string) []Message {
	t.Helper()
	var msgs []Message
	if err := json.Unmarshal([]byte(data), &msgs); err != nil {
		t.Fatal(err)
	}
	return msgs
}

const chainChat = `[
	{"role":"system","content":"be brief"},
	{"role":"user","content":"hi"},
	{"role":"assistant","content":"hello"},
	{"role":"user","content":"hi"},
	{"role":"assistant","content":"hello"},
	{"role":"user","content":"bye"}
]`

func TestChainIDs(t *testing.T) {
	chat := openAIChat(t, chainChat)
	before := cloneMessages(chat)
	got := ChainIDs(chat)
	if diff := cmp.Diff(before, chat); diff != "" {
		t.Fatalf("ChainIDs modified its input (-before +after):\n%s", diff)
	}
	idFormat := regexp.MustCompile(`^h-[0-9a-f]{12}\.[0-9a-f]{8}$`)
	seen := map[string]bool{}
	for i, m := range got {
		if !idFormat.MatchString(m.ID) {
			t.Errorf("message %d: ID %q, want h-, 12 hex digits, a dot and 8 more", i, m.ID)
		}
		if seen[m.ID] {
			t.Errorf("message %d: ID %q repeats, though a repeated message follows another ID", i, m.ID)
		}
		seen[m.ID] = true
		want := chat[i]
		want.ID = m.ID
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("message %d changed beyond its ID (-want +got):\n%s", i, diff)
		}
	}
	if diff := cmp.Diff(ids(got), ids(ChainIDs(chat))); diff != "" {
		t.Errorf("ChainIDs is not deterministic (-first +second):\n%s", diff)
	}
	got[1].Content = "changed"
	if chat[1].Content != "hi" {
		t.Errorf("the copies share memory with the input")
	}
}

func TestChainIDsProperties(t *testing.T) {
	chat := openAIChat(t, chainChat)
	full := ids(ChainIDs(chat))
	tests := []struct {
		name   string
		reason string
		msgs   func() []Message
		same   int // how many leading IDs equal full's; the rest differ
	}{
		{"Snapshot", "an older snapshot's IDs are a prefix of the grown chat's",
			func() []Message { return chat[:4] }, 4},
		{"Edit", "an edit changes the edited message's ID and every one after it",
			func() []Message {
				m := cloneMessages(chat)
				m[2].Content = "hello!"
				return m
			}, 2},
		{"EditMember", "an edit of an unmodelled member counts too",
			func() []Message {
				m := cloneMessages(chat)
				m[3].Extra = map[string]json.RawMessage{"name": json.RawMessage(`"ana"`)}
				return m
			}, 3},
		{"RoleChange", "the role is hashed",
			func() []Message {
				m := cloneMessages(chat)
				m[5].Role = RoleAssistant
				return m
			}, 5},
		{"Deletion", "deleting a message changes the IDs after it",
			func() []Message { return append(cloneMessages(chat[:1]), cloneMessages(chat[2:])...) }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(ChainIDs(tt.msgs()))
			for i, id := range got {
				if (i < tt.same) != (id == full[i]) {
					t.Errorf("%s: ID %d is %q, full chat's %q; want the first %d equal and the rest different", tt.reason, i, id, full[i], tt.same)
				}
			}
		})
	}
}

func TestChainIDsKeepsIDs(t *testing.T) {
	chat := openAIChat(t, chainChat)
	chat[2].ID = "a1"
	got := ids(ChainIDs(chat))
	if got[2] != "a1" {
		t.Fatalf("message 2 has ID %q, want its own a1", got[2])
	}
	chat[2].ID = "a1-edited"
	again := ids(ChainIDs(chat))
	for i := range got {
		if changed := got[i] != again[i]; changed != (i >= 2) {
			t.Errorf("ID %d: %q then %q; want only IDs from the changed one on to change", i, got[i], again[i])
		}
	}
}

func TestChainIDsInvalidJSON(t *testing.T) {
	msgs := []Message{{Role: RoleTool, Parts: []Part{{Type: PartToolResult, Output: json.RawMessage(`{`)}}}}
	a, b := ChainIDs(msgs), ChainIDs(msgs)
	if a[0].ID == "" || a[0].ID != b[0].ID {
		t.Errorf("a message that does not encode got IDs %q and %q, want one stable ID", a[0].ID, b[0].ID)
	}
}

// TestChainIDsAcrossEcho: a payload echoed back with the summary (a system
// message) in place of what it covers, or a new system prompt, gives the
// messages after it other chains but the same content keys.
func TestChainIDsAcrossEcho(t *testing.T) {
	full := ChainIDs(openAIChat(t, `[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"more"}]`))
	echo := ChainIDs(openAIChat(t, `[{"role":"system","content":"Be brief."},{"role":"system","content":"The user said hi."},{"role":"user","content":"more"}]`))
	if full[3].ID == echo[2].ID || contentKey(full[3].ID) == "" || contentKey(full[3].ID) != contentKey(echo[2].ID) {
		t.Fatalf("after an echo: %q and %q, want other chains with one content key", full[3].ID, echo[2].ID)
	}
	other := ChainIDs(openAIChat(t, `[{"role":"system","content":"Be very brief."},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"more"}]`))
	for i := 1; i < 4; i++ {
		if other[i].ID == full[i].ID || contentKey(other[i].ID) != contentKey(full[i].ID) {
			t.Errorf("message %d after a new system prompt: %q, before %q; want another chain, one content key", i, other[i].ID, full[i].ID)
		}
	}
	if contentKey("u1") != "" || contentKey("h-123") != "" {
		t.Error("contentKey of an ID ChainIDs did not make")
	}
}

// idlessChat returns a chat in format f without message IDs: a system
// prompt, n conversations in which the assistant calls a tool with a large
// result, and the current question.
func idlessChat(f Format, n int) []Message {
	msgs := []Message{{Role: RoleSystem, Content: "You are a terse travel agent.", Format: f}}
	for i := 1; i <= n; i++ {
		msgs = append(msgs, Message{Role: RoleUser, Content: fmt.Sprintf("question %d about the trip one two three four", i), Format: f})
		msgs = append(msgs, toolStep(f, i)...)
		msgs = append(msgs, Message{Role: RoleAssistant, Content: fmt.Sprintf("answer %d about the trip one two three four", i), Format: f})
	}
	return append(msgs, Message{Role: RoleUser, Content: "the current question", Format: f})
}

// toolStep returns an assistant's tool call i and its result, of 22 words,
// in format f, without IDs.
func toolStep(f Format, i int) []Message {
	call := fmt.Sprintf("call_%d", i)
	return []Message{
		{Role: RoleAssistant, Format: f, Parts: []Part{{Type: PartToolCall, ToolCallID: call, ToolName: "search",
			Input: json.RawMessage(fmt.Sprintf(`{"q":"trip %d"}`, i))}}},
		{Role: RoleTool, Format: f, Parts: []Part{{Type: PartToolResult, ToolCallID: call, Wire: WireString,
			Output: json.RawMessage(fmt.Sprintf("%q", fmt.Sprintf("result %d %s", i, strings.Repeat("row ", 20))))}}},
	}
}

// textSummarizer summarizes from the messages' texts alone, never their
// IDs, so that a chat sent with and without IDs gets the same summaries.
var textSummarizer = SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
	first := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		first[i] = strings.Fields(m.Text() + " -")[0]
	}
	return strings.TrimSpace(req.Previous + " then " + strings.Join(first, ",")), nil
})

// derivedIDs returns the IDs that Compress derives for the messages of
// msgs without an ID.
func derivedIDs(msgs []Message) map[string]bool {
	set := map[string]bool{}
	for i, m := range ChainIDs(msgs) {
		if msgs[i].ID == "" {
			set[m.ID] = true
		}
	}
	return set
}

// clearIDs returns msgs in a fresh slice, with the IDs in set cleared.
func clearIDs(msgs []Message, set map[string]bool) []Message {
	out := append([]Message(nil), msgs...)
	for i := range out {
		if set[out[i].ID] {
			out[i].ID = ""
		}
	}
	return out
}

// withoutChainIDs returns copies of msgs without the IDs that ChainIDs
// derives (in these tests, no sender makes IDs of that form).
func withoutChainIDs(msgs []Message) []Message {
	out := cloneMessages(msgs)
	for i := range out {
		if contentKey(out[i].ID) != "" {
			out[i].ID = ""
		}
	}
	return out
}

// checkWireIDs fails t if the JSON of payload has an "id" member that msgs,
// the messages sent, did not have, other than the summary message's.
func checkWireIDs(t *testing.T, payload, msgs []Message) {
	t.Helper()
	sent := map[string]bool{}
	for _, m := range msgs {
		if m.ID != "" {
			sent[m.ID] = true
		}
	}
	data, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	var wire []map[string]any
	if err := json.Unmarshal(data, &wire); err != nil {
		t.Fatal(err)
	}
	for i, m := range wire {
		id, ok := m["id"]
		if ok && !sent[fmt.Sprint(id)] && !strings.HasPrefix(fmt.Sprint(id), SummaryIDPrefix) {
			t.Errorf("payload message %d has the id %v, which the chat sent did not have: %s", i, id, data)
		}
	}
}

// TestCompressWithoutIDs: Compress and Plan on a chat whose messages have
// no IDs (or only some) do what they do on ChainIDs of it, over three
// turns that echo the payload back, and give every message back, to the
// caller and to the Summarizer, with the ID it was sent with; the payload
// JSON has no "id" the chat did not send but the summary message's.
func TestCompressWithoutIDs(t *testing.T) {
	mixed := idlessChat(FormatOpenAI, 4)
	for i := range mixed {
		if mixed[i].Role == RoleUser {
			// The app gives its users' messages IDs, on the wire too.
			mixed[i].ID = fmt.Sprint("u", i)
			mixed[i].Extra = map[string]json.RawMessage{"id": json.RawMessage(fmt.Sprintf("%q", mixed[i].ID))}
		}
	}
	longTurn := idlessChat(FormatPlain, 2)
	for i := 3; i <= 8; i++ {
		longTurn = append(longTurn, toolStep(FormatPlain, i)...)
	}
	var q queue
	tests := []struct {
		name, reason string
		chat         []Message
		opts         []Option
		exercises    string // what the case must have done in some turn
	}{
		{"OpenAI", "an OpenAI chat, as it decodes without IDs", idlessChat(FormatOpenAI, 4), nil, "summarized"},
		{"Plain", "recap's own format, which writes IDs, built in Go without them", idlessChat(FormatPlain, 4), nil, "summarized"},
		{"Mixed", "messages with IDs keep them and feed the chain", mixed, nil, "summarized"},
		{"Clearing", "tool results cleared by the ID derived for their message", idlessChat(FormatOpenAI, 6),
			[]Option{WithToolResultClearing(1, 3)}, "cleared"},
		{"MaxTurn", "a long current turn folded by the derived IDs of its steps", longTurn,
			[]Option{WithMaxTurnTokens(60)}, "compacted"},
		{"Chunks", "a backlog folded in chunks, each saved with a derived boundary", idlessChat(FormatOpenAI, 8),
			[]Option{WithMaxSummarizeInput(90)}, "chunks"},
		{"Ceiling", "messages dropped to fit a ceiling come back without IDs", idlessChat(FormatPlain, 6),
			[]Option{WithMaxPayloadTokens(45)}, "dropped"},
		{"Background", "a background task summarizes the derived chat", idlessChat(FormatOpenAI, 4),
			[]Option{WithBackground(q.run)}, "scheduled"},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]Option{WithTriggerTokens(40), WithWindowConversations(2)}, tt.opts...)
			var rawSums, chainSums []SummarizeRequest
			record := func(reqs *[]SummarizeRequest) Summarizer {
				return SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
					*reqs = append(*reqs, req)
					return textSummarizer(ctx, req)
				})
			}
			rawStore, chainStore := NewMemoryStore(), NewMemoryStore()
			raw := mustNew(t, record(&rawSums), rawStore, opts...)
			chained := mustNew(t, record(&chainSums), chainStore, opts...)

			msgs := tt.chat
			seen := map[string]bool{}
			for turn := 1; turn <= 3; turn++ {
				before := len(rawSums)
				sent := cloneMessages(msgs)
				derived := derivedIDs(msgs)
				existing, _ := rawStore.Load(ctx, "c")

				wantPlan, wantErr := chained.Plan(ChainIDs(msgs), existing)
				gotPlan, err := raw.Plan(msgs, existing)
				if err != nil || wantErr != nil {
					t.Fatalf("%s: turn %d: Plan: %v, with ChainIDs %v", tt.reason, turn, err, wantErr)
				}
				if diff := cmp.Diff(wantPlan, gotPlan, cmpopts.IgnoreFields(Plan{}, "Derived")); diff != "" {
					t.Errorf("%s: turn %d: Plan differs from Plan of ChainIDs (-want +got):\n%s", tt.reason, turn, diff)
				}
				var wantDerived []string
				for i, m := range ChainIDs(msgs) {
					if msgs[i].ID == "" {
						wantDerived = append(wantDerived, m.ID)
					}
				}
				if diff := cmp.Diff(wantDerived, gotPlan.Derived); diff != "" || wantPlan.Derived != nil {
					t.Errorf("%s: turn %d: Plan.Derived (-want +got):\n%s (of ChainIDs: %v)", tt.reason, turn, diff, wantPlan.Derived)
				}
				if diff := cmp.Diff(clearIDs(wantPlan.Payload(), derived), gotPlan.Payload()); diff != "" {
					t.Errorf("%s: turn %d: Plan.Payload differs from that of ChainIDs but for IDs (-want +got):\n%s", tt.reason, turn, diff)
				}
				checkWireIDs(t, gotPlan.Payload(), msgs)

				want, wantErr := chained.Compress(ctx, "c", ChainIDs(msgs))
				got, err := raw.Compress(ctx, "c", msgs)
				q.drain()
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || err != nil && !errors.Is(err, ErrBudget) {
					t.Fatalf("%s: turn %d: Compress: %v, with ChainIDs %v", tt.reason, turn, err, wantErr)
				}
				want.Payload, want.Dropped = clearIDs(want.Payload, derived), clearIDs(want.Dropped, derived)
				if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
					t.Errorf("%s: turn %d: Result differs from that of ChainIDs but for IDs (-want +got):\n%s", tt.reason, turn, diff)
				}
				if diff := cmp.Diff(sent, msgs); diff != "" {
					t.Fatalf("Compress modified its input (-before +after):\n%s", diff)
				}
				checkWireIDs(t, got.Payload, msgs)
				checkWireIDs(t, got.Dropped, msgs)
				calls := len(rawSums) - before
				seen["summarized"] = seen["summarized"] || got.Summarized
				seen["cleared"] = seen["cleared"] || len(got.Cleared) > 0
				seen["compacted"] = seen["compacted"] || gotPlan.Compacted
				seen["chunks"] = seen["chunks"] || calls > 1
				seen["dropped"] = seen["dropped"] || len(got.Dropped) > 0
				seen["scheduled"] = seen["scheduled"] || got.Scheduled
				stored, _ := rawStore.Load(ctx, "c")
				if chainStored, _ := chainStore.Load(ctx, "c"); !stored.Equal(chainStored) {
					t.Errorf("%s: turn %d: stored %+v, with ChainIDs %+v", tt.reason, turn, stored, chainStored)
				}
				if turn > 1 && (got.Stale || got.Older || stored.IsZero() || !isPrefix(existing.Covered, stored.Covered)) {
					t.Errorf("%s: turn %d, the payload echoed back: stale %v, older %v, stored %+v after %+v; want the summary kept", tt.reason, turn, got.Stale, got.Older, stored, existing)
				}

				// The next turn: the client keeps the payload it got as
				// its history (as JSON, in OpenAI's format) and asks again.
				msgs = got.Payload
				if msgs[0].Format == FormatOpenAI {
					msgs, _ = roundTrip(t, msgs)
				}
				f := msgs[0].Format
				msgs = append(msgs,
					Message{Role: RoleAssistant, Content: fmt.Sprintf("answer %d after the echo", turn), Format: f},
					Message{Role: RoleUser, Content: fmt.Sprintf("question %d after the echo", turn), Format: f})
			}
			if !seen[tt.exercises] {
				t.Errorf("%s: no turn %s", tt.reason, tt.exercises)
			}
			if len(rawSums) == 0 || len(rawSums) != len(chainSums) {
				t.Fatalf("%s: %d summarizations, %d with ChainIDs; want as many, at least 1", tt.reason, len(rawSums), len(chainSums))
			}
			for i := range rawSums {
				if diff := cmp.Diff(withoutChainIDs(chainSums[i].Messages), rawSums[i].Messages); diff != "" {
					t.Errorf("%s: summarization %d: the Summarizer got other messages than with ChainIDs, less the derived IDs (-want +got):\n%s", tt.reason, i, diff)
				}
			}
		})
	}
}

// TestInvalidChatWithoutIDs: a UIMessage must have an ID, whatever the
// other messages; other invalid messages are reported with the ID they
// were sent with.
func TestInvalidChatWithoutIDs(t *testing.T) {
	ui := func(id string, role Role, text string) Message {
		return Message{ID: id, Role: role, Format: FormatUI, Parts: []Part{{Type: PartText, Text: text}}}
	}
	openai := func(role Role, text string) Message {
		return Message{Role: role, Content: text, Format: FormatOpenAI}
	}
	later := openai(RoleAssistant, "sure")
	clash := chainID("x", later) // the ID derived for later after a message x
	tests := []struct {
		name, reason string
		msgs         []Message
		index        int
		id           string
		wantReason   []string // what the reason must say; nil for no error
	}{
		{"UIWithoutID", "an AI SDK UIMessage always carries an ID",
			[]Message{ui("u1", RoleUser, "hi"), ui("", RoleAssistant, "hello"), ui("u2", RoleUser, "bye")},
			1, "", []string{"no ID", "UIMessage", `"id"`, "generateId", "generateMessageId"}},
		{"FirstUIWithoutID", "the first message too",
			[]Message{ui("", RoleUser, "hi")}, 0, "", []string{"UIMessage", "generateId"}},
		{"UIAmongOpenAI", "a UIMessage without ID in a chat of OpenAI messages",
			[]Message{openai(RoleUser, "hi"), ui("", RoleAssistant, "hello"), openai(RoleUser, "bye")},
			1, "", []string{"UIMessage"}},
		{"UIWithIDAmongOpenAI", "UIMessages with IDs mix with OpenAI messages without",
			[]Message{openai(RoleSystem, "be brief"), ui("u1", RoleUser, "hi"), openai(RoleAssistant, "hello"), ui("u2", RoleUser, "bye")},
			0, "", nil},
		{"UnknownRole", "a message without ID and of an unknown role is named by the ID it was sent with",
			[]Message{openai(RoleUser, "hi"), openai("wizard", "abracadabra"), openai(RoleUser, "bye")},
			1, "", []string{`unknown role "wizard"`}},
		{"DerivedClash", "an ID sent that equals the one derived for a later message is a duplicate",
			[]Message{{ID: clash, Role: RoleUser, Content: "hi"}, {ID: "x", Role: RoleAssistant, Content: "hello"}, later, openai(RoleUser, "bye")},
			2, "", []string{"derived", clash, "message 0"}},
		{"SentDuplicate", "two messages sent with one ID, between messages without",
			[]Message{openai(RoleUser, "hi"), {ID: "a", Role: RoleAssistant, Content: "x"}, openai(RoleUser, "hi"), {ID: "a", Role: RoleAssistant, Content: "y"}, openai(RoleUser, "bye")},
			3, "a", []string{"same ID as message 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustNew(t, &recorder{}, NewMemoryStore())
			_, perr := c.Plan(tt.msgs, Summary{})
			_, cerr := c.Compress(context.Background(), "c", tt.msgs)
			for _, err := range []error{perr, cerr} {
				if tt.wantReason == nil {
					if err != nil {
						t.Errorf("%s: %v, want no error", tt.reason, err)
					}
					continue
				}
				var me *MessageError
				if !errors.As(err, &me) || !errors.Is(err, ErrInvalidMessage) {
					t.Fatalf("%s: error %v, want a *MessageError matching ErrInvalidMessage", tt.reason, err)
				}
				if me.Index != tt.index || me.ID != tt.id {
					t.Errorf("%s: message %d (id %q), want %d (id %q)", tt.reason, me.Index, me.ID, tt.index, tt.id)
				}
				for _, s := range tt.wantReason {
					if !strings.Contains(me.Reason, s) {
						t.Errorf("%s: reason %q does not say %q", tt.reason, me.Reason, s)
					}
				}
			}
		})
	}
}

// TestOlderSnapshotWithoutIDs: a delayed retry of an earlier request of a
// chat sent without IDs is Older than the summary that covers it, and
// leaves the summary as it is.
func TestOlderSnapshotWithoutIDs(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	c := mustNew(t, textSummarizer, st, WithTriggerTokens(40), WithWindowConversations(2))
	chat := idlessChat(FormatOpenAI, 6)
	early := chat[:10] // the system prompt, two conversations and a question
	if _, err := c.Compress(ctx, "c", early); err != nil {
		t.Fatal(err)
	}
	res, err := c.Compress(ctx, "c", chat)
	if err != nil || !res.Summarized {
		t.Fatalf("the whole chat: err %v, summarized %v", err, res.Summarized)
	}
	stored, _ := st.Load(ctx, "c")
	old, err := c.Compress(ctx, "c", early)
	if err != nil || !old.Older || old.Stale || old.Summarized {
		t.Fatalf("the early request again: err %v, older %v, stale %v, summarized %v; want Older", err, old.Older, old.Stale, old.Summarized)
	}
	if diff := cmp.Diff(early, old.Payload); diff != "" {
		t.Errorf("the early request's payload is not the request itself (-want +got):\n%s", diff)
	}
	if after, _ := st.Load(ctx, "c"); !after.Equal(stored) {
		t.Errorf("the retry changed the stored summary from %+v to %+v", stored, after)
	}
}

// TestDigestStable pins Digest's values: stores keep them (Summary.Digests),
// so a change would make every stored summary look edited and be folded
// again.
func TestDigestStable(t *testing.T) {
	tests := []struct {
		m    Message
		want string
	}{
		{Message{Role: RoleUser, Content: "hello"}, "3db2f56c"},
		{Message{Role: RoleAssistant, Refusal: "no", Parts: []Part{{Type: PartToolCall, ToolCallID: "c1", ToolName: "f", Input: []byte(`{ "a" : 1 }`)}}}, "dd422f4d"},
		{Message{Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "c1", Output: []byte(`"x"`)}}}, "8dccaa2a"},
		{Message{Role: RoleUser, Parts: []Part{{Type: "custom", Text: "t", Extra: map[string]json.RawMessage{"b": json.RawMessage(`[1, 2]`), "a": json.RawMessage(`{"z": 1}`)}}}}, "e093d788"},
		{Message{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "x"}, {Type: "file", MediaType: "image/png", URL: "data:..."}}}, "fb68afff"},
	}
	var d digester
	for i, tt := range tests {
		if got := Digest(tt.m); got != tt.want {
			t.Errorf("%d: Digest = %s, want %s", i, got, tt.want)
		}
		if got := d.digest(tt.m); got != tt.want { // its buffers reused
			t.Errorf("%d: digester.digest = %s, want %s", i, got, tt.want)
		}
		if !d.is(tt.m, tt.want) || d.is(tt.m, "0"+tt.want[1:]) {
			t.Errorf("%d: digester.is does not tell %s from another", i, tt.want)
		}
	}
}
