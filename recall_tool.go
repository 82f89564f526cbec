package recap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The recall tool: a function the model calls to search what the summary
// stands for ([Compressor.Recall]). Its definition is plain JSON Schema,
// for any provider or SDK (the adapters under examples/ wrap it in their
// SDK's own types); [Compressor.AnswerRecall] answers a call of it.

// RecallToolName is the name of the recall tool.
const RecallToolName = "recall"

// RecallToolDescription tells the model what the recall tool does.
const RecallToolDescription = "Search the earlier messages of this conversation that the summary condenses " +
	"(or that were left out to save room) for a detail the summary does not hold: a name, number, date, " +
	"identifier, quote or tool result. Returns the passages that match best, most relevant first, " +
	"each with its author and its place in the conversation."

// MaxRecallToolResults is the most passages a call of the recall tool may
// ask for ("k"); DefaultRecallResults is what it gets when it does not say.
const MaxRecallToolResults = 10

// recallToolSchema is the JSON Schema of the recall tool's arguments.
var recallToolSchema = `{"type":"object","properties":{` +
	`"query":{"type":"string","description":"What to look for: the words, names, numbers or identifiers of the detail, in the conversation's language."},` +
	`"k":{"type":"integer","minimum":1,"maximum":` + strconv.Itoa(MaxRecallToolResults) +
	`,"description":"How many passages to return (default ` + strconv.Itoa(DefaultRecallResults) + `)."}},` +
	`"required":["query"],"additionalProperties":false}`

// RecallToolSchema returns the JSON Schema of the recall tool's arguments:
// an object with a string "query", required, and an integer "k" from 1 to
// [MaxRecallToolResults], optional. Each call returns a fresh copy.
func RecallToolSchema() json.RawMessage {
	return json.RawMessage(recallToolSchema)
}

// RecallHint is the sentence WithRecallHint adds for the tool named
// [RecallToolName].
const RecallHint = "Details this summary leaves out (exact figures, names, identifiers, wording) can be looked up with the recall tool."

// WithRecallHint tells the model about the recall tool where it reads the
// summary: hint, a sentence such as [RecallHint] (which names the tool
// [RecallToolName]; a tool of another name needs a hint that names it),
// follows the summary's text, after a blank line, in the payload's summary
// message. It is not part of the summary: the Store, [Result.Summary] and
// the Summarizer's previous summary never hold it, and a summary message
// echoed back by a client is recognized with or without it. It is sent,
// so it counts where the summary message counts (the payload's size and
// the trigger's measure). A payload made with another hint, echoed back,
// is not recognized as the summary: it is taken for an edit of the chat,
// which is summarized again. hint must not be blank; the default is no
// hint. Of two WithRecallHint the last wins.
func WithRecallHint(hint string) Option {
	return optionFunc(func(c *config) error {
		if strings.TrimSpace(hint) == "" {
			return invalid("WithRecallHint", "blank hint")
		}
		c.recallHint = hint
		return nil
	})
}

// AnswerRecall answers a call of the recall tool in chat chatID, whose
// messages are msgs (up to the call: the whole chat, as for Compress):
// input is the call's arguments, a JSON object such as {"query": "ticket
// number", "k": 3}. It searches with [Compressor.Recall] and returns the
// text the model reads as the tool's result: the passages found, best
// first, each headed by its author and its place in the chat ("message 12
// of 40", counted from 1), or a sentence saying that nothing matched.
//
// A call the model got wrong (arguments that are not such an object, a
// query with no words, a k out of range) is answered with a text saying
// what is wrong, for the model to call again, and a nil error. The error
// is for what the caller must handle: the errors of Compressor.Recall
// for invalid msgs, a Store that fails or ctx done.
func (c *Compressor) AnswerRecall(ctx context.Context, chatID string, msgs []Message, input json.RawMessage) (string, error) {
	query, k, problem := recallArgs(input)
	if problem != "" {
		return "recall: " + problem, nil
	}
	found, err := c.Recall(ctx, chatID, msgs, query, RecallResults(k))
	if errors.Is(err, ErrNoQuery) {
		return "recall: the query has no words to search for; ask for the names, numbers or key words of the detail.", nil
	}
	if err != nil {
		return "", err
	}
	return RecallText(query, found, len(msgs)), nil
}

// recallArgs decodes the arguments of a recall call, or says what is
// wrong with them. A k sent as a string of digits, or as a number with no
// fraction, is taken.
func recallArgs(input json.RawMessage) (query string, k int, problem string) {
	const want = `the arguments must be a JSON object with a "query" string and an optional "k" number, such as {"query": "invoice number", "k": 3}`
	var args map[string]json.RawMessage
	if jsonKind(input) != '{' || json.Unmarshal(input, &args) != nil {
		return "", 0, want + "; got " + abbrev(input) + "."
	}
	if json.Unmarshal(args["query"], &query) != nil {
		return "", 0, want + `; "query" is missing or not a string.`
	}
	k = DefaultRecallResults
	if raw, ok := args["k"]; ok && jsonKind(raw) != 'n' {
		var n json.Number
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if d.Decode(&v) == nil {
			switch v := v.(type) {
			case json.Number:
				n = v
			case string:
				n = json.Number(strings.TrimSpace(v))
			}
		}
		f, err := n.Float64()
		if err != nil || f != float64(int(f)) || f < 1 || f > MaxRecallToolResults {
			return "", 0, fmt.Sprintf(`"k" must be a whole number from 1 to %d; got %s.`, MaxRecallToolResults, abbrev(raw))
		}
		k = int(f)
	}
	return query, k, ""
}

// RecallText renders excerpts found for query, in a chat of n messages,
// as the recall tool's result: the model's text (see
// [Compressor.AnswerRecall]).
func RecallText(query string, found []Excerpt, n int) string {
	q := strconv.Quote(query)
	if len(found) == 0 {
		return "Nothing in the earlier messages matches " + q + "."
	}
	var b strings.Builder
	passages := "passages"
	if len(found) == 1 {
		passages = "passage"
	}
	fmt.Fprintf(&b, "Found %d %s in the earlier messages for %s, most relevant first:", len(found), passages, q)
	for i, e := range found {
		fmt.Fprintf(&b, "\n\n[%d] %s, message %d of %d:\n%s", i+1, e.Role, e.Position+1, n, e.Text)
	}
	return b.String()
}
