package archtest

import (
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoArm64Fusion: same seed, same bits on every machine. The Go
// compiler fuses x*y+z into one FMADD on arm64 (also ppc64, s390x,
// riscv64) but never on amd64, so an innocent multiply-add in Go code
// gives arm64 other bits than amd64. An explicit conversion,
// float64(x*y) + z, rounds the product and stops the fusion. The test
// builds the command for linux/arm64 (NEON and portable), and eval's and
// featnet's test binaries, and fails on every scalar fused multiply-add
// compiled from a Go line of this module, unless the line asks for one
// with math.FMA (which amd64 computes fused too). Assembly kernels are
// exempt: their fused instructions are meant. The metrics are held to
// this too (eval's TestArm64Bits compares their figures with amd64's).
func TestNoArm64Fusion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command for arm64")
	}
	root := moduleRoot(t)
	var sites []fusedSite
	// The portable build (tag purego) compiles other generic kernels.
	// The linker keeps only what the command reaches, so eval's and
	// featnet's test binaries add the metrics the command does not call
	// (lines of _test.go files are skipped below: references may fuse).
	builds := []struct{ tags, pkg string }{
		{"", "./cmd/positgan"},
		{"purego", "./cmd/positgan"},
		{"", "./eval"},
		{"", "./eval/featnet"},
	}
	for _, b := range builds {
		bin := filepath.Join(t.TempDir(), "arm64.bin")
		verb := []string{"build"}
		if b.pkg != "./cmd/positgan" {
			verb = []string{"test", "-c"}
		}
		cmd := exec.Command("go", append(verb, "-tags="+b.tags, "-o", bin, b.pkg)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s for arm64: %v\n%s", strings.Join(cmd.Args, " "), err, out)
		}
		sites = append(sites, fusedSites(t, bin)...)
	}
	seen := map[fusedSite]bool{}
	lines := map[string][]string{}
	explicit := 0
	for _, s := range sites {
		rel, err := filepath.Rel(root, s.file)
		if err != nil || strings.HasPrefix(rel, "..") || !strings.HasSuffix(rel, ".go") ||
			strings.HasSuffix(rel, "_test.go") {
			continue
		}
		key := fusedSite{file: s.file, line: s.line}
		if seen[key] {
			continue
		}
		seen[key] = true
		src, ok := lines[s.file]
		if !ok {
			data, err := os.ReadFile(s.file)
			if err != nil {
				t.Fatal(err)
			}
			src = strings.Split(string(data), "\n")
			lines[s.file] = src
		}
		if s.line < 1 || s.line > len(src) {
			t.Errorf("%s:%d: fused multiply-add at %#x; line out of range", rel, s.line, s.pc)
			continue
		}
		if code := src[s.line-1]; strings.Contains(code, "math.FMA(") {
			explicit++
		} else {
			t.Errorf("%s:%d: arm64 fuses a multiply-add that amd64 rounds twice; round the product with an explicit conversion: %s",
				rel, s.line, strings.TrimSpace(code))
		}
	}
	// internal/gemm's and quant's math.FMA calls compile to FMADD: finding
	// none means the scan itself is broken.
	if explicit == 0 {
		t.Errorf("no explicit math.FMA found among %d fused instructions: the scan is broken", len(sites))
	}
}

type fusedSite struct {
	pc   uint64
	file string
	line int
}

// fusedSites returns the source position of every scalar FMADD, FMSUB,
// FNMADD and FNMSUB in the text of the arm64 executable bin. These are
// the floating-point data-processing (3 source) instructions: the top
// byte of their encoding is 0x1f.
func fusedSites(t *testing.T, bin string) []fusedSite {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, pcln := f.Section(".text"), f.Section(".gopclntab")
	if text == nil || pcln == nil {
		t.Fatal("no .text or .gopclntab section")
	}
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := pcln.Data()
	if err != nil {
		t.Fatal(err)
	}
	table, err := gosym.NewTable(nil, gosym.NewLineTable(tab, text.Addr))
	if err != nil {
		t.Fatal(err)
	}
	var sites []fusedSite
	for _, fn := range table.Funcs {
		if fn.Entry < text.Addr {
			continue
		}
		for pc := fn.Entry; pc+4 <= fn.End && pc+4-text.Addr <= uint64(len(code)); pc += 4 {
			insn := binary.LittleEndian.Uint32(code[pc-text.Addr:])
			if insn>>24 != 0x1f {
				continue
			}
			file, line, _ := table.PCToLine(pc)
			sites = append(sites, fusedSite{pc, file, line})
		}
	}
	return sites
}
