package recap

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/recapgo/recap/tokens"
)

// fixtureCase is one line of tokens/testdata/tokens/fixture.jsonl, the
// token fixture of package tokens (see gen.mjs there).
type fixtureCase struct {
	Cat       string `json:"cat"`
	B64       string `json:"b64"`
	O200k     int    `json:"o200k"`
	O200kGPT  int    `json:"o200k_gpt"`
	Cl100k    int    `json:"cl100k"`
	Cl100kGPT int    `json:"cl100k_gpt"`
	text      string // the raw bytes, possibly invalid UTF-8
}

func loadFixture(t testing.TB) []fixtureCase {
	t.Helper()
	f, err := os.Open(filepath.Join("tokens", "testdata", "tokens", "fixture.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []fixtureCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c fixtureCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		b, err := base64.StdEncoding.DecodeString(c.B64)
		if err != nil {
			t.Fatal(err)
		}
		c.text = string(b)
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 2000 {
		t.Fatalf("fixture has %d texts, want at least 2000", len(cases))
	}
	return cases
}

// TestOpenAIMessageOverhead checks tokens.OpenAIMessageOverhead against
// the encodeChat lengths of tokens/testdata/tokens/chats.json, made by
// gpt-tokenizer for gpt-4o: payload tokens with the overhead, plus 3 for
// the reply priming.
func TestOpenAIMessageOverhead(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("tokens", "testdata", "tokens", "chats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var chats []struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		EncodeChat int `json:"encodeChat"`
	}
	if err := json.Unmarshal(data, &chats); err != nil {
		t.Fatal(err)
	}
	if len(chats) < 20 {
		t.Fatalf("only %d chats", len(chats))
	}
	tc, err := tokens.NewGPTTokenizer(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(nil, nil, WithTokenCounter(tc), WithMessageOverhead(tokens.OpenAIMessageOverhead))
	if err != nil {
		t.Fatal(err)
	}
	for i, chat := range chats {
		msgs := make([]Message, len(chat.Messages))
		for j, m := range chat.Messages {
			msgs[j] = Message{ID: fmt.Sprint(j), Role: Role(m.Role), Content: m.Content}
		}
		if got := c.tokens(nil, msgs) + tokens.OpenAIReplyPriming; got != chat.EncodeChat {
			t.Errorf("chat %d: %d tokens with the overhead, encodeChat says %d", i, got, chat.EncodeChat)
		}
	}
}
