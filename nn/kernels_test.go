package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// kernelFormats are the formats the kernel tests run with: element-wise
// formats for every role, and block formats.
func kernelFormats() map[string]LayerFormats {
	p := func(s string) Quantizer { return Quantizer{Format: quant.MustParse(s)} }
	b := func(s string) Quantizer { return Quantizer{Block: quant.MustParseBlock(s)} }
	return map[string]LayerFormats{
		"fp32": {},
		"posit": {Act: p("posit(8,1)"), Weight: p("posit(8,1,scale=3)"), Out: p("posit(8,0)"),
			Err: p("posit(8,2)"), WGrad: p("posit(16,1)")},
		"blocks": {Weight: b("mxfp8-e4m3(block=4)"), Act: b("mxfp8-e4m3(block=3)"), Err: b("mxfp8-e5m2(block=5)")},
	}
}

// float32s returns v as a float32 tensor of the given shape.
func float32s(v []float64, shape ...int) *tensor.Dense {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))
}

// float32Bits reports whether the float32 tensor got holds the values of
// want (float32 values as float64) bit for bit.
func float32Bits(got *tensor.Dense, want []float64) bool {
	g := got.Float32s()
	if len(g) != len(want) {
		return false
	}
	for i, v := range want {
		if math.Float32bits(g[i]) != math.Float32bits(float32(v)) {
			return false
		}
	}
	return true
}

// lossWeights returns the weights c of runOp's loss Σ c·y for an output
// of n values: the gradient of the output.
func lossWeights(n int, seed uint64) []float64 {
	c := make([]float64, n)
	fillRand(c, rand.New(rand.NewPCG(seed, 1)))
	toFloat32(c)
	return c
}

// A LinearKernel gives the bits of a Linear layer's op, forward and
// backward.
func TestLinearKernel(t *testing.T) {
	const batch, in, out = 3, 7, 5
	shapes := [][]int{{batch, in}, {out, in}, {out}}
	for name, f := range kernelFormats() {
		vals := randVals(rand.New(rand.NewPCG(1, 2)), shapes)
		for _, v := range vals {
			toFloat32(v)
		}
		y, grads := runOp(t, tensor.Float32, shapes, vals, 9, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			l := &Linear{In: in, Out: out, W: ins[1], B: ins[2], name: "fc", roles: newRoles(f, 1)}
			return l.Fwd(ins[0])
		})
		k, err := NewLinearKernel(batch, in, out, f)
		if err != nil {
			t.Fatal(err)
		}
		ky, dx, dw := float32s(make([]float64, batch*out), batch, out), float32s(make([]float64, batch*in), batch, in), float32s(make([]float64, out*in), out, in)
		k.Forward(ky, float32s(vals[0], batch, in), float32s(vals[1], out, in), float32s(vals[2], out))
		dy := float32s(lossWeights(batch*out, 9), batch, out)
		k.BackX(dx, dy)
		k.BackW(dw, dy)
		for _, c := range []struct {
			what string
			got  *tensor.Dense
			want []float64
		}{{"y", ky, y}, {"dx", dx, grads[0]}, {"dw", dw, grads[1]}} {
			if !float32Bits(c.got, c.want) {
				t.Errorf("%s: %s = %v, the layer's op gives %v", name, c.what, c.got.Float32s(), c.want)
			}
		}
	}
}

// A Conv2dKernel gives the bits of a Conv2d layer's op, forward and
// backward.
func TestConv2dKernel(t *testing.T) {
	const batch, inC, size, outC, kk, stride, pad = 2, 2, 5, 3, 3, 2, 1
	shapes := [][]int{{batch, inC, size, size}, {outC, inC, kk, kk}, {outC}}
	for name, f := range kernelFormats() {
		vals := randVals(rand.New(rand.NewPCG(3, 4)), shapes)
		for _, v := range vals {
			toFloat32(v)
		}
		c := &Conv2d{InC: inC, OutC: outC, K: kk, Stride: stride, Pad: pad, name: "conv", roles: newRoles(f, 1)}
		y, grads := runOp(t, tensor.Float32, shapes, vals, 9, func(ins []*gorgonia.Node) (*gorgonia.Node, error) {
			d := *c
			d.W, d.B = ins[1], ins[2]
			return d.Fwd(ins[0])
		})
		k, err := NewConv2dKernel(batch, inC, size, size, outC, kk, stride, pad, f)
		if err != nil {
			t.Fatal(err)
		}
		ys := k.OutShape()
		ky, dx, dw := float32s(make([]float64, ys.TotalSize()), ys...), float32s(make([]float64, len(vals[0])), shapes[0]...), float32s(make([]float64, len(vals[1])), shapes[1]...)
		k.Forward(ky, float32s(vals[0], shapes[0]...), float32s(vals[1], shapes[1]...), float32s(vals[2], outC))
		dy := float32s(lossWeights(ys.TotalSize(), 9), ys...)
		k.BackX(dx, dy)
		k.BackW(dw, dy)
		for _, c := range []struct {
			what string
			got  *tensor.Dense
			want []float64
		}{{"y", ky, y}, {"dx", dx, grads[0]}, {"dw", dw, grads[1]}} {
			if !float32Bits(c.got, c.want) {
				t.Errorf("%s: %s = %v, the layer's op gives %v", name, c.what, c.got.Float32s(), c.want)
			}
		}
	}
}

// SumBias sums over the batch and the positions of each channel, in
// float64: 1e8 + 1 - 1e8 is 1, where float32 sums would give 0.
func TestSumBias(t *testing.T) {
	src := []float32{1, 2, 3, 4, 5, 6, 7, 8} // (n=2, c=2, inner=2)
	dst := make([]float32, 2)
	SumBias(dst, src, 2, 2)
	if want := []float32{1 + 2 + 5 + 6, 3 + 4 + 7 + 8}; !slices.Equal(dst, want) {
		t.Errorf("SumBias = %v, want %v", dst, want)
	}
	SumBias(dst[:1], []float32{1e8, 1, -1e8}, 1, 3)
	if dst[0] != 1 {
		t.Errorf("SumBias(1e8, 1, -1e8) = %g, want 1", dst[0])
	}
}
