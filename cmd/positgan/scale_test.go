package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// scale histogram lists a residual sum the policy leaves unnamed as role
// sum, in the format its inputs were promoted to, which the checkpoint's
// recorded policy names too (models.TestTrainPromotesResidual checks that
// format against an enumeration of the value sets).
func TestScaleHistogramPromotedSum(t *testing.T) {
	cfg, err := models.DefaultConfig(models.ESRGAN, datasets.Shape{C: 3, H: 16, W: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options = map[string]string{"scale": "2", "blocks": "1", "gc": "2", "pretrain": "3"}
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pix := make([]uint8, 4*3*256)
	for i := range pix {
		pix[i] = uint8(i * 37 % 251)
	}
	ds, err := datasets.NewSet("ramp", datasets.Shape{C: 3, H: 16, W: 16}, pix, make([]int, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	pol := &policy.Policy{Name: "promote"}
	for _, s := range []string{"G/conv_first:out=posit(8,1)", "G/conv_body:out=fp8-e4m3", "prefer=bf16"} {
		if err := pol.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Policy: pol, Batch: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.TrainStep(); err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.safetensors")
	if err := ckpt.Save(path, c); err != nil {
		t.Fatal(err)
	}
	if rec := c.Meta[gan.MetaPolicy]; !strings.Contains(rec, `"G/add" = "bf16"`) {
		t.Errorf("recorded policy does not name G/add's bf16:\n%s", rec)
	}
	out, stderr, code := runCLI(t, "", "scale", "histogram", "--checkpoint", path, "--n", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^\s*G/add\s+sum\s+\d+\s.*\sbf16\s`).MatchString(out) {
		t.Errorf("no row G/add sum ... bf16:\n%s", out)
	}
}
