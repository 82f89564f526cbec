//go:build !unix

package main

import "os"

// maxRSS returns 0: this system does not report the peak resident set size
// of a child process through os.ProcessState.
func maxRSS(*os.ProcessState) int64 { return 0 }
