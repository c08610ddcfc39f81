package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/positgan/positgan/"

// floors gives each package (or package tree, by prefix) the floor it sits
// on; a package may import only packages on lower floors, or the shared
// utilities of floor 0. The order is docs/architecture.md's.
var floors = []struct {
	prefix string
	floor  int
}{
	// Floor 0: utilities with no knowledge of formats or networks.
	{"internal/atomicfile", 0}, {"internal/numfmt", 0}, {"internal/runlock", 0}, {"internal/allocs", 0},
	{"internal/pyref", 0}, {"internal/gradcheck", 0}, {"internal/archtest", 0}, {"internal/tomlsafe", 0}, {"internal/regfile", 0}, {"internal/testimages", 0}, {"internal/graphexec", 0}, {"internal/graphop", 0},
	{"imageio", 0}, {"datasets", 0}, {"ckpt", 0},
	{"quant", 1},                              // number formats, their kernels and arithmetic
	{"sparsity", 1},                           // N:M structured sparsity masks: patterns, scorers
	{"internal/gemm", 2}, {"internal/vec", 2}, // the CPU kernels
	{"formatinfo", 2},                            // reports and plots of number formats
	{"compute", 3},                               // the backend seam over the kernels
	{"nn", 4}, {"tanhapprox", 4}, {"scaling", 4}, // layers and the quantizer op; approximations; bias estimation
	{"eval", 4}, // metrics on plain images and features, behind a registry
	{"nn/qgraph", 5},
	{"policy", 6},
	{"gan", 7},
	{"eval/featnet", 8}, // the feature networks, trained by gan, that models' evaluations use
	{"models", 9},
	{"deploy", 10},
	{"experiment", 11},
	{"examples", 12},
	{"cmd", 13},
}

// floorOf returns the floor of a package path relative to the module, by
// its longest matching prefix.
func floorOf(pkg string) (int, bool) {
	best, floor := -1, 0
	for _, f := range floors {
		if (pkg == f.prefix || strings.HasPrefix(pkg, f.prefix+"/")) && len(f.prefix) > best {
			best, floor = len(f.prefix), f.floor
		}
	}
	return floor, best >= 0
}

// imports returns, for every package directory of the module, the module
// packages its non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for pkg, files := range sources(t, parser.ImportsOnly) {
		out[pkg] = nil
		for _, f := range files {
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], dep) {
					out[pkg] = append(out[pkg], dep)
				}
			}
		}
	}
	return out
}

// sources parses the non-test Go files of every package of the module
// with mode, by package directory relative to the module root.
func sources(t *testing.T, mode parser.Mode) map[string][]*ast.File {
	t.Helper()
	root := moduleRoot(t)
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "notebooks") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		pkgs[pkg] = append(pkgs[pkg], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestFloors: no import runs back up (or sideways) the floors, and every
// package has a floor.
func TestFloors(t *testing.T) {
	for pkg, deps := range imports(t) {
		f, ok := floorOf(pkg)
		if !ok {
			t.Errorf("package %s has no floor: add it to floors", pkg)
			continue
		}
		for _, dep := range deps {
			g, ok := floorOf(dep)
			switch {
			case !ok:
				t.Errorf("%s imports %s, which has no floor", pkg, dep)
			case g != 0 && g >= f:
				t.Errorf("%s (floor %d) imports %s (floor %d): an import must run down", pkg, f, dep, g)
			}
		}
	}
}

// apart lists imports the floors allow that would still put a package
// outside its room: deploy is the file format, export and the runner, and
// measures nothing (experiment compares deployments).
var apart = [][2]string{{"deploy", "eval"}, {"deploy", "eval/featnet"}}

// TestApart: the pairs of apart stay apart.
func TestApart(t *testing.T) {
	all := imports(t)
	for _, pair := range apart {
		if slices.Contains(all[pair[0]], pair[1]) {
			t.Errorf("%s imports %s", pair[0], pair[1])
		}
	}
}

// TestKernelsBehindCompute: above the compute seam nothing calls a kernel
// package directly, so a backend installed with compute.Use sees every
// GEMM, im2col, rounding and element-wise kernel the layers run.
func TestKernelsBehindCompute(t *testing.T) {
	for pkg, deps := range imports(t) {
		if f, _ := floorOf(pkg); f <= 3 {
			continue
		}
		for _, dep := range deps {
			if dep == "internal/gemm" || dep == "internal/vec" {
				t.Errorf("%s imports %s: go through package compute", pkg, dep)
			}
		}
	}
}

// TestQuantImportsNothing: the formats stand alone.
func TestQuantImportsNothing(t *testing.T) {
	for pkg, deps := range imports(t) {
		if pkg == "quant" || strings.HasPrefix(pkg, "quant/") {
			for _, dep := range deps {
				if dep != "quant" && !strings.HasPrefix(dep, "quant/") {
					t.Errorf("%s imports %s: quant imports nothing of the project", pkg, dep)
				}
			}
		}
	}
}

// modelNames matches a model named in code: its registry constant or
// parameter group (models.CycleGAN, models.GroupGAB ...).
var modelNames = regexp.MustCompile(`\bmodels\.(CGAN|DCGAN|CycleGAN|ESRGAN|Group[A-Z]\w*)\b`)

// TestGenericPackagesNameNoModel: experiment and gan reach models through
// the registry (models.Lookup and the Spec), never by name, so that a new
// model is one file.
func TestGenericPackagesNameNoModel(t *testing.T) {
	for _, dir := range []string{"../../experiment", "../../gan"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if m := modelNames.FindString(line); m != "" && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s:%d names %s", filepath.ToSlash(strings.TrimPrefix(file, "../../")), i+1, m)
				}
			}
		}
	}
}
