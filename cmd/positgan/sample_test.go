package main

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample --class K --n N draws exactly N images of class K, --out-dir
// writes them as image files named by index and class (and no grid
// unless --out is given), and a class below -1 is a usage error
// (issue 14 item 11).
func TestSampleOutDirAndClass(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	cgan, dcgan := filepath.Join(dir, "cgan"), filepath.Join(dir, "dcgan")
	mustRun(t, "train", "--model", "cgan", "--dataset", data, "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--out", cgan)
	mustRun(t, "train", "--model", "dcgan", "--dataset", data, "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--out", dcgan)
	ck := func(run string) string { return filepath.Join(run, "checkpoint.safetensors") }

	grid := filepath.Join(dir, "g.png")
	out := mustRun(t, "sample", "--checkpoint", ck(cgan), "--class", "0", "--n", "40", "--out", grid)
	if !strings.Contains(out, "wrote "+grid+": 40 images (6x7 grid)") {
		t.Errorf("--class 0 --n 40: %s", out)
	}
	out = mustRun(t, "sample", "--checkpoint", ck(cgan), "--n", "25", "--out", grid)
	if !strings.Contains(out, "30 images (10x3 grid)") {
		t.Errorf("all classes, --n 25: %s", out)
	}

	files := filepath.Join(dir, "files")
	out = mustRun(t, "sample", "--checkpoint", ck(cgan), "--class", "3", "--n", "12", "--out-dir", files)
	if !strings.Contains(out, "wrote 12 image files in "+files+" from") || strings.Contains(out, "grid") {
		t.Errorf("--out-dir: %s", out)
	}
	checkFiles := func(dir string, name func(i int) string, n int) {
		t.Helper()
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != n {
			t.Fatalf("%s holds %d files, want %d", dir, len(es), n)
		}
		for i, e := range es {
			if e.Name() != name(i) {
				t.Fatalf("file %d is %s, want %s", i, e.Name(), name(i))
			}
		}
		f, err := os.Open(filepath.Join(dir, name(0)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg, err := png.DecodeConfig(f)
		if err != nil || cfg.Width != 28 || cfg.Height != 28 {
			t.Errorf("%s: %dx%d, %v; want a 28x28 PNG", name(0), cfg.Width, cfg.Height, err)
		}
	}
	checkFiles(files, func(i int) string { return fmt.Sprintf("%05d_class3.png", i) }, 12)
	csv := mustRun(t, "classify", files)
	if n := strings.Count(csv, "\n"); n != 13 {
		t.Errorf("classify of the files: %d lines, want 13", n)
	}

	both := filepath.Join(dir, "both")
	out = mustRun(t, "sample", "--checkpoint", ck(dcgan), "--n", "5", "--out-dir", both, "--out", grid)
	if !strings.Contains(out, "wrote 5 image files in "+both+" and "+grid+": 5 images (2x3 grid)") {
		t.Errorf("--out-dir and --out: %s", out)
	}
	checkFiles(both, func(i int) string { return fmt.Sprintf("%05d.png", i) }, 5)

	for _, args := range [][]string{
		{"--class", "-2"},
		{"--class", "10"},
		{"--out-dir", "/proc/x"},
	} {
		args = append([]string{"sample", "--checkpoint", ck(cgan)}, args...)
		_, stderr, code := runCLI(t, "", args...)
		if code == 0 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%q: exit %d, %q", args, code, stderr)
		}
		if args[3] == "--class" && code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if _, _, code := runCLI(t, "", "sample", "--checkpoint", ck(dcgan), "--class", "0"); code != 2 {
		t.Errorf("--class 0 of an unconditional model: exit %d, want 2", code)
	}
}
