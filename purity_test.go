package recap

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPurity reads the imports of the library's non-test files: recap does
// no network or file I/O, reads no environment and logs nothing, so none of
// the packages that could do so may appear.
func TestPurity(t *testing.T) {
	allowed := map[string]bool{
		"bytes": true, "context": true, "encoding/json": true, "errors": true, "fmt": true,
		"hash/maphash": true, "math": true, "sort": true, "strconv": true, "strings": true,
		"sync": true, "time": true, "unicode": true, "unicode/utf8": true,
		"log/slog":      true,                                   // only to a logger the caller passes (WithLogger)
		"crypto/sha256": true, "encoding/hex": true, "io": true, // RenderPrompt's delimiters
		"runtime/debug":                   true, // the stack of a recovered Summarizer panic
		"slices":                          true,
		"container/list":                  true, // the branches' LRU
		"math/rand":                       true, // lease holders: the runtime's source, seeded at start, no I/O
		"math/bits":                       true, // the rank tables' hash
		"embed":                           true, // the rank tables, generated and read in place
		"regexp":                          true, // the summary check's URLs, e-mail addresses and paths
		"github.com/recapgo/recap/tokens": true,
		"github.com/recapgo/recap/tokens/internal/bpe": true,
		"github.com/recapgo/recap/internal/keyitems":   true,
	}
	for _, dir := range []string{".", "tokens", "tokens/internal/bpe", "internal/keyitems"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !allowed[path] {
					t.Errorf("%s imports %q: the core must not do I/O of its own", file, path)
				}
			}
		}
	}
}
