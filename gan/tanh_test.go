package gan

import (
	"math"
	"testing"

	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
)

// A policy's output tanh (posit8+t) replaces G's last activation: the same
// generator makes images that differ from the exact tanh's by at most the
// corrected bitwise tanh's largest error over posit(16,0) (0.0385, see
// tanhapprox), and do differ.
func TestPolicyOutputTanh(t *testing.T) {
	cfg, err := models.DefaultConfig(models.CGAN, 1, 28, 28, 10)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 8
	withT, err := quant.ParsePolicy("posit8+t")
	if err != nil {
		t.Fatal(err)
	}
	exact := withT.Clone()
	if err := exact.Apply("tanh=exact"); err != nil {
		t.Fatal(err)
	}
	z, labels := FixedNoise(cfg, 3, 2, 4)
	images := func(p *quant.Policy) []float32 {
		m, err := models.New(withPolicyTanh(cfg, p), p.For, 1)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSampler(m, len(labels))
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float32, len(labels)*cfg.ImageSize())
		if err := s.Generate(out, z, labels); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := images(withT), images(exact)
	worst := 0.0
	for i := range a {
		worst = math.Max(worst, math.Abs(float64(a[i]-b[i])))
	}
	if worst == 0 || worst > 0.0385 {
		t.Errorf("largest difference between approximate and exact output tanh %g, want in (0, 0.0385]", worst)
	}
	bad := cfg
	bad.Tanh = "cubic"
	if _, err := models.New(bad, nil, 1); err == nil {
		t.Error("models.New accepted output activation \"cubic\"")
	}
}
