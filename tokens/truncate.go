package tokens

// Truncate returns a prefix of text that c counts at most n tokens: text
// itself if c counts it at most n, "" if n <= 0.
//
// If c has a method Truncate(text string, n int) string, as a [*Tiktoken]
// has, Truncate returns c.Truncate(text, n): for a Tiktoken, the longest
// prefix that ends at a token boundary. For any other counter it bisects
// the characters of text for a prefix that c counts at most n tokens, in
// about log2(len(text)) counts: the longest one when c's counts never fall
// as a prefix grows, which holds of most texts but not of all (a word cut
// short can take more tokens than the whole word).
func Truncate(c Counter, text string, n int) string {
	if tr, ok := c.(interface {
		Truncate(text string, n int) string
	}); ok {
		return tr.Truncate(text, n)
	}
	if n <= 0 {
		return ""
	}
	if c.CountTokens(text) <= n {
		return text
	}
	starts := make([]int, 0, len(text)) // the start of each character
	for i := range text {
		starts = append(starts, i)
	}
	lo, hi := 0, len(starts)-1 // text[:starts[lo]] fits; text itself does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if c.CountTokens(text[:starts[mid]]) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return text[:starts[lo]]
}
