package retention

import (
	"bufio"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/recapgo/recap"
)

// A Chat is one conversation of the benchmark and the facts it must keep.
type Chat struct {
	Name     string // the file name without extension
	Title    string
	Language string
	Messages []recap.Message // IDs m01, m02, ...; the last one is the user's current turn
	Facts    []Fact
}

// A Fact is something the user relies on later in the chat, and the
// strings that prove a payload still holds it.
type Fact struct {
	What string
	// By is who stated it: "user" or "assistant".
	By string
	// Proof are strings that must all appear in a payload (compared
	// case-insensitively) for the fact to count as kept. For a corrected
	// fact, they are the corrected value.
	Proof []string
	// Stale is the value a correction replaced, or "".
	Stale string
	// Question asks for the fact as a user would later in the chat, without
	// any of its proof strings, or "".
	Question string
}

// LoadChats reads every *.chat file of the directory dir of fsys, sorted
// by name.
func LoadChats(fsys fs.FS, dir string) ([]Chat, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.chat")) // sorted
	if err != nil {
		return nil, err
	}
	var out []Chat
	for _, f := range files {
		c, err := ReadChat(fsys, f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("retention: no *.chat file in %s", dir)
	}
	return out, nil
}

// ReadChat parses a chat file:
//
//	title: what the chat is about
//	language: en
//	fact | user | what the fact is | proof & another proof | stale value
//	question | how a user would ask for it later
//	== user
//	the message, over any number of lines
//	== assistant
//	...
//
// A fact line has four or five fields: who stated it (user or assistant),
// a description, the proof strings separated by " & ", and optionally the
// value a correction replaced. A question line right after a fact line asks
// for that fact without naming any of its proofs. Messages are trimmed of surrounding blank
// lines; the chat must end with a user message.
func ReadChat(fsys fs.FS, name string) (Chat, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return Chat{}, err
	}
	defer f.Close()
	c := Chat{Name: strings.TrimSuffix(path.Base(name), path.Ext(name))}
	fail := func(line int, format string, args ...any) (Chat, error) {
		return Chat{}, fmt.Errorf("retention: %s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	var (
		cur       *recap.Message
		factLines []int // the line of each fact of c.Facts
		n         int   // the line read last
	)
	flush := func() {
		if cur != nil {
			cur.Content = strings.TrimSpace(cur.Content)
			c.Messages = append(c.Messages, *cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "== "):
			flush()
			role := recap.Role(strings.TrimSpace(line[3:]))
			if role != recap.RoleUser && role != recap.RoleAssistant && role != recap.RoleSystem {
				return fail(n, "unknown role %q", role)
			}
			cur = &recap.Message{ID: fmt.Sprintf("m%02d", len(c.Messages)+1), Role: role}
		case cur != nil:
			cur.Content += line + "\n"
		case strings.HasPrefix(line, "title:"):
			c.Title = strings.TrimSpace(line[len("title:"):])
		case strings.HasPrefix(line, "language:"):
			c.Language = strings.TrimSpace(line[len("language:"):])
		case strings.HasPrefix(line, "fact |"):
			fs := strings.Split(line, "|")
			for i := range fs {
				fs[i] = strings.TrimSpace(fs[i])
			}
			if len(fs) != 4 && len(fs) != 5 {
				return fail(n, "a fact has 4 or 5 fields, not %d", len(fs)-1)
			}
			fact := Fact{By: fs[1], What: fs[2]}
			if fact.By != "user" && fact.By != "assistant" {
				return fail(n, "fact stated by %q, not user or assistant", fact.By)
			}
			for _, p := range strings.Split(fs[3], "&") {
				if p = strings.TrimSpace(p); p != "" {
					fact.Proof = append(fact.Proof, p)
				}
			}
			if len(fact.Proof) == 0 {
				return fail(n, "fact without proof")
			}
			if len(fs) == 5 {
				fact.Stale = fs[4]
			}
			c.Facts = append(c.Facts, fact)
			factLines = append(factLines, n)
		case strings.HasPrefix(line, "question |"):
			if len(c.Facts) == 0 || c.Facts[len(c.Facts)-1].Question != "" {
				return fail(n, "a question line follows a fact line without a question")
			}
			q := strings.TrimSpace(line[len("question |"):])
			fact := &c.Facts[len(c.Facts)-1]
			for _, p := range fact.Proof {
				if strings.Contains(strings.ToLower(q), strings.ToLower(p)) {
					return fail(n, "the question names the proof %q", p)
				}
			}
			fact.Question = q
		case strings.TrimSpace(line) == "":
		default:
			return fail(n, "unexpected line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		return Chat{}, err
	}
	flush()
	if len(c.Messages) == 0 || c.Messages[len(c.Messages)-1].Role != recap.RoleUser {
		return fail(n, "the chat must end with a user message")
	}
	text := strings.ToLower(transcript(c.Messages))
	for i, fact := range c.Facts {
		for _, p := range fact.Proof {
			if !strings.Contains(text, strings.ToLower(p)) {
				return fail(factLines[i], "fact %q: proof %q is not in the chat", fact.What, p)
			}
		}
	}
	return c, nil
}

// transcript joins the counted texts of msgs.
func transcript(msgs []recap.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Text())
		b.WriteByte('\n')
	}
	return b.String()
}
