// Command nocount prints the length of its argument in bytes: a Go process
// that starts, prints a number and exits without counting tokens, the
// floor under recapfirst's and peerfirst's times.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: nocount TEXT")
		os.Exit(2)
	}
	fmt.Println(len(os.Args[1]))
}
