package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// legacyMove matches a legacy-SSE move into or out of an XMM register
// (MOVD, MOVQ, MOVL with an X operand). Between the 256- and 512-bit
// kernels' VEX and EVEX instructions such a move costs an SSE/AVX state
// transition: on the project's VMs about half a microsecond to 1.5 µs a
// call, which halved the chunked AVX2 posit kernel's rate and made a
// 96-element quire row take 1.8 µs instead of 40–150 ns (issue 30). The
// VEX forms VMOVD and VMOVQ do the same without it.
var legacyMove = regexp.MustCompile(`^\s*(MOVD|MOVQ|MOVL)\s+[^/]*\bX([0-9]|1[0-5])\b`)

// TestNoLegacySSEMoves: the amd64 kernels use VEX moves only.
func TestNoLegacySSEMoves(t *testing.T) {
	root := moduleRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_amd64.s") {
			return nil
		}
		files++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if legacyMove.MatchString(line) {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s:%d: legacy-SSE move %q: use VMOVD/VMOVQ", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no _amd64.s file found under the module root")
	}
}

// The pattern catches what it is for and leaves the VEX forms alone.
func TestLegacyMovePattern(t *testing.T) {
	for line, want := range map[string]bool{
		"\tMOVQ AX, X0":             true,
		"\tMOVD R8, X15":            true,
		"\tMOVQ X3, AX":             true,
		"\tVMOVQ AX, X0":            false,
		"\tVMOVD R8, X15":           false,
		"\tMOVQ AX, BX":             false,
		"\tMOVQ dst+0(FP), DI":      false,
		"\tMOVQ 8(SI), R9 // X1 is": false,
	} {
		if got := legacyMove.MatchString(line); got != want {
			t.Errorf("%q: match %v, want %v", line, got, want)
		}
	}
}
