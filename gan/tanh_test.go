package gan_test

import (
	"math"
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// A policy's output tanh (posit8+t) replaces G's last activation: the same
// generator makes images that differ from the exact tanh's by at most the
// corrected bitwise tanh's largest error over posit(16,0) (0.0385, see
// tanhapprox), and do differ.
func TestPolicyOutputTanh(t *testing.T) {
	cfg, err := models.DefaultConfig(models.CGAN, imageShape(1, 28, 28), 2)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 8
	withT := mustPolicy(t, "posit8+t")
	exact := withT.Clone()
	if err := exact.Apply("tanh=exact"); err != nil {
		t.Fatal(err)
	}
	images := func(p *policy.Policy) []float32 {
		m := build(t, cfg, p, 1)
		sp := spec(t, m)
		z, labels := gan.FixedNoise(sp, 3, 2, 4)
		s, err := gan.NewSampler(m, len(labels), gan.SampleOptions{})
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
	if _, err := models.New(bad); err == nil {
		t.Error("models.New accepted output activation \"cubic\"")
	}
}
