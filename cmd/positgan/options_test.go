package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/models"
)

// --option: bad keys and values are usage errors naming the key (and, for
// an unknown key, the model's options); good ones reach the checkpoint's
// configuration; resuming with other options is refused.
func TestTrainOption(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // in stderr
	}{
		{[]string{"--model", "esrgan", "--option", "bloks=2"}, []string{`no option "bloks"`, "blocks, gan_weight, gc, pixel_weight, pretrain, scale"}},
		{[]string{"--model", "cgan", "--option", "blocks=2"}, []string{"cgan has no options"}},
		{[]string{"--model", "dcgan", "--option", "g_features=0"}, []string{"g_features 0"}},
		{[]string{"--model", "esrgan", "--option", "blocks"}, []string{"key=value"}},
		{[]string{"--model", "esrgan", "--option", "blocks=2", "--option", "blocks=3"}, []string{"blocks given twice"}},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"train", "--out", t.TempDir()}, tc.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", tc.args, code)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q does not say %q", tc.args, errOut, w)
			}
		}
		if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 && !strings.Contains(errOut, "Usage") {
			t.Errorf("%v: %d-line error %q", tc.args, n+1, errOut)
		}
	}

	dir := writePhotos(t, 24, 24)
	out := t.TempDir()
	args := func(scale, pretrain string, more ...string) []string {
		return append([]string{"train", "--model", "esrgan", "--dataset", dir, "--image-size", "16", "--features", "4",
			"--batch", "2", "--steps", "2", "--policy", "fp32", "--out", out, "--sample-every", "0", "--option", "scale=" + scale,
			"--option", "blocks=1", "--option", "gc=2", "--option", "pretrain=" + pretrain}, more...)
	}
	if _, errOut, code := runCLI(t, "", args("3", "1")...); code != 2 || !strings.Contains(errOut, "scale 3") {
		t.Errorf("scale=3: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", args("2", "1")...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	c, err := ckpt.Load(filepath.Join(out, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := models.ConfigOf(c)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Options["blocks"] != "1" || cfg.Options["pretrain"] != "1" || cfg.Features != 4 {
		t.Errorf("checkpoint config %v", cfg)
	}
	if _, errOut, code := runCLI(t, "", args("2", "5", "--resume", "--steps", "3")...); code != 2 || !strings.Contains(errOut, "pretrain=5 (checkpoint: 1)") {
		t.Errorf("resume with another pretrain: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", args("2", "1", "--resume", "--steps", "3")...); code != 0 {
		t.Errorf("resume with the same options: exit %d, %q", code, errOut)
	}
}
