package gan_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/gan"
)

// Adam against a float64 transcription of Algorithm 1 of Kingma and Ba
// (bias-corrected moments, ε added to √v̂).
func TestAdamReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, steps = 50, 20
	a := gan.NewAdam([]int{n})
	p := make([]float32, n)
	ref := make([]float64, n)
	m, v := make([]float64, n), make([]float64, n)
	for i := range p {
		p[i] = float32(rng.NormFloat64())
		ref[i] = float64(p[i])
	}
	for s := 1; s <= steps; s++ {
		g := make([]float32, n)
		for i := range g {
			g[i] = float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10)))
		}
		a.Step([][]float32{p}, [][]float32{g}, 1)
		for i := range ref {
			gi := float64(g[i])
			m[i] = 0.5*m[i] + 0.5*gi
			v[i] = 0.999*v[i] + 0.001*gi*gi
			mh := m[i] / (1 - math.Pow(0.5, float64(s)))
			vh := v[i] / (1 - math.Pow(0.999, float64(s)))
			ref[i] -= 2e-4 * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	for i := range p {
		// float32 state: the parameters agree to float32 rounding of
		// values near 1 plus the accumulated rounding of 20 steps of 2e-4.
		if d := math.Abs(float64(p[i]) - ref[i]); d > 1e-6 {
			t.Errorf("p[%d] = %v, reference %v (diff %g)", i, p[i], ref[i], d)
		}
	}
}

// A power-of-two loss scale is undone exactly: scaled and unscaled
// gradients give the same bits.
func TestAdamScaleExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	a, b := gan.NewAdam([]int{10}), gan.NewAdam([]int{10})
	pa, pb := make([]float32, 10), make([]float32, 10)
	for s := 0; s < 5; s++ {
		ga, gb := make([]float32, 10), make([]float32, 10)
		for i := range ga {
			ga[i] = float32(rng.NormFloat64())
			gb[i] = ga[i] * 4096
		}
		a.Step([][]float32{pa}, [][]float32{ga}, 1)
		b.Step([][]float32{pb}, [][]float32{gb}, 4096)
	}
	if j := sameBits(pa, pb); j >= 0 {
		t.Errorf("element %d: %v unscaled, %v scaled", j, pa[j], pb[j])
	}
}
