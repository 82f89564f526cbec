package retention

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/recapgo/recap"
)

// A Setup is what replays a chat: a way to make a fresh Compressor (each
// chat starts from an empty Store) and the counter that measures payloads.
type Setup struct {
	// New returns a Compressor for one chat, with its own Store, and with
	// more options after the Setup's own.
	New     func(more ...recap.Option) (*recap.Compressor, error)
	Counter recap.TokenCounter
}

// An Outcome is what a replayed chat's final payload kept, against the
// baselines in the same tokens.
type Outcome struct {
	Chat          Chat
	ChatTokens    int // the whole chat
	PayloadTokens int // recap's final payload
	Summary       string
	Summaries     int     // summarizations made over the replay
	Failures      []error // failures recap absorbed (Result.Err)
	// Items are the chat's key items when it has no fact lines (see
	// KeyItems), the proxy that Kept, Recent and Whole then report on;
	// nil for a chat with facts.
	Items []string
	// Kept, Recent and Whole report, fact by fact (or key item by key
	// item), whether recap's final payload, the newest whole messages in
	// PayloadTokens, and the whole chat hold it.
	Kept, Recent, Whole []bool
	// StaleKept counts corrected facts whose replaced value is still in
	// recap's payload.
	StaleKept int
	// Recalled reports, fact by fact, whether recap.Compressor.Recall
	// finds a fact that the final payload does not hold: asked the fact's
	// question over the final state of the chat (its messages and final
	// summary), its top RecallK excerpts hold every proof of the fact.
	// It is false for a fact the payload holds, and for one without a
	// question, which Unasked counts.
	Recalled []bool
	// Unasked counts the facts the final payload does not hold that have
	// no question to recall them with.
	Unasked int
	// Excerpts are, fact by fact, the excerpts recalled for a fact the
	// payload does not hold (for -v).
	Excerpts [][]recap.Excerpt

	// The replay, turn by turn (a turn is a user message).
	//
	// KeptByTurn and StatedByTurn are, for each turn, the facts (or key
	// items) its payload holds and those the chat up to it holds.
	KeptByTurn, StatedByTurn []int
	// Calls counts the Summarizer calls, the fallback's included;
	// SummarizerIn sums the input tokens of the main summarizer's.
	Calls, SummarizerIn int
	// Sent sums the tokens of every turn's payload (Result.PayloadTokens),
	// and Uncompressed those of the chat up to every turn, as the
	// Compressor measures a payload.
	Sent, Uncompressed int
}

// Proxy reports whether o measures key items, the chat having no facts.
func (o Outcome) Proxy() bool { return len(o.Chat.Facts) == 0 }

// RecallK is how many excerpts Replay asks Recall for, per fact.
const RecallK = 3

// UserTurns returns the index in msgs of each user message: the turns a
// backend compresses the chat at.
func UserTurns(msgs []recap.Message) []int {
	var turns []int
	for i, m := range msgs {
		if m.Role == recap.RoleUser {
			turns = append(turns, i)
		}
	}
	return turns
}

// A TurnError is the failure of a Compress in ReplayTurns.
type TurnError struct {
	Turn    int // the turn, from 1
	Message int // the index in the chat of the turn's last message
	Err     error
}

func (e *TurnError) Error() string {
	return fmt.Sprintf("turn %d (message %d): %v", e.Turn, e.Message, e.Err)
}

func (e *TurnError) Unwrap() error { return e.Err }

// ReplayTurns replays a chat through c as a chat backend would: for each
// index i of turns, in order, it compresses msgs[:i+1] (everything before
// the turn's message, the previous turns' replies included) as chatID,
// then calls after with the turn's index in turns and its Result, and
// goes on to the next turn once after returns. It stops at the first
// error: a Compress's as a *TurnError (ErrBudget included), or after's as
// after returned it. It runs everything on the caller's goroutine.
func ReplayTurns(ctx context.Context, c *recap.Compressor, chatID string, msgs []recap.Message, turns []int,
	after func(turn int, res recap.Result) error) error {
	for k, i := range turns {
		res, err := c.Compress(ctx, chatID, msgs[:i+1])
		if err != nil {
			return &TurnError{Turn: k + 1, Message: i, Err: err}
		}
		if err := after(k, res); err != nil {
			return err
		}
	}
	return nil
}

