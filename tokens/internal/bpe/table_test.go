package bpe

import (
	"bytes"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// checkTable checks that tab holds exactly the ranks want.
func checkTable(t *testing.T, tab *Table, want map[string]int) {
	t.Helper()
	if tab.Len() != len(want) {
		t.Errorf("Len() = %d, want %d", tab.Len(), len(want))
	}
	maxLen, bad := 0, 0
	for tok, r := range want {
		maxLen = max(maxLen, len(tok))
		if got, ok := tab.Rank(tok); !ok || got != r {
			if bad++; bad <= 10 {
				t.Errorf("Rank(%q) = %d, %v; want %d, true", tok, got, ok, r)
			}
		}
	}
	if tab.MaxLen() != maxLen {
		t.Errorf("MaxLen() = %d, want %d", tab.MaxLen(), maxLen)
	}
	n := 0
	tab.Each(func(tok string, r int) {
		n++
		if w, ok := want[tok]; !ok || w != r {
			if bad++; bad <= 10 {
				t.Errorf("Each gives %q of rank %d; want %d, %v", tok, r, w, ok)
			}
		}
	})
	if n != len(want) {
		t.Errorf("Each gives %d tokens, want %d", n, len(want))
	}
	checkRuns(t, tab)
}

// checkRuns checks the invariants of the slots that lookups rely on: each
// token is at or after its home slot, and the run of every home slot is 1
// plus the distance of the farthest token whose home it is, or 0.
func checkRuns(t *testing.T, tab *Table) {
	t.Helper()
	slots := len(tab.slots) / 8
	want := make([]uint64, slots)
	for i := 0; i < slots; i++ {
		e := le64(tab.slots, i*8)
		n, off := int(e>>slotLenShift&maxTokenLen), int(e>>slotOffsetShift)&(maxBlob-1)
		if n == 0 {
			continue
		}
		h := hashString(tab.blob[off:off+n], tab.seed)
		home := int(((h >> 32) * tab.home) >> 32)
		if home > i || e>>slotFPShift != h&(1<<slotFPBits-1) {
			t.Fatalf("slot %d: token %q of home slot %d, fingerprint %#x", i, tab.blob[off:off+n], home, e>>slotFPShift)
		}
		want[home] = max(want[home], uint64(i-home+1))
	}
	for i, w := range want {
		if got := le64(tab.slots, i*8) & maxRun; got != w {
			t.Fatalf("slot %d: run %d, want %d", i, got, w)
		}
	}
}

func TestNewTable(t *testing.T) {
	tests := []struct {
		name    string
		ranks   map[string]int
		wantErr bool
		reason  string
	}{
		{"Empty", map[string]int{}, false, "a vocabulary of no tokens is valid"},
		{"Prefixes", map[string]int{"a": 0, "ab": 1, "abc": 2, "b": 3, "bc": 4, "abd": 5}, false, "prefixes share the blob"},
		{"Long", map[string]int{string(bytes.Repeat([]byte("x"), 255)): 7, "x": 1}, false, "255 bytes is the longest token"},
		{"TooLong", map[string]int{string(bytes.Repeat([]byte("x"), 256)): 7}, true, "the length must fit 8 bits"},
		{"EmptyToken", map[string]int{"": 0}, true, "a token has a byte at least"},
		{"BigRank", map[string]int{"a": 1 << 19}, true, "a rank must fit 19 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := NewTable(tt.ranks)
			if (err != nil) != tt.wantErr {
				t.Fatalf("NewTable: error %v, want error %v (%s)", err, tt.wantErr, tt.reason)
			}
			if err == nil {
				checkTable(t, tab, tt.ranks)
				for _, s := range []string{"", "z", "ac", "abcd", "bb"} {
					if _, ok := tab.Rank(s); ok {
						t.Errorf("Rank(%q) found a token that is not there (%s)", s, tt.reason)
					}
				}
			}
		})
	}
}

func TestParseTableRejects(t *testing.T) {
	good, err := BuildTable(map[string]int{"a": 0, "b": 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"Empty":     "",
		"Magic":     "x" + string(good[1:]),
		"Truncated": string(good[:len(good)-1]),
		"Longer":    string(good) + "x",
	} {
		if _, err := ParseTable(data); err == nil {
			t.Errorf("ParseTable(%s): no error", name)
		}
	}
}

// BenchmarkRank compares the lookups of the embedded o200k table with
// those of a Go map of the same ranks: tokens (found) and pairs of tokens
// (mostly not found) in random order, the first 1,000 of each (in the CPU
// caches after the first pass), and the strings that merging a run of one
// letter looks up.
func BenchmarkRank(b *testing.B) {
	ranks := loaderRanks(b, "o200k_base.tiktoken")
	tab, err := Vocabulary("o200k_base.tiktoken")
	if err != nil {
		b.Fatal(err)
	}
	toks := make([]string, 0, len(ranks))
	for tok := range ranks {
		toks = append(toks, strings.Clone(tok)) // as text is: not the map's own key
	}
	sort.Strings(toks)
	rnd := rand.New(rand.NewSource(1))
	rnd.Shuffle(len(toks), func(i, j int) { toks[i], toks[j] = toks[j], toks[i] })
	pairs := make([]string, len(toks))
	for i := range pairs {
		pairs[i] = toks[i] + toks[rnd.Intn(len(toks))]
	}
	var run []string
	for _, n := range []int{2, 3, 2, 4, 2, 3, 6, 2, 8, 12, 16} {
		run = append(run, strings.Repeat("a", n))
	}
	for _, keys := range []struct {
		name string
		keys []string
	}{{"tokens", toks}, {"pairs", pairs}, {"tokens-1k", toks[:1000]}, {"pairs-1k", pairs[:1000]}, {"run", run}} {
		b.Run("table/"+keys.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; i < b.N; i++ {
				if _, ok := tab.Rank(keys.keys[i%len(keys.keys)]); ok {
					n++
				}
			}
		})
		b.Run("map/"+keys.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; i < b.N; i++ {
				if _, ok := ranks[keys.keys[i%len(keys.keys)]]; ok {
					n++
				}
			}
		})
	}
}
