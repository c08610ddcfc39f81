package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// An Option changes how a layer is built.
type Option func(*options)

type options struct {
	bias  bool
	seed  uint64
	dtype tensor.Dtype
	std   float64 // > 0: weights from N(0, std²); else uniform ±1/sqrt(fan-in)
}

func buildOptions(opts []Option) options {
	o := options{bias: true, seed: 1, dtype: tensor.Float32}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// WithoutBias builds the layer with no bias term.
func WithoutBias() Option { return func(o *options) { o.bias = false } }

// WithSeed sets the seed of the weight initialisation and of stochastic
// rounding (default 1). Same seed, same bits.
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// WithDtype sets the element type of the parameters: tensor.Float32
// (default) or tensor.Float64, which gradient checks use.
func WithDtype(dt tensor.Dtype) Option { return func(o *options) { o.dtype = dt } }

// WithNormalInit draws the weights from N(0, std²), as DCGAN does with
// std 0.02, instead of the default uniform ±1/sqrt(fan-in). Biases start
// at zero either way.
func WithNormalInit(std float64) Option { return func(o *options) { o.std = std } }

// newParam returns a parameter tensor of the given shape, filled by fill.
func newParam(dt tensor.Dtype, shape []int, fill func(i int) float64) *tensor.Dense {
	t := tensor.New(tensor.Of(dt), tensor.WithShape(shape...))
	switch s := t.Data().(type) {
	case []float32:
		for i := range s {
			s[i] = float32(fill(i))
		}
	case []float64:
		for i := range s {
			s[i] = fill(i)
		}
	}
	return t
}

// initWeights returns the weight and bias tensors of a layer.
func initWeights(o options, wShape []int, fanIn, nBias int) (w, b *tensor.Dense) {
	rng := rand.New(rand.NewPCG(o.seed, 0x9e3779b97f4a7c15))
	bound := 1 / math.Sqrt(float64(fanIn))
	w = newParam(o.dtype, wShape, func(int) float64 {
		if o.std > 0 {
			return o.std * rng.NormFloat64()
		}
		return bound * (2*float64(rng.Float64()) - 1) // float64(…) stops arm64 fusing Float64's scaling into 2x-1: same bits as amd64
	})
	if o.bias {
		b = newParam(o.dtype, []int{nBias}, func(int) float64 { return 0 })
	}
	return w, b
}

// paramNode returns a node in g holding t.
func paramNode(g *gorgonia.ExprGraph, t *tensor.Dense, name string) *gorgonia.Node {
	return gorgonia.NodeFromAny(g, t, gorgonia.WithName(name))
}

func checkDtype(x *gorgonia.Node, want tensor.Dtype, layer string) error {
	if dt := x.Dtype(); dt != want {
		return fmt.Errorf("nn: %s: input has element type %v, the layer %v", layer, x.Dtype(), want)
	}
	return nil
}