// Replay sends the chat to a fresh Compressor turn by turn, as a backend
// would (ReplayTurns at each user message). It measures the final
// payload, the one for the chat's last user message, and each turn's.
func Replay(ctx context.Context, s Setup, chat Chat) (Outcome, error) {
	o := Outcome{Chat: chat}
	c, err := s.New(recap.WithHooks(recap.Hooks{
		SummarizeEnd: func(_ context.Context, e recap.SummarizeEvent) {
			o.Calls++ // Compress calls it on this goroutine
			if !e.Fallback {
				o.SummarizerIn += e.InputTokens
			}
		},
	}))
	if err != nil {
		return Outcome{}, err
	}
	var items []string
	if o.Proxy() {
		items = KeyItems(chat.Messages)
		o.Items = items
	}
	// held reports which facts (or key items) msgs holds.
	held := func(msgs []recap.Message) []bool {
		if o.Proxy() {
			return itemsHeld(items, msgs)
		}
		out := make([]bool, len(chat.Facts))
		for i, f := range chat.Facts {
			out[i] = holds(msgs, f.Proof)
		}
		return out
	}
	turns := UserTurns(chat.Messages)
	var res recap.Result
	err = ReplayTurns(ctx, c, chat.Name, chat.Messages, turns, func(k int, r recap.Result) error {
		res = r
		if res.Summarized {
			o.Summaries++
		}
		if res.Err != nil {
			o.Failures = append(o.Failures, res.Err)
		}
		sofar := chat.Messages[:turns[k]+1]
		o.Sent += res.PayloadTokens
		o.Uncompressed += c.Measure(sofar)
		o.KeptByTurn = append(o.KeptByTurn, count(held(res.Payload)))
		o.StatedByTurn = append(o.StatedByTurn, count(held(sofar)))
		return nil
	})
	var te *TurnError
	if errors.As(err, &te) {
		return Outcome{}, fmt.Errorf("retention: %s: turn %s: %w", chat.Name, chat.Messages[te.Message].ID, te.Err)
	}
	if err != nil {
		return Outcome{}, err
	}
	o.ChatTokens = tokensOf(s.Counter, chat.Messages)
	o.PayloadTokens = tokensOf(s.Counter, res.Payload)
	o.Summary = res.Summary.Text
	recent := newest(s.Counter, chat.Messages, o.PayloadTokens)
	if o.Proxy() {
		o.Kept, o.Recent, o.Whole = held(res.Payload), held(recent), held(chat.Messages)
		return o, nil
	}
	for _, f := range chat.Facts {
		kept := holds(res.Payload, f.Proof)
		o.Kept = append(o.Kept, kept)
		o.Recent = append(o.Recent, holds(recent, f.Proof))
		o.Whole = append(o.Whole, holds(chat.Messages, f.Proof))
		if f.Stale != "" && holds(res.Payload, []string{f.Stale}) {
			o.StaleKept++
		}
		recalled := false
		var found []recap.Excerpt
		switch {
		case kept:
		case f.Question == "":
			o.Unasked++
		default:
			found, err = c.Recall(ctx, chat.Name, chat.Messages, f.Question, recap.RecallResults(RecallK))
			if err != nil {
				return Outcome{}, fmt.Errorf("retention: %s: recall %q: %w", chat.Name, f.Question, err)
			}
			recalled = inExcerpts(found, f.Proof)
		}
		o.Recalled = append(o.Recalled, recalled)
		o.Excerpts = append(o.Excerpts, found)
	}
	return o, nil
}

