//go:build !race

package recap

// raceEnabled: see race_test.go.
const raceEnabled = false
