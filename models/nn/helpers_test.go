package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/internal/gradcheck"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// randDense returns a float64 tensor of the given shape with entries from
// gen.
func randDense(shape []int, gen func() float64) *tensor.Dense {
	return newParam(tensor.Float64, shape, func(int) float64 { return gen() })
}

func normal(rng *rand.Rand) func() float64 { return rng.NormFloat64 }

// dotLoss returns Σ y·c for a fixed random c, a loss whose gradient with
// respect to y is c, so that every output element is checked.
func dotLoss(y *gorgonia.Node, rng *rand.Rand) (*gorgonia.Node, error) {
	n := y.Shape().TotalSize()
	flat, err := gorgonia.Reshape(y, tensor.Shape{n})
	if err != nil {
		return nil, err
	}
	c := gorgonia.NodeFromAny(y.Graph(), randDense([]int{n}, rng.NormFloat64), gorgonia.WithName("c"))
	p, err := gorgonia.HadamardProd(flat, c)
	if err != nil {
		return nil, err
	}
	return gorgonia.Sum(p)
}

func input(g *gorgonia.ExprGraph, name string, shape []int, gen func() float64) *gorgonia.Node {
	return gorgonia.NodeFromAny(g, randDense(shape, gen), gorgonia.WithName(name))
}

// gridGen returns values on a grid of multiples of 1/8 in [-2, 2], exact
// in posit(16,1) and in the float formats, so that rounding them is the
// identity: the straight-through gradient is then the true gradient.
func gridGen(rng *rand.Rand) func() float64 {
	return func() float64 { return float64(rng.IntN(33)-16) / 8 }
}

// wideFormats rounds every role to posit(32,2): close to the identity, so a
// finite-difference check sees the smooth function, while every rounding
// path of the kernels runs.
func wideFormats(acc quant.Accumulation) quant.LayerFormats {
	p := quant.MustParse("posit(32,2)")
	return quant.LayerFormats{Weight: p, Act: p, Out: p, Err: p, WGrad: p, Accum: acc}
}

var stepOpts = &gradcheck.Options{Step: 1e-5, RelTol: 1e-4, AbsTol: 1e-6}

// wideOpts suit wideFormats: rounding to posit(32,2) moves values by up to
// about 1e-8 relative, so the step must be large; the layers are linear in
// each argument, so a large step has no truncation error.
var wideOpts = &gradcheck.Options{Step: 1.0 / 64, RelTol: 1e-4, AbsTol: 1e-6}

func optsFor(f quant.LayerFormats) *gradcheck.Options {
	if f.Act != nil {
		return wideOpts
	}
	return stepOpts
}

func checkGrad(t *testing.T, name string, build gradcheck.Builder, opts *gradcheck.Options) {
	t.Helper()
	if err := gradcheck.Check(build, opts); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

func sqrtF(x float64) float64 { return math.Sqrt(x) }
