// go_calls lists the calls of a Go source tree as the type checker resolves them, the oracle
// for codemap's Go call graph: every call expression of the packages' files (test files
// included, build constraints of the host applied) whose callee is a function or method
// declared in the tree. One JSON object per line, {"file","line","caller","callee"}, where a
// symbol is the declaring file's directory, a dot and the declaration chain (dir.Func,
// dir.Type.Method, dir.Iface.Method), a caller is the enclosing function declaration (calls in
// func literals are their function's; package-level initializers are the package, dir) and
// line is the line of the callee's name. {"checked": file} lines list the files type-checked.
//
// Repository packages are imported from source, by the module path of the tree's go.mod files;
// the standard library through go/importer's "source" importer; other imports fail and what
// depends on them stays untyped (go/types goes on past errors).
//
//	go run ./bench/oracle/go_calls ROOT > calls.jsonl
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type rec struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Caller string `json:"caller"`
	Callee string `json:"callee"`
}

type oracle struct {
	root    string
	fset    *token.FileSet
	std     types.Importer
	modules map[string]string // module path → directory (relative, "." for the root)
	done    map[string]*types.Package
	out     *json.Encoder
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go_calls ROOT")
		os.Exit(2)
	}
	root, _ := filepath.Abs(os.Args[1])
	fset := token.NewFileSet()
	o := &oracle{root: root, fset: fset, std: importer.ForCompiler(fset, "source", nil),
		modules: map[string]string{}, done: map[string]*types.Package{}, out: json.NewEncoder(os.Stdout)}
	var dirs []string
	filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || !info.IsDir() {
			if err == nil && info.Name() == "go.mod" {
				o.readModule(path)
			}
			return nil
		}
		name := info.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		dirs = append(dirs, path)
		return nil
	})
	sort.Strings(dirs)
	for _, d := range dirs {
		o.checkDir(d)
	}
}

func (o *oracle) readModule(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "module ") {
			m := strings.Trim(strings.TrimSpace(strings.SplitN(l[7:], "//", 2)[0]), "\"")
			rel, _ := filepath.Rel(o.root, filepath.Dir(path))
			o.modules[m] = filepath.ToSlash(rel)
		}
	}
}

// dirOf maps an import path of the tree to its directory.
func (o *oracle) dirOf(path string) (string, bool) {
	best := ""
	for m := range o.modules {
		if (path == m || strings.HasPrefix(path, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return "", false
	}
	return filepath.Join(o.root, o.modules[best], strings.TrimPrefix(path[len(best):], "/")), true
}

// Import type-checks a package of the tree (without its tests) or asks the source importer.
func (o *oracle) Import(path string) (*types.Package, error) {
	if p, ok := o.done[path]; ok {
		if p == nil {
			return nil, fmt.Errorf("import cycle or failure: %s", path)
		}
		return p, nil
	}
	dir, ok := o.dirOf(path)
	if !ok {
		return o.std.Import(path)
	}
	o.done[path] = nil
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	pkg, _, _ := o.check(path, dir, bp.GoFiles)
	o.done[path] = pkg
	return pkg, nil
}

func (o *oracle) check(path, dir string, names []string) (*types.Package, *types.Info, []*ast.File) {
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(o.fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err == nil {
			files = append(files, f)
		}
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: o, Error: func(error) {}}
	pkg, _ := conf.Check(path, o.fset, files, info)
	return pkg, info, files
}

// checkDir records the calls of a directory's package with its tests, then of its external
// test package.
func (o *oracle) checkDir(dir string) {
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		return
	}
	rel, _ := filepath.Rel(o.root, dir)
	path := "codemap.oracle/" + filepath.ToSlash(rel)
	for m, d := range o.modules {
		if d == "." || rel == d || strings.HasPrefix(rel, d+"/") {
			r := strings.TrimPrefix(strings.TrimPrefix(filepath.ToSlash(rel), d), "/")
			if d == "." {
				r = strings.TrimPrefix(filepath.ToSlash(rel), ".")
				r = strings.TrimPrefix(r, "/")
			}
			path = strings.TrimSuffix(m+"/"+r, "/")
		}
	}
	if len(bp.GoFiles)+len(bp.TestGoFiles) > 0 {
		_, info, files := o.check(path, dir, append(append([]string{}, bp.GoFiles...), bp.TestGoFiles...))
		o.record(info, files)
	}
	if len(bp.XTestGoFiles) > 0 {
		_, info, files := o.check(path+"_test", dir, bp.XTestGoFiles)
		o.record(info, files)
	}
}

func (o *oracle) rel(pos token.Pos) (string, bool) {
	p := o.fset.Position(pos).Filename
	r, err := filepath.Rel(o.root, p)
	if err != nil || strings.HasPrefix(r, "..") {
		return "", false
	}
	return filepath.ToSlash(r), true
}

func (o *oracle) record(info *types.Info, files []*ast.File) {
	for _, f := range files {
		file, _ := o.rel(f.Pos())
		o.out.Encode(map[string]string{"checked": file})
		dir := filepath.ToSlash(filepath.Dir(file))
		for _, d := range f.Decls {
			caller := dir
			if fd, ok := d.(*ast.FuncDecl); ok {
				caller = dir + "." + fd.Name.Name
				if fd.Recv != nil && len(fd.Recv.List) > 0 {
					caller = dir + "." + recvType(fd.Recv.List[0].Type) + "." + fd.Name.Name
				}
			}
			ast.Inspect(d, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				id := calleeIdent(call.Fun)
				if id == nil {
					return true
				}
				fn, ok := info.Uses[id].(*types.Func)
				if !ok {
					return true
				}
				if callee, ok := o.symbol(fn.Origin()); ok {
					o.out.Encode(rec{file, o.fset.Position(id.Pos()).Line, caller, callee})
				}
				return true
			})
		}
	}
}

// symbol names a function or method declared in the tree as codemap does.
func (o *oracle) symbol(fn *types.Func) (string, bool) {
	file, ok := o.rel(fn.Pos())
	if !ok || !fn.Pos().IsValid() {
		return "", false
	}
	dir := filepath.ToSlash(filepath.Dir(file))
	sig := fn.Type().(*types.Signature)
	if r := sig.Recv(); r != nil {
		t := r.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			return dir + "." + n.Obj().Name() + "." + fn.Name(), true
		}
		return "", false // a method of an unnamed interface type
	}
	return dir + "." + fn.Name(), true
}

func calleeIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			return x.Sel
		default:
			return nil
		}
	}
}

func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvType(t.X)
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	case *ast.ParenExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