// inExcerpts reports whether every proof is in one of the excerpts,
// ignoring case.
func inExcerpts(found []recap.Excerpt, proof []string) bool {
	for _, p := range proof {
		in := false
		for _, e := range found {
			if strings.Contains(strings.ToLower(e.Text), strings.ToLower(p)) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// tokensOf is the size of msgs as the CLI reports it: each message's Text.
func tokensOf(c recap.TokenCounter, msgs []recap.Message) int {
	n := 0
	for _, m := range msgs {
		n += c.CountTokens(m.Text())
	}
	return n
}

// newest returns the newest whole messages of msgs that fit in budget
// tokens: the recent-only baseline.
func newest(c recap.TokenCounter, msgs []recap.Message, budget int) []recap.Message {
	i := len(msgs)
	for i > 0 {
		n := c.CountTokens(msgs[i-1].Text())
		if n > budget {
			break
		}
		budget -= n
		i--
	}
	return msgs[i:]
}

// holds reports whether the texts of msgs contain every proof, ignoring case.
func holds(msgs []recap.Message, proof []string) bool {
	text := strings.ToLower(transcript(msgs))
	for _, p := range proof {
		if !strings.Contains(text, strings.ToLower(p)) {
			return false
		}
	}
	return true
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// Totals are the benchmark's figures over all chats.
type Totals struct {
	Facts                     int
	Kept, Recent, Whole       int
	StaleKept                 int
	Dropped                   int     // facts the final payload does not hold
	Unasked                   int     // of those, the facts without a question
	Recalled                  int     // of the others, those Recall finds
	PayloadShare              float64 // mean over chats of payload / chat tokens
	ChatTokens, PayloadTokens int     // sums
	// Sums of the replays: turns, Summarizer calls and their input, the
	// tokens of every turn's payload and of the chat up to every turn.
	Turns, Calls, SummarizerIn, Sent, Uncompressed int
}

// Percent returns n as a percentage of the facts.
func (t Totals) Percent(n int) float64 { return pct(n, t.Facts) }

// Sum adds up outcomes, of chats with facts or, for the proxy, without
// (Facts is then the key items).
func Sum(os []Outcome) Totals {
	var t Totals
	for _, o := range os {
		t.Facts += len(o.Kept)
		t.Kept += count(o.Kept)
		t.Recent += count(o.Recent)
		t.Whole += count(o.Whole)
		t.StaleKept += o.StaleKept
		t.Dropped += len(o.Kept) - count(o.Kept)
		t.Unasked += o.Unasked
		t.Recalled += count(o.Recalled)
		t.ChatTokens += o.ChatTokens
		t.PayloadTokens += o.PayloadTokens
		t.PayloadShare += float64(o.PayloadTokens) / float64(max(o.ChatTokens, 1)) / float64(len(os))
		t.Turns += len(o.KeptByTurn)
		t.Calls += o.Calls
		t.SummarizerIn += o.SummarizerIn
		t.Sent += o.Sent
		t.Uncompressed += o.Uncompressed
	}
	return t
}

// WriteTable writes the outcomes as a Markdown table, one row per chat and
// a total.
func WriteTable(w io.Writer, os []Outcome) {
	fmt.Fprintln(w, "| chat | lang | msgs | chat tokens | payload tokens | payload % | recap | recent-only | whole chat |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, o := range os {
		n := len(o.Chat.Facts)
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %.1f%% | %d/%d | %d/%d | %d/%d |\n",
			o.Chat.Name, o.Chat.Language, len(o.Chat.Messages), o.ChatTokens, o.PayloadTokens,
			100*float64(o.PayloadTokens)/float64(max(o.ChatTokens, 1)),
			count(o.Kept), n, count(o.Recent), n, count(o.Whole), n)
	}
	t := Sum(os)
	fmt.Fprintf(w, "| **all %d chats** | | | %d | %d | %.1f%% (mean), %.1f%% (summed) | **%.0f%%** (%d/%d) | %.0f%% | %.0f%% |\n",
		len(os), t.ChatTokens, t.PayloadTokens, 100*t.PayloadShare, 100*float64(t.PayloadTokens)/float64(max(t.ChatTokens, 1)),
		t.Percent(t.Kept), t.Kept, t.Facts, t.Percent(t.Recent), t.Percent(t.Whole))
}

// Asked returns how many dropped facts have a question: those Recall is
// asked for.
func (t Totals) Asked() int { return t.Dropped - t.Unasked }

// WriteRecallTable writes, as a Markdown table, what Recall finds of the
// facts the final payloads do not hold: per chat, the facts dropped, those
// without a question (not counted), those recalled, and the facts
// answerable (held by the payload or recalled) of all facts; and a total.
func WriteRecallTable(w io.Writer, os []Outcome) {
	fmt.Fprintf(w, "| chat | facts dropped | without question | recalled (top %d) | answerable |\n", RecallK)
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|")
	for _, o := range os {
		n, kept, recalled := len(o.Chat.Facts), count(o.Kept), count(o.Recalled)
		fmt.Fprintf(w, "| %s | %d | %d | %d/%d | %d/%d |\n", o.Chat.Name, n-kept, o.Unasked, recalled, n-kept-o.Unasked, kept+recalled, n)
	}
	t := Sum(os)
	fmt.Fprintf(w, "| **all %d chats** | %d | %d | **%.1f%%** (%d/%d) | **%.1f%%** (%d/%d) |\n",
		len(os), t.Dropped, t.Unasked, 100*float64(t.Recalled)/float64(max(t.Asked(), 1)), t.Recalled, t.Asked(),
		t.Percent(t.Kept+t.Recalled), t.Kept+t.Recalled, t.Facts)
}

// WriteDetails writes, chat by chat, the final summary and each fact's fate.
func WriteDetails(w io.Writer, os []Outcome) {
	for _, o := range os {
		fmt.Fprintf(w, "\n## %s (%s): %d summarizations, final summary:\n%s\n\n", o.Chat.Name, o.Chat.Title, o.Summaries, o.Summary)
		for i, f := range o.Chat.Facts {
			mark := func(b bool) string {
				if b {
					return "kept"
				}
				return "LOST"
			}
			stale := ""
			if f.Stale != "" && holds([]recap.Message{{Content: o.Summary}}, []string{f.Stale}) {
				stale = " (stale value " + f.Stale + " in summary)"
			}
			fmt.Fprintf(w, "- %-4s recent:%-4s %s (%s): %s%s\n", mark(o.Kept[i]), mark(o.Recent[i]), f.What, f.By, strings.Join(f.Proof, " & "), stale)
			switch {
			case o.Kept[i]:
			case f.Question == "":
				fmt.Fprintf(w, "  - no question to recall it with\n")
			default:
				fate := "NOT recalled"
				if o.Recalled[i] {
					fate = "recalled"
				}
				fmt.Fprintf(w, "  - %s by %q:", fate, f.Question)
				for _, e := range o.Excerpts[i] {
					fmt.Fprintf(w, " %s (%.1f)", e.MessageID, e.Score)
				}
				fmt.Fprintln(w)
			}
		}
		for _, err := range o.Failures {
			fmt.Fprintf(w, "- absorbed failure: %v\n", err)
		}
	}
}
