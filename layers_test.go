package recap

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// layers gives each file of the package its step in the reading order of a
// request, as doc.go names them. A function may call functions of its own
// step and of earlier ones, never of a later one: a reader follows a request
// in one direction. Methods of Message and Part, which every step reads,
// and the orchestrators (orchestrators) may be called from anywhere, and
// may call anything, respectively. A new file gets its step here: a new
// arrow between steps is a reviewed line, as in go/build's deps_test.go.
var layers = map[string]int{
	// 0. foundation: options, errors, the counting interface and cache,
	// the Summary and the Store it is kept in.
	// (Counting itself is package tokens.)
	"doc.go": 0, "errors.go": 0, "options.go": 0, "tokens.go": 0, "summary.go": 0,
	// 1. formats: what a message is, its text, its format, its IDs.
	"message.go": 1, "message_text.go": 1, "message_openai.go": 1, "message_anthropic.go": 1,
	"media.go": 1, "pairs.go": 1, "ids.go": 1,
	// 2. reconcile: how the request relates to the summary in force.
	"reconcile.go": 2,
	// 3. plan: pinned, window, current turn, cleared tool outputs, folds
	// of a long turn, what to summarize.
	"window.go": 3, "clearing.go": 3, "turn.go": 3,
	// 4. budget: the ceiling.
	"budget.go": 4,
	// 5. summarize: chunks, the prompt, the check, flights, leases.
	"summarize.go": 5, "chunk.go": 5, "prompt.go": 5, "check.go": 5, "repair.go": 5, "flight.go": 5, "lease.go": 5,
	"backoff.go": 5, "branches.go": 5,
	// 6. save: the Store.
	"store.go": 6,
	// 7. after a request: recall, calibration from reported usage.
	"recall.go": 7, "recall_index.go": 7, "recall_terms.go": 7, "recall_stop.go": 7, "recall_tool.go": 7,
	"calibrate.go": 7,
	// 8. the orchestrator: Compress and its Compressor, which call every
	// step in turn.
	"compressor.go": 8, "forget.go": 8,
}

// orchestrators call into every step.
var orchestrators = map[string]bool{"Compressor.Compress": true}

// maxFileLines bounds a file of the package.
const maxFileLines = 800

func TestLayers(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var asts []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if _, ok := layers[f]; !ok {
			t.Errorf("%s has no step in layers: give it one", f)
			continue
		}
		a, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		asts = append(asts, a)
		if n := fset.Position(a.End()).Line; n > maxFileLines {
			t.Errorf("%s has %d lines, over %d: split it by concept", f, n, maxFileLines)
		}
	}
	// Type-check the package alone: imported packages are empty, so what
	// involves them stays untyped (the errors are expected), while every
	// call of a function or method of this package resolves.
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check("github.com/recapgo/recap", fset, asts, info)
	var bad []string
	for _, a := range asts {
		file := filepath.Base(fset.Position(a.Pos()).Filename)
		for _, d := range a.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			caller := fd.Name.Name
			if r := recvType(fd); r != "" {
				caller = r + "." + caller
			}
			if orchestrators[caller] {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var id *ast.Ident
				switch f := call.Fun.(type) {
				case *ast.Ident:
					id = f
				case *ast.SelectorExpr:
					id = f.Sel
				case *ast.IndexExpr: // a generic function
					if i, ok := f.X.(*ast.Ident); ok {
						id = i
					}
				}
				if id == nil {
					return true
				}
				fn, ok := info.Uses[id].(*types.Func)
				if !ok || fn.Pkg() != pkg {
					return true
				}
				if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
					if named := recvNamed(sig.Recv().Type()); named == "Message" || named == "Part" {
						return true
					}
				}
				callee := filepath.Base(fset.Position(fn.Pos()).Filename)
				if step := layers[callee]; step > layers[file] {
					bad = append(bad, fmt.Sprintf("%s: %s (%s, step %d) calls %s (%s, step %d)",
						fset.Position(call.Pos()), caller, file, layers[file], fn.Name(), callee, step))
				}
				return true
			})
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// emptyImporter gives every import as an empty package.
type emptyImporter struct{}

func (emptyImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndex(path, "/")+1:]
	if i := strings.IndexAny(name, ".-"); i > 0 {
		name = name[:i]
	}
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}

// recvNamed returns the name of a receiver's type, without a pointer.
func recvNamed(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// recvType returns the type of fd's receiver, without a pointer, or "".
func recvType(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if i, ok := t.(*ast.Ident); ok {
		return i.Name
	}
	return ""
}

// maxComplexity bounds the cyclomatic complexity of a function of the
// package, as gocyclo counts it: a reader holds it in one screen.
const maxComplexity = 30

func TestComplexity(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		a, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if ast.IsGenerated(a) {
			continue
		}
		for _, d := range a.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := complexity(fd); n > maxComplexity {
				t.Errorf("%s: %s has a cyclomatic complexity of %d, over %d: split it", fset.Position(fd.Pos()), fd.Name.Name, n, maxComplexity)
			}
		}
	}
}

// complexity is gocyclo's count: 1, plus each if, for, range, case (but
// default) and && or ||, closures included.
func complexity(fd *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fd.Body, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}
