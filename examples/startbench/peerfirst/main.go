// Command peerfirst counts the tokens of its argument once with
// github.com/tiktoken-go/tokenizer's o200k_base codec and prints the count,
// for startbench to time beside recapfirst. That library is the fastest to
// start of the Go tokenizers measured in issue 14 (its o200k counts are not
// exact: its pattern differs from tiktoken's).
package main

import (
	"fmt"
	"os"

	"github.com/tiktoken-go/tokenizer"
)

func main() {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil || len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: peerfirst TEXT", err)
		os.Exit(2)
	}
	n, err := enc.Count(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(n)
}
