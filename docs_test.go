package recap

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codeMark names, on the line before a Go code block of the README or a
// docs page, the region of a Go file the block shows:
//
//	<!-- go: example_test.go quickstart -->
//	```go
//	...
//	```
//
// The region is the lines between "// doc:quickstart" and "// end
// doc:quickstart" in that file (a path from the repository's root), less
// their common indentation. The file is compiled and run by the tests of
// its package, so the block compiles.
var codeMark = regexp.MustCompile(`^<!-- go: (\S+) (\S+) -->$`)

// TestDocCodeBlocks checks that every Go code block of README.md and
// docs/*.md is a region of a Go file that the tests compile (see
// codeMark); with -update it rewrites the blocks from the regions.
func TestDocCodeBlocks(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	pages = append([]string{"README.md"}, pages...)
	blocks := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var out []string
		for i := 0; i < len(lines); i++ {
			out = append(out, lines[i])
			if strings.TrimSpace(lines[i]) != "```go" {
				continue
			}
			blocks++
			end := i + 1
			for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
				end++
			}
			block := strings.Join(lines[i+1:end], "\n")
			var m []string
			if i > 0 {
				m = codeMark.FindStringSubmatch(strings.TrimSpace(lines[i-1]))
			}
			if m == nil {
				t.Errorf("%s:%d: a Go block without a <!-- go: FILE REGION --> line before it", page, i+1)
				continue
			}
			region, err := docRegion(m[1], m[2])
			switch {
			case errors.Is(err, fs.ErrNotExist) && strings.HasPrefix(m[1], "examples/"):
				t.Logf("%s:%d: %s is in another module, not beside this one: not checked", page, i+1, m[1])
				continue
			case err != nil:
				t.Errorf("%s:%d: %v", page, i+1, err)
				continue
			}
			if *update {
				out = append(out, strings.Split(region, "\n")...)
				i = end - 1
				continue
			}
			if block != region {
				t.Errorf("%s:%d: the block is not region %s of %s (go test -run TestDocCodeBlocks -update rewrites it):\n--- block\n%s\n--- region\n%s", page, i+1, m[2], m[1], block, region)
			}
		}
		if *update {
			if err := os.WriteFile(page, []byte(strings.Join(out, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if blocks == 0 {
		t.Error("no Go block in the README or the docs")
	}
}

// docRegion returns the region name of file, a path from the repository's
// root, without its common indentation.
func docRegion(file, name string) (string, error) {
	data, err := os.ReadFile(filepath.FromSlash(file))
	if err != nil {
		return "", err
	}
	start, end := []byte("// doc:"+name+"\n"), []byte("// end doc:"+name+"\n")
	var region []string
	in, found := false, false
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		t := bytes.TrimLeft(l, " \t")
		switch {
		case bytes.Equal(t, start):
			in, found = true, true
		case bytes.Equal(t, end):
			in = false
		case in:
			region = append(region, strings.TrimRight(string(l), "\n"))
		}
	}
	if !found {
		return "", fmt.Errorf("%s has no region %q (// doc:%s ... // end doc:%s)", file, name, name, name)
	}
	indent, set := "", false
	for _, l := range region {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, "\t"))]
		if !set || len(lead) < len(indent) {
			indent, set = lead, true
		}
	}
	for i, l := range region {
		region[i] = strings.TrimPrefix(l, indent)
	}
	for len(region) > 0 && strings.TrimSpace(region[len(region)-1]) == "" {
		region = region[:len(region)-1] // gofmt leaves a line before a comment after a declaration
	}
	return strings.Join(region, "\n"), nil
}
