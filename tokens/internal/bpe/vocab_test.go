package bpe

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// go generate (or go test -run ^TestGenerated -update) writes the generated
// files again; without -update, the tests check that the committed files
// are exactly what their generators make.
var update = flag.Bool("update", false, "generate the rank tables and classes_table.go again")

// tableFiles are the generated rank tables and the .tiktoken files of
// tiktoken-go-loader they are generated from.
var tableFiles = []struct{ file, out string }{
	{"o200k_base.tiktoken", "tables/o200k_base.bin"},
	{"cl100k_base.tiktoken", "tables/cl100k_base.bin"},
	{"p50k_base.tiktoken", "tables/p50k_base.bin"},
	{"claude.tiktoken", "tables/claude.bin"},
}

var loaded sync.Map // .tiktoken file name to map[string]int

// loaderRanks returns the ranks that tiktoken-go-loader reads from file,
// or, for claude.tiktoken, that testdata/claude.tiktoken holds (made from
// ai-tokenizer's "claude" encoding by testdata/estimate/gen.mjs) less its
// 17 tokens longer than a rank table holds (maxTokenLen, 255 bytes: runs
// of spaces and of symbols, up to 1,024 bytes), so that a run longer than
// 255 bytes counts a few tokens more than ai-tokenizer counts it.
func loaderRanks(t testing.TB, file string) map[string]int {
	if r, ok := loaded.Load(file); ok {
		return r.(map[string]int)
	}
	var (
		r   map[string]int
		err error
	)
	if file == "claude.tiktoken" {
		r, err = readTiktoken("testdata/claude.tiktoken")
		for tok := range r {
			if len(tok) > maxTokenLen {
				delete(r, tok)
			}
		}
	} else {
		r, err = tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(file)
	}
	if err != nil {
		t.Fatal(err)
	}
	loaded.Store(file, r)
	return r
}

// TestGeneratedTables: each committed rank table is what BuildTable makes
// of tiktoken-go-loader's ranks, byte for byte.
func TestGeneratedTables(t *testing.T) {
	for _, tf := range tableFiles {
		t.Run(tf.file, func(t *testing.T) {
			data, err := BuildTable(loaderRanks(t, tf.file))
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.WriteFile(tf.out, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(tf.out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("%s is not what BuildTable makes of %s: run go generate ./tokens/internal/bpe", tf.out, tf.file)
			}
		})
	}
}

// TestVocabularies: every embedded vocabulary has exactly the tokens and
// ranks that tiktoken-go-loader reads, r50k_base included.
func TestVocabularies(t *testing.T) {
	for _, file := range []string{"o200k_base.tiktoken", "cl100k_base.tiktoken", "p50k_base.tiktoken", "r50k_base.tiktoken", "claude.tiktoken"} {
		t.Run(file, func(t *testing.T) {
			want := loaderRanks(t, file)
			tab, err := Vocabulary(file)
			if err != nil {
				t.Fatal(err)
			}
			checkTable(t, tab, want)
		})
	}
	if _, err := Vocabulary("gpt2.tiktoken"); err == nil {
		t.Error("Vocabulary(gpt2.tiktoken): no error")
	}
}

// FuzzTableRank: the o200k table finds what the loader's map finds, on any
// byte string.
func FuzzTableRank(f *testing.F) {
	for _, s := range []string{"hello", " world", "\xef\xbb\xbf", "zzzzzzzzzzzzzzzzzzzzzzzz", "\x00"} {
		f.Add(s)
	}
	want := loaderRanks(f, "o200k_base.tiktoken")
	tab, err := Vocabulary("o200k_base.tiktoken")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, wok := want[s]
		if r, ok := tab.Rank(s); r != w || ok != wok {
			t.Fatalf("Rank(%q) = %d, %v; the loader has %d, %v", s, r, ok, w, wok)
		}
	})
}

// readTiktoken reads a .tiktoken file: lines of the base64 of a token's
// bytes, a space and its rank.
func readTiktoken(path string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ranks := make(map[string]int)
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		tok, rank, ok := strings.Cut(line, " ")
		b, err := base64.StdEncoding.DecodeString(tok)
		n, nerr := strconv.Atoi(rank)
		if !ok || err != nil || nerr != nil {
			return nil, fmt.Errorf("%s:%d: not a token and a rank: %q", path, i+1, line)
		}
		if _, dup := ranks[string(b)]; dup {
			return nil, fmt.Errorf("%s:%d: token %q twice", path, i+1, b)
		}
		ranks[string(b)] = n
	}
	return ranks, nil
}
