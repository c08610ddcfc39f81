package nn

import (
	"bytes"
	"log"
	"os"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The TestGorgoniaDefect_ tests show each Gorgonia v0.9.18 / tensor v0.9.24
// defect on the Gorgonia op (logging, not failing, if it no longer
// reproduces, so that an upgrade is noticed) and check that the
// replacement here is correct. Expected values are computed by hand.

// seq returns a float64 tensor holding 0, 1, 2, ... in the given shape.
func seq(shape ...int) *tensor.Dense {
	return newParam(tensor.Float64, shape, func(i int) float64 { return float64(i) })
}

func run(t *testing.T, g *gorgonia.ExprGraph, opts ...gorgonia.VMOpt) {
	t.Helper()
	m := gorgonia.NewTapeMachine(g, opts...)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
}

func values(n *gorgonia.Node) []float64 {
	return slices.Clone(n.Value().Data().([]float64))
}

func gradOf(t *testing.T, n *gorgonia.Node) []float64 {
	t.Helper()
	v, err := n.Grad()
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clone(v.Data().([]float64))
}

// A 2x2, stride-2 average pool of a 4x4 image: every pixel is in exactly
// one window, so the gradient of the sum of the outputs is 1/4 everywhere.
func TestGorgoniaDefect_AveragePool2DBackward(t *testing.T) {
	want := slices.Repeat([]float64{0.25}, 16)
	pool := map[string]func(x *gorgonia.Node) (*gorgonia.Node, error){
		"gorgonia": func(x *gorgonia.Node) (*gorgonia.Node, error) {
			return gorgonia.AveragePool2D(x, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2})
		},
		"nn": func(x *gorgonia.Node) (*gorgonia.Node, error) { return AvgPool2D(x, 2, 2) },
	}
	for _, name := range []string{"gorgonia", "nn"} {
		g := gorgonia.NewGraph()
		x := gorgonia.NodeFromAny(g, seq(1, 1, 4, 4), gorgonia.WithName("x"))
		y, err := pool[name](x)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := gorgonia.Sum(y)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gorgonia.Grad(loss, x); err != nil {
			t.Fatal(err)
		}
		run(t, g)
		// Window means of 0..15 in a 4x4 grid.
		if got := values(y); !slices.Equal(got, []float64{2.5, 4.5, 10.5, 12.5}) {
			t.Errorf("%s: pool = %v, want [2.5 4.5 10.5 12.5]", name, got)
		}
		got := gradOf(t, x)
		switch {
		case name == "nn" && !slices.Equal(got, want):
			t.Errorf("nn.AvgPool2D gradient = %v, want %v", got, want)
		case name == "gorgonia" && slices.Equal(got, want):
			t.Logf("gorgonia.AveragePool2D gradient is now correct: the defect no longer reproduces")
		case name == "gorgonia":
			t.Logf("gorgonia.AveragePool2D gradient (wrong) = %v", got)
		}
	}
}

