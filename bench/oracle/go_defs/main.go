// go_defs lists the declarations of a Go source tree with go/parser, the oracle for codemap's
// Go symbols: one JSON object per line, {"file","symbol","line","end_line"}, where symbol is the
// file's directory, a dot and the declaration chain (dir.Func, dir.Type.Method, dir.Type.Field,
// dir.Iface.Method, dir.Const) and line is the line of its name.
//
//	go run ./bench/oracle/go_defs ROOT > oracle.jsonl
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

type rec struct {
	File    string `json:"file"`
	Symbol  string `json:"symbol"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
}

func main() {
	root := os.Args[1]
	out := json.NewEncoder(os.Stdout)
	filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if info.IsDir() && strings.HasPrefix(info.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if info.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			fmt.Fprintf(os.Stderr, "skip %s: %v\n", rel, err)
			return nil
		}
		emit := func(sym string, name ast.Node, whole ast.Node) {
			out.Encode(rec{rel, dir + "." + sym, fset.Position(name.Pos()).Line, fset.Position(whole.End()).Line})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) > 0 {
					name = recvType(d.Recv.List[0].Type) + "." + name
				}
				emit(name, d.Name, d)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						emit(s.Name.Name, s.Name, s)
						members(s, emit)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name != "_" {
								emit(n.Name, n, s)
							}
						}
					}
				}
			}
		}
		return nil
	})
}

func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvType(t.X)
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func members(s *ast.TypeSpec, emit func(string, ast.Node, ast.Node)) {
	switch t := s.Type.(type) {
	case *ast.StructType:
		for _, f := range t.Fields.List {
			for _, n := range f.Names {
				emit(s.Name.Name+"."+n.Name, n, f)
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			if _, ok := m.Type.(*ast.FuncType); ok {
				for _, n := range m.Names {
					emit(s.Name.Name+"."+n.Name, n, m)
				}
			}
		}
	}
}
