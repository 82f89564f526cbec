// Command recapfirst counts the tokens of its argument once with recap's
// o200k_base counter (package tokens) and prints the count: a process that starts, counts
// and exits, as a CLI or a serverless handler does. startbench times it.
package main

import (
	"fmt"
	"os"

	"github.com/recapgo/recap/tokens"
)

func main() {
	c, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil || len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: recapfirst TEXT", err)
		os.Exit(2)
	}
	fmt.Println(c.CountTokens(os.Args[1]))
}
