package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormatPromote(t *testing.T) {
	out, stderr, code := runCLI(t, "", "format", "promote", "posit(8,1)", "fp8-e4m3", "--prefer", "bf16")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"promote(posit(8,1), fp8-e4m3) = bf16\n",
		"  posit(16,1)  lacks -0 of fp8-e4m3\n",          // posits have no -0
		"  fp8-e5m2     lacks 0.017578125 of fp8-e4m3\n", // 1.125·2^-6 needs 3 fraction bits below e5m2's normals
		"  fp32         holds every operand, and bf16, which is smaller\n",
		"  fp16         holds every operand; neither it nor bf16 holds the other",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Without --prefer the two bounds are an error that names them.
	out, stderr, code = runCLI(t, "", "format", "promote", "posit(8,1)", "fp8-e4m3")
	if code != 1 || !strings.Contains(stderr, "fp16, bf16") || !strings.Contains(out, "no result") {
		t.Errorf("ambiguous: exit %d, stderr %q, stdout %q", code, stderr, out)
	}
	// Three operands fold.
	out, _, code = runCLI(t, "", "format", "promote", "fp8-e5m2", "fp4-e2m1", "fp16")
	if code != 0 || !strings.HasPrefix(out, "promote(fp8-e5m2, fp4-e2m1, fp16) = fp16\n") {
		t.Errorf("exit %d, output %q", code, out)
	}
	// Block formats promote by their elements.
	out, _, code = runCLI(t, "", "format", "promote", "mxfp4-e2m1", "mxfp6-e2m3")
	if code != 0 || !strings.HasPrefix(out, "promote(mxfp4-e2m1, mxfp6-e2m3) = mxfp6-e2m3 ") {
		t.Errorf("exit %d, output %q", code, out)
	}
	if _, stderr, code := runCLI(t, "", "format", "promote", "mxfp4-e2m1", "posit(8,1,block=32)"); code != 1 || !strings.Contains(stderr, "do not promote") {
		t.Errorf("MX and block posit: exit %d, %q", code, stderr)
	}
	for _, args := range [][]string{{"fp16"}, {"fp16", "nonsense"}, {"fp16", "bf16", "--prefer", "nope"}} {
		_, stderr, code := runCLI(t, "", append([]string{"format", "promote"}, args...)...)
		if code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("promote %q: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}

func TestFormatLattice(t *testing.T) {
	dir := t.TempDir()
	pngPath, csvPath := filepath.Join(dir, "l.png"), filepath.Join(dir, "l.csv")
	_, stderr, code := runCLI(t, "", "format", "lattice", "posit(8,1),fp16,fp8-e4m3,fp32", "--out", pngPath, "--csv", csvPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := "lower,upper\n\"posit(8,1)\",fp16\nfp16,fp32\nfp8-e4m3,fp16\n"; string(b) != want {
		t.Errorf("CSV = %q, want %q", b, want)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("PNG: %v", err)
	}
	for _, args := range [][]string{{}, {"fp16"}, {"fp16,bf16", "--out", "x.svg"}, {"fp16,nope"}} {
		_, stderr, code := runCLI(t, "", append([]string{"format", "lattice"}, args...)...)
		if code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("lattice %q: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}
