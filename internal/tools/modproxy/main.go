// Command modproxy writes the repository's modules, as they are in the
// work tree, into a directory laid out as a GOPROXY (file://DIR serves it),
// each at the version given, so that every module can be built and tested
// with GOWORK=off against the versions its go.mod requires, offline, before
// anything is tagged:
//
//	go run ./internal/tools/modproxy -version v0.1.0 -o DIR
//
// A module is a directory with a go.mod; its zip holds its files but not
// those of the modules nested in it, nor .git, node_modules and testdata
// of the JavaScript tooling, as the go command's own zips would. It lists
// each module it wrote on standard output: path, directory.
package main

import (
	"archive/zip"
	"bufio"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	version := flag.String("version", "v0.1.0", "the version at which to serve every module")
	out := flag.String("o", "", "the proxy directory to write (required)")
	root := flag.String("C", ".", "the repository's root")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "modproxy: -o DIR is required")
		os.Exit(2)
	}
	if err := run(*root, *out, *version, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(root, out, version string, w io.Writer) error {
	dirs, err := moduleDirs(root)
	if err != nil {
		return err
	}
	for _, dir := range dirs {
		path, err := modulePath(filepath.Join(dir, "go.mod"))
		if err != nil {
			return err
		}
		if err := write(dir, path, version, dirs, out); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fmt.Fprintf(w, "%s %s\n", path, dir)
	}
	return nil
}

// skip reports whether a directory of that name is never part of a module.
func skip(name string) bool {
	return name == ".git" || name == "node_modules" || (strings.HasPrefix(name, ".") && name != ".")
}

// moduleDirs returns the directories under root that hold a go.mod.
func moduleDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (skip(d.Name()) || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	return dirs, err
}

// modulePath reads the module path of a go.mod.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// escape applies the module proxy's case encoding to a path.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// write adds module path, in dir, at version to the proxy out.
func write(dir, path, version string, modules []string, out string) error {
	vdir := filepath.Join(out, filepath.FromSlash(escape(path)), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, version+".mod"), gomod, 0o644); err != nil {
		return err
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`+"\n", version, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(vdir, version+".info"), []byte(info), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, "list"), []byte(version+"\n"), 0o644); err != nil {
		return err
	}
	zf, err := os.Create(filepath.Join(vdir, version+".zip"))
	if err != nil {
		return err
	}
	zw := zip.NewWriter(zf)
	prefix := path + "@" + version + "/"
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && skip(d.Name()) {
				return filepath.SkipDir
			}
			for _, m := range modules {
				if p != dir && p == m {
					return filepath.SkipDir // a nested module
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		w, err := zw.Create(prefix + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := zf.Close(); err == nil {
		err = cerr
	}
	return err
}
