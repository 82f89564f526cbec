//go:build race

package main

// raceEnabled reports whether the tests run under the race detector.
// TestEvalBenchmark, a minute of replay with no goroutine of its own,
// skips itself then: scripts/modules check runs it without it.
const raceEnabled = true
