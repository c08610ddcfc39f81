package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 29 item 11: outputs are checked before any work is done or
// anything is written: a command never writes over its own input, never
// trains for minutes to fail on its output path, takes only file names of
// the kind it writes, and leaves no folder or printout behind a refused
// flag.
func TestOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "photos", "a.png")
	os.MkdirAll(filepath.Dir(a), 0o755)
	writePNG(t, a, 16, 16, false)
	orig, _ := os.ReadFile(a)
	link := filepath.Join(dir, "link.png")
	os.Symlink(a, link)
	outDir := filepath.Join(dir, "lenet.safetensors")
	os.Mkdir(outDir, 0o755)

	data := writeIDX(t, dir, 16)
	dc, cg := filepath.Join(dir, "dcgan"), filepath.Join(dir, "cgan")
	mustRun(t, "train", "--model", "dcgan", "--dataset", data, "--steps", "1", "--batch", "4", "--features", "2", "--policy", "fp32", "--sample-every", "0", "--out", dc)
	mustRun(t, "train", "--model", "cgan", "--dataset", data, "--steps", "1", "--batch", "4", "--features", "2", "--policy", "fp32", "--sample-every", "0", "--out", cg)
	dcc, cgc := filepath.Join(dc, "checkpoint.safetensors"), filepath.Join(cg, "checkpoint.safetensors")
	hex := filepath.Join(dir, "hex")
	plotDir := filepath.Join(dir, "plots", "hist.png")
	os.MkdirAll(plotDir, 0o755)

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"downscale", "--scale", "4", a, a}, 2, "are the same: the originals would be overwritten"},
		{[]string{"downscale", "--scale", "4", a, link}, 2, "are the same"},
		{[]string{"downscale", "--scale", "4", filepath.Dir(a), filepath.Dir(a) + "/."}, 2, "are the same"},
		{[]string{"lenet", "train", "--out", outDir}, 2, "is a folder; want a file name"},
		{[]string{"lenet", "train", "--out", filepath.Join(dir, "x.txt")}, 2, "--out " + filepath.Join(dir, "x.txt") + ": want a .safetensors file name"},
		{[]string{"export", "--checkpoint", dcc, "--out", filepath.Join(dir, "g.png")}, 2, "want a .pgmodel file name"},
		{[]string{"upscale", "--checkpoint", dcc, "--out", filepath.Join(dir, "sr"), "--compare", filepath.Join(dir, "crops.txt"), "--in", a}, 2, "--compare " + filepath.Join(dir, "crops.txt") + ": want a .png file name"},
		{[]string{"export", "--checkpoint", dcc, "--out", filepath.Join(dir, "g.pgmodel"), "--class", "2"}, 2, "--class 2: the model has no classes"},
		{[]string{"export", "--checkpoint", cgc, "--out", filepath.Join(dir, "c.pgmodel"), "--class", "12", "--hex", hex}, 2, "--class 12: the model has 10 classes"},
		{[]string{"format", "info", "posit(8,1)", "--plot", plotDir}, 2, "is a folder"},
		{[]string{"format", "info", "posit(8,1)", "--plot", filepath.Join(dir, "h.txt")}, 2, "want a .png file name"},
		{[]string{"format", "quantize", "posit(8,1)", "--scale-exp", "1000"}, 2, "--scale-exp 1000: posit(8,1)'s values times 2^-K leave float32's range; want K from -115 to 137"},
	} {
		out, stderr, code := runCLI(t, "1\n", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
		oneLine(t, stderr)
		if out != "" {
			t.Errorf("%q printed before failing:\n%s", tc.args, out)
		}
	}
	if b, _ := os.ReadFile(a); string(b) != string(orig) {
		t.Errorf("downscale overwrote its input")
	}
	for _, p := range []string{hex, filepath.Join(dir, "g.png"), filepath.Join(dir, "g.pgmodel"), filepath.Join(dir, "c.pgmodel"), filepath.Join(dir, "sr")} {
		if exists(p) {
			t.Errorf("a refused command left %s behind", p)
		}
	}
}
