package tokens

// Counter counts the tokens of a text. Implementations must be safe for
// concurrent use, must not panic on any input (invalid UTF-8 included) and
// must return the same count for the same text, unless they are a
// [VersionedCounter].
type Counter interface {
	CountTokens(text string) int
}

// A VersionedCounter is a Counter whose counts change over time, such as
// the counter of a Calibrator in package recap, as it learns.
// CountVersion returns a number that changes whenever its counts may have
// changed; for one version, the same text must count the same. A caller
// that caches counts (recap's Compressor does) keeps them for one version
// only, and counts again after a change.
type VersionedCounter interface {
	Counter
	CountVersion() uint64
}

// The CounterFunc type is an adapter to allow the use of ordinary
// functions as a Counter.
type CounterFunc func(text string) int

// CountTokens returns f(text).
func (f CounterFunc) CountTokens(text string) int { return f(text) }
