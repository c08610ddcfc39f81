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
func wideFormats(acc quant.Accumulation) LayerFormats {
	p := Quantizer{Format: quant.MustParse("posit(32,2)")}
	return LayerFormats{Weight: p, Act: p, Out: p, Err: p, WGrad: p, Accum: acc}
}

var stepOpts = &gradcheck.Options{Step: 1e-5, RelTol: 1e-4, AbsTol: 1e-6}

// wideOpts suit wideFormats: rounding to posit(32,2) moves values by up to
// about 1e-8 relative, so the step must be large; the layers are linear in
// each argument, so a large step has no truncation error.
var wideOpts = &gradcheck.Options{Step: 1.0 / 64, RelTol: 1e-4, AbsTol: 1e-6}

func optsFor(f LayerFormats) *gradcheck.Options {
	if !f.Act.IsZero() {
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

// opFunc builds an op on input nodes, for runOp.
type opFunc func(ins []*gorgonia.Node) (*gorgonia.Node, error)

// runOp builds op on inputs of element type dt with the given shapes and
// values, runs it with gradients of the loss Σ c·y (y itself when y is a
// scalar) for float32-exact random weights c drawn from seed, and returns
// y and the gradients of the inputs as float64. It checks that y has
// element type dt.
func runOp(t *testing.T, dt tensor.Dtype, shapes [][]int, vals [][]float64, seed uint64, op opFunc) (y []float64, grads [][]float64) {
	t.Helper()
	g := gorgonia.NewGraph()
	ins := make([]*gorgonia.Node, len(shapes))
	for i, s := range shapes {
		v := vals[i]
		ins[i] = gorgonia.NodeFromAny(g, newParam(dt, s, func(j int) float64 { return v[j] }), gorgonia.WithName("in"+string(rune('a'+i))))
	}
	out, err := op(ins)
	if err != nil {
		t.Fatal(err)
	}
	if out.Dtype() != dt {
		t.Fatalf("output element type %v, want %v", out.Dtype(), dt)
	}
	loss := out
	if !out.IsScalar() {
		n := out.Shape().TotalSize()
		c := make([]float64, n)
		fillRand(c, rand.New(rand.NewPCG(seed, 1)))
		toFloat32(c)
		flat, err := gorgonia.Reshape(out, tensor.Shape{n})
		if err != nil {
			t.Fatal(err)
		}
		cn := gorgonia.NodeFromAny(g, newParam(dt, []int{n}, func(j int) float64 { return c[j] }), gorgonia.WithName("c"))
		p, err := gorgonia.HadamardProd(flat, cn)
		if err != nil {
			t.Fatal(err)
		}
		if loss, err = gorgonia.Sum(p); err != nil {
			t.Fatal(err)
		}
	}
	gs, err := gorgonia.Grad(loss, ins...)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	y = floatsOf(out.Value())
	for _, gn := range gs {
		grads = append(grads, floatsOf(gn.Value()))
	}
	return y, grads
}

// floatsOf returns the elements of a float32 or float64 value, scalar or
// tensor, as float64.
func floatsOf(v gorgonia.Value) []float64 {
	switch d := v.Data().(type) {
	case float32:
		return []float64{float64(d)}
	case float64:
		return []float64{d}
	case []float32:
		s := make([]float64, len(d))
		for i, x := range d {
			s[i] = float64(x)
		}
		return s
	case []float64:
		return append([]float64(nil), d...)
	}
	panic("floatsOf: not float32 or float64")
}

// randVals returns a slice of random values for each shape.
func randVals(rng *rand.Rand, shapes [][]int) [][]float64 {
	vals := make([][]float64, len(shapes))
	for i, s := range shapes {
		vals[i] = make([]float64, prod(s))
		fillRand(vals[i], rng)
	}
	return vals
}

// agreeFloat32 runs op in float64 and in float32 on the same
// float32-exact random values and checks that outputs and gradients agree
// to float32 precision: the float32 paths of the kernels compute what the
// gradient-checked float64 ones do.
func agreeFloat32(t *testing.T, name string, shapes [][]int, op opFunc) {
	t.Helper()
	rng := rand.New(rand.NewPCG(51, 52))
	vals := randVals(rng, shapes)
	for _, v := range vals {
		toFloat32(v)
	}
	y64, g64 := runOp(t, tensor.Float64, shapes, vals, 53, op)
	y32, g32 := runOp(t, tensor.Float32, shapes, vals, 53, op)
	near := func(what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if d := math.Abs(got[i] - want[i]); d > 1e-6+1e-5*math.Abs(want[i]) {
				t.Errorf("%s: float32 %s[%d] = %v, float64 %v", name, what, i, got[i], want[i])
				return
			}
		}
	}
	near("output", y32, y64)
	for i := range g64 {
		near("gradient "+string(rune('a'+i)), g32[i], g64[i])
	}
}

func toFloat32(v []float64) {
	for i := range v {
		v[i] = float64(float32(v[i]))
	}
}

// checkOpGrad gradient-checks op on random normal float64 inputs of the
// given shapes: through the loss Σ c·y for a random c, or, for a scalar y,
// through -1.5·y (so that the incoming gradient is not 1).
func checkOpGrad(t *testing.T, name string, shapes [][]int, op opFunc, opts *gradcheck.Options) {
	t.Helper()
	checkGrad(t, name, func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
		rng := rand.New(rand.NewPCG(61, 62))
		ins := make([]*gorgonia.Node, len(shapes))
		for i, s := range shapes {
			ins[i] = input(g, "in"+string(rune('a'+i)), s, normal(rng))
		}
		y, err := op(ins)
		if err != nil {
			return nil, nil, err
		}
		if y.IsScalar() {
			loss, err := gorgonia.Mul(y, gorgonia.NewConstant(-1.5))
			return loss, ins, err
		}
		loss, err := dotLoss(y, rng)
		return loss, ins, err
	}, opts)
}

// sumGrad applies op to the float64 input 0, 1, 2, ... of the given shape
// and returns the output and the gradient of the sum of the outputs.
func sumGrad(t *testing.T, shape []int, op func(x *gorgonia.Node) (*gorgonia.Node, error)) (y, grad []float64) {
	t.Helper()
	n := prod(shape)
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i)
	}
	g := gorgonia.NewGraph()
	x := gorgonia.NodeFromAny(g, newParam(tensor.Float64, shape, func(i int) float64 { return vals[i] }), gorgonia.WithName("x"))
	out, err := op(x)
	if err != nil {
		t.Fatal(err)
	}
	// Sum a flat copy: tensor v0.9.24 sums some axes of 4-D tensors wrong.
	flat, err := Reshape(out, tensor.Shape{out.Shape().TotalSize()})
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(flat)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := gorgonia.Grad(loss, x)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	return floatsOf(out.Value()), floatsOf(gs[0].Value())
}
