package retention

import (
	"fmt"
	"io"
	"strings"
)

// WriteItemsTable writes the outcomes of chats without fact lines as a
// Markdown table of their key items kept (see KeyItems), one row per chat
// and a total: the proxy that WriteTable is for facts.
func WriteItemsTable(w io.Writer, os []Outcome) {
	fmt.Fprintln(w, "| chat | msgs | chat tokens | payload tokens | payload % | recap | recent-only | whole chat |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, o := range os {
		n := len(o.Items)
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.1f%% | %d/%d | %d/%d | %d/%d |\n",
			o.Chat.Name, len(o.Chat.Messages), o.ChatTokens, o.PayloadTokens,
			100*float64(o.PayloadTokens)/float64(max(o.ChatTokens, 1)),
			count(o.Kept), n, count(o.Recent), n, count(o.Whole), n)
	}
	t := Sum(os)
	fmt.Fprintf(w, "| **all %d chats** | | %d | %d | %.1f%% (mean), %.1f%% (summed) | **%.0f%%** (%d/%d) | %.0f%% | %.0f%% |\n",
		len(os), t.ChatTokens, t.PayloadTokens, 100*t.PayloadShare, 100*float64(t.PayloadTokens)/float64(max(t.ChatTokens, 1)),
		t.Percent(t.Kept), t.Kept, t.Facts, t.Percent(t.Recent), t.Percent(t.Whole))
}

// WriteCallsTable writes what the replays cost as a Markdown table, one
// row per chat and a total: the turns (user messages), the Summarizer
// calls and the tokens of their input (the fallback's not counted), the
// tokens of every turn's payload, of the uncompressed chat at every turn,
// and the share of those saved.
func WriteCallsTable(w io.Writer, os []Outcome) {
	fmt.Fprintln(w, "| chat | turns | summarizer calls | summarizer input | tokens sent | uncompressed | saved |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	saved := func(sent, in, whole int) string {
		if whole == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f%%", 100*(1-float64(sent+in)/float64(whole)))
	}
	for _, o := range os {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %s |\n", o.Chat.Name, len(o.KeptByTurn), o.Calls, o.SummarizerIn,
			o.Sent, o.Uncompressed, saved(o.Sent, o.SummarizerIn, o.Uncompressed))
	}
	t := Sum(os)
	fmt.Fprintf(w, "| **all %d chats** | %d | %d | %d | %d | %d | **%s** |\n", len(os), t.Turns, t.Calls, t.SummarizerIn,
		t.Sent, t.Uncompressed, saved(t.Sent, t.SummarizerIn, t.Uncompressed))
}

// WriteItemDetails writes, chat by chat, the final summary and the key
// items the final payload lost: WriteDetails for the chats without facts.
func WriteItemDetails(w io.Writer, os []Outcome) {
	for _, o := range os {
		fmt.Fprintf(w, "\n## %s: %d summarizations, final summary:\n%s\n\n", o.Chat.Name, o.Summaries, o.Summary)
		var lost []string
		for i, it := range o.Items {
			if !o.Kept[i] {
				lost = append(lost, it)
			}
		}
		fmt.Fprintf(w, "- %d of %d key items kept", count(o.Kept), len(o.Items))
		const most = 20 // lost items listed
		switch {
		case len(lost) > most:
			fmt.Fprintf(w, "; lost: %s and %d more", strings.Join(lost[:most], ", "), len(lost)-most)
		case len(lost) > 0:
			fmt.Fprintf(w, "; lost: %s", strings.Join(lost, ", "))
		}
		fmt.Fprintln(w)
		for _, err := range o.Failures {
			fmt.Fprintf(w, "- absorbed failure: %v\n", err)
		}
	}
}
