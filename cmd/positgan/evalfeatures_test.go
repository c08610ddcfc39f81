package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalStatsRecordsFeatures: eval stats records the feature network in
// the .npz, eval fid names it for two statistics files of the same
// network and warns when two files were made by different ones.
func TestEvalStatsRecordsFeatures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "imgs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		writePNG(t, filepath.Join(dir, string(rune('a'+k))+".png"), 28, 28, true)
	}
	a, b := filepath.Join(t.TempDir(), "a.npz"), filepath.Join(t.TempDir(), "b.npz")
	for _, c := range [][]string{{"--out", a}, {"--out", b, "--features", "lenet-fashion"}} {
		if _, stderr, code := runCLI(t, "", append([]string{"eval", "stats", dir}, c...)...); code != 0 {
			t.Fatalf("eval stats %v: exit %d: %s", c, code, stderr)
		}
	}
	out, stderr, code := runCLI(t, "", "eval", "fid", a, a)
	if code != 0 || !strings.HasSuffix(out, "\tFID (LeNet-MNIST)\n") || stderr != "" {
		t.Errorf("same network: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, stderr, code = runCLI(t, "", "eval", "fid", a, b)
	if code != 0 || !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, "LeNet-Fashion") {
		t.Errorf("different networks: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}
