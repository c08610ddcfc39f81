package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
)

// Issue 15: a checkpoint whose metadata claims features=2e6, classes=1e9,
// z_dim=3e9 or height=1e6 made sample, scale histogram and train --resume
// die out of memory or panic. Even with a valid checksum (anyone can
// compute one), each now fails with one line and a non-zero exit.
func TestHostileCheckpointConfig(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	out := filepath.Join(dir, "run")
	mustRun(t, trainArgs(data, out, "--policy", "fp32")...)
	good, err := ckpt.Load(filepath.Join(out, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range [][2]string{
		{`"features":2`, `"features":2000000`},
		{`"classes":10`, `"classes":1000000000`},
		{`"z_dim":100`, `"z_dim":3000000000`},
		{`"height":28`, `"height":1000000`},
	} {
		c := ckpt.New()
		c.Tensors = good.Tensors
		edited := false
		for k, v := range good.Meta {
			if strings.Contains(v, `"arch"`) && strings.Contains(v, edit[0]) {
				v, edited = strings.Replace(v, edit[0], edit[1], 1), true
			}
			c.Meta[k] = v
		}
		if !edited {
			t.Fatalf("no model configuration with %s in the checkpoint's metadata", edit[0])
		}
		bad := filepath.Join(dir, "bad", "checkpoint.safetensors")
		os.MkdirAll(filepath.Dir(bad), 0o755)
		if err := ckpt.Save(bad, c); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"sample", "--checkpoint", bad, "--out", filepath.Join(dir, "s.png")},
			{"scale", "histogram", "--checkpoint", bad},
			{"train", "--resume", "--dataset", data, "--policy", "fp32", "--steps", "3", "--out", filepath.Dir(bad)},
		} {
			_, stderr, code := runCLI(t, "", args...)
			if code == 0 || !strings.Contains(stderr, "exceed") && !strings.Contains(stderr, "outside") {
				t.Errorf("%s, %s: exit %d, stderr %q", edit[1], args[0], code, stderr)
			}
			oneLine(t, stderr)
		}
	}
}
