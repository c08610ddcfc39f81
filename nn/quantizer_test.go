package nn_test

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/allocs"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

func TestQuantizerString(t *testing.T) {
	p81 := quant.MustParse("posit(8,1)")
	mx := quant.MustParseBlock("mxfp8-e4m3(block=3)")
	for _, tc := range []struct {
		q    nn.Quantizer
		want string
		zero bool
	}{
		{nn.Quantizer{}, "none", true},
		{nn.Quantizer{Rounding: quant.Stochastic}, "none", true},
		{nn.Quantizer{Format: p81}, "posit(8,1)", false},
		{nn.Quantizer{Format: p81, Rounding: quant.Stochastic}, "posit(8,1),sr", false},
		{nn.Quantizer{Block: mx}, mx.String(), false},
	} {
		if got := tc.q.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
		if got := tc.q.IsZero(); got != tc.zero {
			t.Errorf("%v: IsZero() = %v, want %v", tc.q, got, tc.zero)
		}
	}
}

// quantizeGraph builds y = Quantize(x, fwd, bwd, s) and the loss Σ c·y,
// whose gradient with respect to y is c, and returns the graph's x, y and
// x's gradient nodes.
func quantizeGraph(t *testing.T, x, c []float32, fwd, bwd nn.Quantizer, s *nn.Stream) (g *gorgonia.ExprGraph, y, dx *gorgonia.Node) {
	t.Helper()
	g = gorgonia.NewGraph()
	xn := gorgonia.NewTensor(g, tensor.Float32, 1, gorgonia.WithShape(len(x)), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(len(x)), tensor.WithBacking(slices.Clone(x)))))
	cn := gorgonia.NewTensor(g, tensor.Float32, 1, gorgonia.WithShape(len(c)), gorgonia.WithName("c"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(len(c)), tensor.WithBacking(slices.Clone(c)))))
	y, err := nn.Quantize(xn, fwd, bwd, s)
	if err != nil {
		t.Fatal(err)
	}
	p, err := gorgonia.HadamardProd(y, cn)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(p)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := gorgonia.Grad(loss, xn)
	if err != nil {
		t.Fatal(err)
	}
	return g, y, gs[0]
}

// Hand-computed posit(8,1) roundings: near 1 the format has 4 fraction
// bits (ulp 1/16), in [2,4) ulp 1/8, in [1/4,1/2) ulp 1/64, in [64,128)
// the values 64 and 96.
var (
	handIn  = []float32{1.03, 3.3, -0.3, 100}
	handOut = []float32{1, 3.25, -0.296875, 96}
)

// The forward pass rounds by fwd, the backward pass by bwd; a zero bwd
// passes the gradient straight through.
func TestQuantizeForwardBackward(t *testing.T) {
	p81 := nn.Quantizer{Format: quant.MustParse("posit(8,1)")}
	for _, tc := range []struct {
		name         string
		fwd, bwd     nn.Quantizer
		wantY, wantD []float32
	}{
		{"forward", p81, nn.Quantizer{}, handOut, handIn},
		{"backward", nn.Quantizer{}, p81, handIn, handOut},
		{"both", p81, p81, handOut, handOut},
	} {
		g, y, dx := quantizeGraph(t, handIn, handIn, tc.fwd, tc.bwd, nil)
		vm := gorgonia.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		vm.Close()
		if got := y.Value().Data().([]float32); !slices.Equal(got, tc.wantY) {
			t.Errorf("%s: y = %v, want %v", tc.name, got, tc.wantY)
		}
		if got := dx.Value().Data().([]float32); !slices.Equal(got, tc.wantD) {
			t.Errorf("%s: dx = %v, want %v", tc.name, got, tc.wantD)
		}
	}
}

func TestQuantizeErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewTensor(g, tensor.Float32, 1, gorgonia.WithShape(4), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Zeroes()))
	p81 := quant.MustParse("posit(8,1)")
	if y, err := nn.Quantize(x, nn.Quantizer{}, nn.Quantizer{}, nil); err != nil || y != x {
		t.Errorf("zero quantizers: %v, %v; want x itself", y, err)
	}
	for _, tc := range []struct {
		name     string
		fwd, bwd nn.Quantizer
		s        *nn.Stream
		want     string
	}{
		{"stochastic without stream", nn.Quantizer{Format: p81, Rounding: quant.Stochastic}, nn.Quantizer{}, nil, "needs a Stream"},
		{"stochastic gradient without stream", nn.Quantizer{}, nn.Quantizer{Format: p81, Rounding: quant.Stochastic}, nil, "needs a Stream"},
		{"block format", nn.Quantizer{Block: quant.MustParseBlock("mxfp8-e4m3")}, nn.Quantizer{}, nil, "block formats"},
	} {
		if _, err := nn.Quantize(x, tc.fwd, tc.bwd, tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// stochasticRuns runs y = Quantize(x, posit(8,1) stochastic) runs times
// and returns y after each run.
func stochasticRuns(t *testing.T, s *nn.Stream, runs int) [][]float32 {
	t.Helper()
	x := make([]float32, 256)
	for i := range x {
		x[i] = 0.3 // between 19/64 and 20/64
	}
	q := nn.Quantizer{Format: quant.MustParse("posit(8,1)"), Rounding: quant.Stochastic}
	g, y, _ := quantizeGraph(t, x, x, q, nn.Quantizer{}, s)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	var out [][]float32
	for range runs {
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		out = append(out, slices.Clone(y.Value().Data().([]float32)))
		vm.Reset()
	}
	return out
}

// A shared stream is one generator: its nodes' bits follow from its seed
// and the order they run. A run stream's bits follow from the seed and the
// run alone.
func TestQuantizeStreams(t *testing.T) {
	a, b := stochasticRuns(t, nn.SharedStream(1, 9), 2), stochasticRuns(t, nn.SharedStream(1, 9), 2)
	if !slices.Equal(a[0], b[0]) || !slices.Equal(a[1], b[1]) {
		t.Error("shared streams of one seed: different bits")
	}
	if slices.Equal(a[0], a[1]) {
		t.Error("shared stream: the second run repeated the first's bits")
	}
	if c := stochasticRuns(t, nn.SharedStream(2, 9), 1); slices.Equal(a[0], c[0]) {
		t.Error("shared streams of two seeds: the same bits")
	}
	r, r2 := stochasticRuns(t, nn.RunStream(1), 2), stochasticRuns(t, nn.RunStream(1), 2)
	if !slices.Equal(r[0], r2[0]) || !slices.Equal(r[1], r2[1]) || slices.Equal(r[0], r[1]) {
		t.Error("run streams: runs are not their own and repeatable")
	}
	for _, ys := range slices.Concat(a, r) {
		for _, v := range ys {
			if v != 19.0/64 && v != 20.0/64 {
				t.Fatalf("stochastic rounding of 0.3 gave %v", v)
			}
		}
	}
}

// The op rounds into a buffer it keeps: a run allocates nothing once
// warm, as every node of a training step must.
func TestQuantizeOpAllocs(t *testing.T) {
	q := nn.Quantizer{Format: quant.MustParse("posit(8,1)"), Rounding: quant.Stochastic}
	for _, s := range []*nn.Stream{nn.SharedStream(1, 9), nn.RunStream(1)} {
		op := nn.NewQuantizeOp(q, q, s)
		x := tensor.New(tensor.WithShape(1024), tensor.WithBacking(make([]float32, 1024)))
		var v gorgonia.Value = x
		if a := allocs.PerRun(20, func() {
			if _, err := op.Do(v); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%v: %v allocations a run", op, a)
		}
	}
}
