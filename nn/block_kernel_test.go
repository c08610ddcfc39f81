package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/internal/gradcheck"
	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// blockFormats sets the three dot-product operands to block formats.
func blockFormats(w, act, err string) LayerFormats {
	return LayerFormats{Weight: Quantizer{Block: quant.MustParseBlock(w)}, Act: Quantizer{Block: quant.MustParseBlock(act)},
		Err: Quantizer{Block: quant.MustParseBlock(err)}}
}

// TestBlockLayerGradients checks the gradients of every layer with block
// formats on all three operands against central differences. The data
// (inputs, weights, biases, the loss's weights) are multiples of 1/8 in
// [-2, 2] and the step is 1/8, so every block rounding of posit(16,1) is
// exact and the layers are exactly linear in each argument: the check is
// exact, and runs every blocked path of the kernels (forward blocks, the
// re-blocked backward operands, the repacked columns), with blocks of 3
// that leave short last blocks.
func TestBlockLayerGradients(t *testing.T) {
	f := blockFormats("posit(16,1,block=3)", "posit(16,1,block=3)", "posit(16,1,block=3)")
	opts := &gradcheck.Options{Step: 1.0 / 8, RelTol: 1e-12, AbsTol: 1e-12}
	for _, lc := range layerCases {
		checkGrad(t, lc.name+" blocks", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			rng := rand.New(rand.NewPCG(11, 12))
			fwd, ps, err := lc.build(g, f, WithDtype(tensor.Float64), WithSeed(5))
			if err != nil {
				return nil, nil, err
			}
			for _, p := range ps {
				s := p.Value().Data().([]float64)
				for i := range s {
					s[i] = gridGen(rng)()
				}
			}
			x := input(g, "x", lc.in, gridGen(rng))
			y, err := fwd(x)
			if err != nil {
				return nil, nil, err
			}
			n := y.Shape().TotalSize()
			flat, err := gorgonia.Reshape(y, tensor.Shape{n})
			if err != nil {
				return nil, nil, err
			}
			c := gorgonia.NodeFromAny(g, randDense([]int{n}, gridGen(rng)), gorgonia.WithName("c"))
			p, err := gorgonia.HadamardProd(flat, c)
			if err != nil {
				return nil, nil, err
			}
			loss, err := gorgonia.Sum(p)
			return loss, append(gorgonia.Nodes{x}, ps...), err
		}, opts)
	}
}

// TestBlockLinearReference runs Linear with block formats on float64 data
// and compares its output and gradients bit for bit with the definition:
// y = Σ B(x)·B(w) + b with x's and w's blocks along the input features;
// dx = Σ B(dy)·B(w) with dy's blocks along the output features and w
// re-blocked down its columns (the output features); dw = Σ B(dy)·B(x)
// with both blocked down the batch; db = Σ dy. The reference blocks by
// gathering each run of values and calling RoundBlocks64. Sums of products
// of 8-bit values are exact in float64.
func TestBlockLinearReference(t *testing.T) {
	for _, f := range []LayerFormats{
		blockFormats("mxfp8-e4m3(block=4)", "mxfp8-e4m3(block=4)", "mxfp8-e5m2(block=3)"),
		blockFormats("posit(8,1,block=2)", "mxint8(block=5)", "posit(8,2,block=4)"),
		blockFormats("mxfp4-e2m1(block=32)", "mxfp6-e2m3(block=3)", "mxfp6-e3m2(block=2)"),
	} {
		const n, in, out = 7, 11, 5
		g := gorgonia.NewGraph()
		rng := rand.New(rand.NewPCG(31, 32))
		l, err := NewLinear(g, "fc", in, out, f, WithDtype(tensor.Float64), WithSeed(3))
		if err != nil {
			t.Fatal(err)
		}
		fillRand(l.B.Value().Data().([]float64), rng)
		x := input(g, "x", []int{n, in}, normal(rng))
		y, err := l.Fwd(x)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := dotLoss(y, rng)
		if err != nil {
			t.Fatal(err)
		}
		grads, err := gorgonia.Grad(loss, x, l.W, l.B)
		if err != nil {
			t.Fatal(err)
		}
		m := gorgonia.NewTapeMachine(g)
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		m.Close()
		var c []float64
		for _, nd := range g.AllNodes() {
			if nd.Name() == "c" {
				c = nd.Value().Data().([]float64)
			}
		}
		xv, wv, bv := x.Value().Data().([]float64), l.W.Value().Data().([]float64), l.B.Value().Data().([]float64)
		// blockRows rounds each row of the r×k matrix a; blockCols each
		// column, by gathering it.
		blockRows := func(b quant.BlockFormat, a []float64, r, k int) []float64 {
			d := make([]float64, len(a))
			for i := 0; i < r; i++ {
				b.RoundBlocks64(d[i*k:(i+1)*k], a[i*k:(i+1)*k])
			}
			return d
		}
		blockCols := func(b quant.BlockFormat, a []float64, r, k int) []float64 {
			d := make([]float64, len(a))
			col := make([]float64, r)
			for j := 0; j < k; j++ {
				for i := range col {
					col[i] = a[i*k+j]
				}
				b.RoundBlocks64(col, col)
				for i, v := range col {
					d[i*k+j] = v
				}
			}
			return d
		}
		bw, ba, be := f.Weight.Block, f.Act.Block, f.Err.Block
		xf, wf := blockRows(ba, xv, n, in), blockRows(bw, wv, out, in)
		dyx, wb := blockRows(be, c, n, out), blockCols(bw, wv, out, in)
		dyw, xb := blockCols(be, c, n, out), blockCols(ba, xv, n, in)
		yRef := make([]float64, n*out)
		dx, dw, db := make([]float64, n*in), make([]float64, out*in), make([]float64, out)
		for i := 0; i < n; i++ {
			for o := 0; o < out; o++ {
				s := bv[o]
				for j := 0; j < in; j++ {
					s += xf[i*in+j] * wf[o*in+j]
					dx[i*in+j] += dyx[i*out+o] * wb[o*in+j]
					dw[o*in+j] += dyw[i*out+o] * xb[i*in+j]
				}
				yRef[i*out+o] = s
				db[o] += c[i*out+o]
			}
		}
		got := [][]float64{y.Value().Data().([]float64)}
		for _, gn := range grads {
			got = append(got, gn.Value().Data().([]float64))
		}
		for k, want := range [][]float64{yRef, dx, dw, db} {
			for i := range want {
				if got[k][i] != want[i] {
					t.Errorf("%v/%v/%v: %s[%d] = %v, want %v", bw, ba, be, []string{"y", "dx", "dw", "db"}[k], i, got[k][i], want[i])
					break
				}
			}
		}
	}
}
