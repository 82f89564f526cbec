package recap

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
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