// Summing axis 2 of 0..11 in shape (1,2,3,2): channel 0 holds rows
// [0 1][2 3][4 5] (column sums 6, 9), channel 1 rows [6 7][8 9][10 11]
// (column sums 24, 27).
func TestGorgoniaDefect_SumAxis2(t *testing.T) {
	want := []float64{6, 9, 24, 27}
	g := gorgonia.NewGraph()
	x := gorgonia.NodeFromAny(g, seq(1, 2, 3, 2), gorgonia.WithName("x"))
	s, err := gorgonia.Sum(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	mean, err := gorgonia.Mean(x, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := SpatialMean(x)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	if got := values(s); slices.Equal(got, want) {
		t.Logf("gorgonia.Sum(x, 2) is now correct: the defect no longer reproduces")
	} else {
		t.Logf("gorgonia.Sum(x, 2) (wrong) = %v, want %v", got, want)
	}
	// Plane means: (0+...+5)/6 = 2.5 and (6+...+11)/6 = 8.5.
	if got := values(mean); !slices.Equal(got, []float64{2.5, 8.5}) {
		t.Logf("gorgonia.Mean(x, 2, 3) (wrong) = %v, want [2.5 8.5]", got)
	}
	if got := values(ours); !slices.Equal(got, []float64{2.5, 8.5}) {
		t.Errorf("SpatialMean = %v, want [2.5 8.5]", got)
	}
}

// Issue 511: Reshape returns a view of its input, and an op downstream
// that works in place then overwrites that input. With x = 0..5,
// a = 2x, n = reshape(a) + 1 and b = a + reshape(n) is 4i + 1.
func TestGorgoniaDefect_ReshapeView(t *testing.T) {
	want := []float64{1, 5, 9, 13, 17, 21}
	for _, name := range []string{"gorgonia", "nn"} {
		reshape := gorgonia.Reshape
		if name == "nn" {
			reshape = Reshape
		}
		g := gorgonia.NewGraph()
		x := gorgonia.NodeFromAny(g, seq(2, 3), gorgonia.WithName("x"))
		a, err := gorgonia.Mul(x, gorgonia.NewConstant(2.0))
		if err != nil {
			t.Fatal(err)
		}
		r, err := reshape(a, tensor.Shape{3, 2})
		if err != nil {
			t.Fatal(err)
		}
		n, err := gorgonia.Add(r, gorgonia.NewConstant(1.0))
		if err != nil {
			t.Fatal(err)
		}
		n2, err := reshape(n, tensor.Shape{2, 3})
		if err != nil {
			t.Fatal(err)
		}
		b, err := gorgonia.Add(a, n2)
		if err != nil {
			t.Fatal(err)
		}
		run(t, g)
		got := values(b)
		switch {
		case name == "nn" && !slices.Equal(got, want):
			t.Errorf("with nn.Reshape: b = %v, want %v", got, want)
		case name == "gorgonia" && slices.Equal(got, want):
			t.Logf("gorgonia.Reshape: b is now correct: the defect no longer reproduces")
		case name == "gorgonia":
			t.Logf("with gorgonia.Reshape (wrong): b = %v, want %v", got, want)
		}
	}
}

// GroupNorm's backward pass logs "outgrad: ..." on every call.
// InstanceNorm (GroupNorm with one group per channel) must log nothing.
func TestGorgoniaDefect_GroupNormLogs(t *testing.T) {
	var buf bytes.Buffer
	log.SetOutput(&buf)
	defer log.SetOutput(os.Stderr)
	for _, name := range []string{"gorgonia", "nn"} {
		buf.Reset()
		g := gorgonia.NewGraph()
		x := gorgonia.NodeFromAny(g, seq(2, 3, 2, 2), gorgonia.WithName("x"))
		gamma := gorgonia.NodeFromAny(g, newParam(tensor.Float64, []int{1, 3, 1, 1}, func(int) float64 { return 1 }), gorgonia.WithName("gamma"))
		beta := gorgonia.NodeFromAny(g, newParam(tensor.Float64, []int{1, 3, 1, 1}, func(int) float64 { return 0 }), gorgonia.WithName("beta"))
		var y *gorgonia.Node
		var err error
		wrt := gorgonia.Nodes{x}
		if name == "gorgonia" {
			y, err = gorgonia.GroupNorm(x, gamma, beta, 3, 3, 1e-5)
		} else {
			var l *InstanceNorm
			if l, err = NewInstanceNorm(g, "in", 3, 1e-5, WithDtype(tensor.Float64)); err == nil {
				y, err = l.Fwd(x)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		sq, err := gorgonia.Square(y)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := gorgonia.Sum(sq)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gorgonia.Grad(loss, wrt...); err != nil {
			t.Fatal(err)
		}
		run(t, g)
		switch {
		case name == "nn" && buf.Len() > 0:
			t.Errorf("InstanceNorm logged %q", buf.String())
		case name == "gorgonia" && buf.Len() == 0:
			t.Logf("gorgonia.GroupNorm's backward no longer logs: the defect does not reproduce")
		case name == "gorgonia":
			t.Logf("gorgonia.GroupNorm backward logged %d bytes", buf.Len())
		}
	}
}

// Issue 543: gradients bound with BindDualValues are added to on every
// run. d(Σ w·x)/dw = x; after two runs the bound gradient reads 2x unless
// ZeroGrads clears it in between.
func TestGorgoniaDefect_BindDualValuesAccumulate(t *testing.T) {
	for _, zero := range []bool{false, true} {
		g := gorgonia.NewGraph()
		x := gorgonia.NodeFromAny(g, seq(3), gorgonia.WithName("x"))
		w := gorgonia.NodeFromAny(g, newParam(tensor.Float64, []int{3}, func(int) float64 { return 1 }), gorgonia.WithName("w"))
		p, err := gorgonia.HadamardProd(w, x)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := gorgonia.Sum(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gorgonia.Grad(loss, w); err != nil {
			t.Fatal(err)
		}
		m := gorgonia.NewTapeMachine(g, gorgonia.BindDualValues(w))
		for i := 0; i < 2; i++ {
			if zero {
				if err := ZeroGrads(gorgonia.Nodes{w}); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.RunAll(); err != nil {
				t.Fatal(err)
			}
			m.Reset()
		}
		m.Close()
		got := gradOf(t, w)
		switch {
		case zero && !slices.Equal(got, []float64{0, 1, 2}):
			t.Errorf("with ZeroGrads: gradient after two runs = %v, want [0 1 2]", got)
		case !zero && slices.Equal(got, []float64{0, 2, 4}):
			t.Logf("BindDualValues: gradient after two runs (accumulated) = %v", got)
		case !zero:
			t.Logf("BindDualValues: gradient after two runs = %v: the defect does not reproduce", got)
		}
	}
}

// gorgonia.BatchNorm: making a TapeMachine calls SetTraining, and
// SetTraining(true) resets the running statistics. nn.BatchNorm keeps
// them. Input: channel 0 = {0, 1}, channel 1 = {2, 3} over a batch of two
// (shape (2,2)): batch means 0.5 and 2.5, unbiased variances 0.5 and 0.5;
// with momentum 0.1 from (0, 1) one step gives means 0.05, 0.25 and
// variances 0.95, 0.95.
func TestGorgoniaDefect_BatchNormRunningStats(t *testing.T) {
	x := newParam(tensor.Float64, []int{2, 2}, func(i int) float64 { return []float64{0, 2, 1, 3}[i] })
	wantMean, wantVar := []float64{0.05, 0.25}, []float64{0.95, 0.95}
	close := func(a, b []float64) bool {
		for i := range a {
			if d := a[i] - b[i]; d > 1e-12 || d < -1e-12 {
				return false
			}
		}
		return true
	}

	// Gorgonia: train one step, then make a new machine (as for eval).
	{
		g := gorgonia.NewGraph()
		xn := gorgonia.NodeFromAny(g, x.Clone().(*tensor.Dense), gorgonia.WithName("x"))
		x4, err := gorgonia.Reshape(xn, tensor.Shape{2, 2, 1, 1})
		if err != nil {
			t.Fatal(err)
		}
		scale := gorgonia.NodeFromAny(g, newParam(tensor.Float64, []int{1, 2, 1, 1}, func(int) float64 { return 1 }), gorgonia.WithName("scale"))
		bias := gorgonia.NodeFromAny(g, newParam(tensor.Float64, []int{1, 2, 1, 1}, func(int) float64 { return 0 }), gorgonia.WithName("bias"))
		_, _, _, op, err := gorgonia.BatchNorm(x4, scale, bias, 0.1, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		run(t, g)
		mean, _ := op.Stats()
		before := slices.Clone(mean.Data().([]float64))
		gorgonia.NewTapeMachine(g).Close()
		after := mean.Data().([]float64)
		if slices.Equal(before, after) {
			t.Logf("gorgonia.BatchNorm running mean survived a new TapeMachine: %v", after)
		} else {
			t.Logf("gorgonia.BatchNorm running mean %v was reset to %v by a new TapeMachine", before, after)
		}
	}

	// nn.BatchNorm: train one step, new machine in eval mode: statistics
	// kept and used.
	g := gorgonia.NewGraph()
	xn := gorgonia.NodeFromAny(g, x, gorgonia.WithName("x"))
	bn, err := NewBatchNorm(g, "bn", 2, 0.1, 1e-5, WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	y, err := bn.Fwd(xn)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	if m, v := values2(bn.RunningMean), values2(bn.RunningVar); !close(m, wantMean) || !close(v, wantVar) {
		t.Fatalf("after one step: running mean %v, var %v; want %v, %v", m, v, wantMean, wantVar)
	}
	bn.Eval()
	run(t, g)
	if m, v := values2(bn.RunningMean), values2(bn.RunningVar); !close(m, wantMean) || !close(v, wantVar) {
		t.Errorf("after a new machine in eval mode: running mean %v, var %v; want %v, %v", m, v, wantMean, wantVar)
	}
	// Eval output: (x - 0.05)/sqrt(0.95+1e-5) for channel 0, etc.
	got := values(y)
	for i, xv := range []float64{0, 2, 1, 3} {
		c := i % 2
		want := (xv - wantMean[c]) / sqrtF(wantVar[c]+1e-5)
		if d := got[i] - want; d > 1e-12 || d < -1e-12 {
			t.Errorf("eval output[%d] = %v, want %v", i, got[i], want)
		}
	}
}

func values2(t *tensor.Dense) []float64 { return t.Data().([]float64) }
