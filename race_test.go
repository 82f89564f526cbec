//go:build race

package recap

// raceEnabled reports whether the tests run under the race detector, which
// makes the code it watches 5 to 20 times slower: the randomized invariant
// tests run a quarter of their cases then (the same first ones), all of
// them without it (scripts/modules check).
const raceEnabled = true
