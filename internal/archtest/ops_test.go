package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// opMethods returns, for every type declared in files (one package), the
// Gorgonia op methods among Do, SymDiff and WriteHash that the type
// declares itself (promoted methods of an embedded type are not its own).
func opMethods(files []*ast.File) map[string][]string {
	out := map[string][]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			switch name := fn.Name.Name; name {
			case "Do", "SymDiff", "WriteHash":
				typ := receiverType(fn.Recv.List[0].Type)
				if !slices.Contains(out[typ], name) {
					out[typ] = append(out[typ], name)
				}
			}
		}
	}
	return out
}

// receiverType returns the name of a method's receiver type: T for T,
// *T, T[E] and *T[E].
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// handWritten returns the types of files (one package) that are Gorgonia
// ops written by hand: a Do next to a SymDiff or a WriteHash.
func handWritten(files []*ast.File) []string {
	var ops []string
	for typ, ms := range opMethods(files) {
		if slices.Contains(ms, "Do") && (slices.Contains(ms, "SymDiff") || slices.Contains(ms, "WriteHash")) {
			ops = append(ops, typ)
		}
	}
	slices.Sort(ops)
	return ops
}

// TestOpsThroughGraphop: every Gorgonia op is built from internal/graphop
// (a graphop.Func, Diff or Map, or a type embedding one), so that the
// plumbing (input checks, kept buffers, hashes that spell out every
// parameter) is written once. A type outside graphop declaring Do and
// SymDiff or WriteHash is a hand-written op.
func TestOpsThroughGraphop(t *testing.T) {
	pkgs := sources(t, parser.SkipObjectResolution)
	if len(pkgs["internal/graphop"]) == 0 {
		t.Fatal("internal/graphop not found")
	}
	for pkg, files := range pkgs {
		if pkg == "internal/graphop" {
			continue
		}
		for _, typ := range handWritten(files) {
			t.Errorf("%s.%s is a Gorgonia op written by hand: build it from internal/graphop", pkg, typ)
		}
	}
}

// The check finds a hand-written op, by value or pointer, generic or not,
// and passes a type that embeds a graphop op or has a Do of another kind.
func TestHandWritten(t *testing.T) {
	const src = `package p

type op struct{}

func (o *op) Do(vals ...Value) (Value, error) { return nil, nil }
func (o *op) WriteHash(h hash.Hash)           {}

type gen[T any] struct{}

func (o gen[T]) Do(vals ...Value) (Value, error)             { return nil, nil }
func (o gen[T]) SymDiff(in Nodes, out, grad *Node) (Nodes, error) { return nil, nil }

type embeds struct{ graphop.Map }

type task struct{}

func (t *task) Do() error { return nil }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := handWritten([]*ast.File{f}), []string{"gen", "op"}; !slices.Equal(got, want) {
		t.Errorf("hand-written ops %v, want %v", got, want)
	}
}

// moduleRoot returns the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	return root
}
