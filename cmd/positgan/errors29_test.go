package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 29 item 12: errors say what is wrong with which value.
func TestErrorsSayWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	unpaired := filepath.Join(dir, "unpaired")
	writeUnpaired(t, unpaired)
	data := writeIDX(t, dir, 16)
	cg := filepath.Join(dir, "cgan")
	mustRun(t, "train", "--model", "cgan", "--dataset", data, "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--sample-every", "0", "--out", cg)
	csv := filepath.Join(dir, "x.csv")
	os.WriteFile(csv, []byte("a,b\n1,2\n"), 0o644)
	for _, tc := range []struct {
		args    []string
		code    int
		want    string
		notWant string
	}{
		{[]string{"train", "--model", "cyclegan", "--dataset", unpaired, "--image-size", "16", "--features", "4", "--steps", "1",
			"--option", "blocks=-1", "--out", filepath.Join(dir, "cy")}, 2, "--option blocks=-1: ", "image-size"},
		{[]string{"translate", "--checkpoint", filepath.Join(cg, "checkpoint.safetensors"), "--fid"}, 2,
			"holds a cgan model, which does not translate images", "feature network"},
		{[]string{"eval", "fid", csv, "mnist"}, 1, "x.csv: not an image set", "labels file"},
		{[]string{"train", "--dataset", data, "--log-every", "-3"}, 2, "--log-every -3: must not be negative", ""},
		{[]string{"train", "--dataset", data, "--channels", "2"}, 2, "--channels 2: want 1 or 3", ""},
		{[]string{"train", "--dataset", data, "--features", "-2"}, 2, "--features -2: must not be negative", ""},
		{[]string{"lenet", "train", "--batch", "0"}, 2, "--batch 0: must be positive", ""},
		{[]string{"lenet", "train", "--bias-every", "-1"}, 2, "--bias-every -1: must not be negative", ""},
		{[]string{"upscale", "--checkpoint", "c.safetensors"}, 2, "missing --out", ""},
		{[]string{"upscale", "--zoom", "17", "--checkpoint", "c.safetensors", "--out", "o"}, 2, "--zoom 17: want 1 to 16", ""},
		{[]string{"translate", "--checkpoint", "c.safetensors", "--in", "x"}, 2, "missing --out", ""},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || (tc.notWant != "" && strings.Contains(stderr, tc.notWant)) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q (without %q)", tc.args, code, stderr, tc.code, tc.want, tc.notWant)
		}
		oneLine(t, stderr)
	}
}

// Issue 29 item 12: eval's summary names every metric; counts of one are
// singular.
func TestEvalSummaryAndCounts(t *testing.T) {
	out, _, _ := runCLI(t, "", "--help")
	if !strings.Contains(out, "(class-accuracy, fid, kid, prdc, psnr, ssim, stats)") {
		t.Errorf("positgan --help: eval's summary does not name every metric:\n%s", out)
	}
	for n, want := range map[int]string{0: "0 epochs", 1: "1 epoch", 2: "2 epochs"} {
		if got := count(n, "epochs"); got != want {
			t.Errorf("count(%d, epochs) = %q, want %q", n, got, want)
		}
	}
	dir := t.TempDir()
	cg := filepath.Join(dir, "cgan")
	mustRun(t, "train", "--model", "cgan", "--dataset", writeIDX(t, dir, 16), "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--sample-every", "0", "--out", cg)
	if out := mustRun(t, "sample", "--checkpoint", filepath.Join(cg, "checkpoint.safetensors"), "--n", "1", "--class", "3", "--out", filepath.Join(dir, "one.png")); !strings.Contains(out, ": 1 image (1x1 grid)") {
		t.Errorf("sample --n 1: %s", out)
	}
}
