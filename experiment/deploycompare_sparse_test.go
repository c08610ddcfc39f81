package experiment_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/sparsity"
)

// The sparsity rows come after the dense ones, each a compact export of
// the masked generator (its size is that file's, smaller than the dense
// row's), with PSNR against the dense FP32 images.
func TestDeployCompareSparsity(t *testing.T) {
	c := trainedCGAN(t)
	ps, err := experiment.ParsePatterns("2:4, 1:4")
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := experiment.DeployCompare(context.Background(), c, experiment.DeployOptions{
		Dataset: writeToyIDX(t, 24, 8), N: 12, SearchN: 6, Bits: []int{4}, Sparsity: ps})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range cmp.Rows[9:] {
		labels = append(labels, r.Label)
	}
	want := []string{"FP32 2:4", "P8 2:4", "P8+ 2:4", "P4 2:4", "P4+ 2:4", "FP32 1:4", "P8 1:4", "P8+ 1:4", "P4 1:4", "P4+ 1:4"}
	if !slices.Equal(labels, want) {
		t.Fatalf("sparse rows %q, want %q", labels, want)
	}
	dense := map[string]experiment.DeployRow{}
	for _, r := range cmp.Rows[:9] {
		dense[r.Label] = r
	}
	for _, r := range cmp.Rows[9:] {
		m, err := deploy.Export(c, r.Policy, deploy.Sparsify(r.Sparsity, nil))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := m.Bytes()
		d := dense[r.Label[:len(r.Label)-4]]
		if len(b) != r.Bytes || r.Bytes >= d.Bytes {
			t.Errorf("%s: %d bytes, its export %d, the dense row %d", r.Label, r.Bytes, len(b), d.Bytes)
		}
		if !(r.FID >= 0) || math.IsInf(r.PSNR, 0) || !(r.PSNR > 0) {
			t.Errorf("%s: FID %g, PSNR %g", r.Label, r.FID, r.PSNR)
		}
		if (r.WeightBias != nil) != (r.Label[2] == '+') || r.WeightBias != nil && !slices.Equal(r.WeightBias, d.WeightBias) {
			t.Errorf("%s: biases %v, the dense row's %v", r.Label, r.WeightBias, d.WeightBias)
		}
	}
	if _, err := cmp.WriteFiles(t.TempDir()); err != nil {
		t.Error(err)
	}
	if !math.IsInf(cmp.Rows[0].PSNR, 1) {
		t.Errorf("dense FP32 PSNR %g, want +Inf", cmp.Rows[0].PSNR)
	}
}

func TestDeploySparsityOptions(t *testing.T) {
	for _, s := range []string{"4:4", "0:4", "2:32", "dense", "2:4,x"} {
		ps, err := experiment.ParsePatterns(s)
		if err == nil {
			err = experiment.DeployOptions{Sparsity: ps}.Check()
			var oe *experiment.DeployOptionError
			if !errors.As(err, &oe) || oe.Option != "Sparsity" {
				t.Errorf("%q: %v, want a Sparsity option error", s, err)
			}
		}
	}
	if ps, err := experiment.ParsePatterns(""); err != nil || ps != nil {
		t.Errorf(`"": %v, %v`, ps, err)
	}
	if err := (experiment.DeployOptions{Sparsity: []sparsity.Pattern{{N: 1, M: 16}}}).Check(); err != nil {
		t.Errorf("1:16: %v", err)
	}
}
