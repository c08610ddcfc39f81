package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 29 item 8: flags that would exhaust memory give a one-line usage
// error before anything large is allocated.
func TestFlagsBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 5000) // 5000 images of 1024×1024: 4.9 GiB
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval", "fid", filepath.Join(dir, "g.safetensors"), "mnist", "--n", "100000000"}, 2,
			"--n 100000000: a checkpoint generates at most 50000 images"},
		{[]string{"train", "--model", "dcgan", "--dataset", data, "--image-size", "1024", "--features", "64", "--steps", "1",
			"--out", filepath.Join(dir, "big")}, 1, "datasets.MaxSetBytes"},
		{[]string{"compare", "--dataset", data, "--policies", "fp32", "--seeds", "100000000", "--features", "lenet-mnist", "--out", filepath.Join(dir, "cmp")}, 2,
			"a sweep has at most 100000 runs"},
	} {
		out, stderr, code := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q\nstdout: %s", tc.args, code, stderr, tc.code, tc.want, out)
		}
		oneLine(t, stderr)
	}
}
