package gemm

import (
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// BenchmarkConvForward times the forward pass of the DCGAN discriminator's
// second convolution (batch 64, 64→128 channels, 14×14 → 7×7, 4×4 kernel,
// stride 2, pad 1) as the nn layers run it: im2col of the batch, one GEMM,
// and for the quantized variants the roundings of input, weights and
// output fused around them.
func BenchmarkConvForward(b *testing.B) {
	const n, c, h, oc = 64, 64, 14, 128
	g, err := ConvGeom(c, h, h, 4, 4, 2, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float32, n*c*h*h)
	w := make([]float32, oc*g.Rows())
	for _, s := range [][]float32{x, w} {
		for i := range s {
			s[i] = float32(rng.NormFloat64())
		}
	}
	p8 := quant.MustParse("posit(8,1)")
	w8, _ := quant.Scale(p8, 4)
	for _, tc := range []struct {
		name         string
		act, wt, out quant.Format
	}{
		{"fp32", nil, nil, nil},
		{"posit8", p8, w8, p8},
		{"fp8", quant.MustParse("fp8-ibm-fwd"), quant.MustParse("fp8-ibm-fwd"), quant.MustParse("float(6,9)")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			round := func(dst, src []float32, f quant.Format) {
				if f == nil {
					copy(dst, src)
					return
				}
				f.RoundSlice(dst, src)
			}
			p, ld, img := g.Cols(), n*g.Cols(), c*h*h
			xq, wq := make([]float32, len(x)), make([]float32, len(w))
			col := make([]float32, g.Rows()*ld)
			y := make([]float32, oc*ld)
			b.ReportAllocs()
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				round(xq, x, tc.act)
				for i := 0; i < n; i++ {
					Im2col(col[i*p:], ld, xq[i*img:(i+1)*img], g)
				}
				round(wq, w, tc.wt)
				Gemm(false, false, oc, ld, g.Rows(), 1, wq, g.Rows(), col, ld, 0, y, ld)
				round(y, y, tc.out)
			}
			b.ReportMetric(float64(2*oc*ld*g.Rows())*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkQuireGemm times the exact-accumulation kernel on posit(8,1)
// operands of DCGAN-like spread, and the per-op kernel, against plain
// SGEMM, 128×1024×3136.
func BenchmarkQuireGemm(b *testing.B) {
	const m, n, k = 128, 1024, 3136
	rng := rand.New(rand.NewPCG(3, 3))
	p := quant.MustParse("posit(8,1)").(quant.Posit)
	a := positData(p, m*k, rng, 0.5)
	bb := positData(p, k*n, rng, 0.05)
	c := make([]float32, m*n)
	b.Run("sgemm", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Gemm(false, true, m, n, k, 1, a, k, bb, k, 0, c, n)
		}
	})
	b.Run("per-op", func(b *testing.B) {
		var w PerOpWorkspace
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			w.Gemm(p, false, true, m, n, k, a, k, bb, k, c, n)
		}
		b.ReportMetric(float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
	})
	b.Run("quire", func(b *testing.B) {
		var w QuireWorkspace
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			w.Gemm(p, false, true, m, n, k, a, k, bb, k, c, n)
		}
	})
}

// BenchmarkPerOpGemm times per-operation accumulation where the format's
// arithmetic is called per element: the table-driven kernel on a small
// product (its 256×256 product table, built per call, dominates), building
// both tables from scratch, and the reference kernel of a 16-bit posit and
// a 16-bit float (float32 data whose format is too wide for tables).
func BenchmarkPerOpGemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	p8 := quant.MustParse("posit(8,1)").(quant.Posit)
	p16 := quant.MustParse("posit(16,1)").(quant.Posit)
	fp16 := quant.MustParse("fp16")
	a8, b8 := positData(p8, 64*64, rng, 1), positData(p8, 64*64, rng, 0.1)
	a16, b16 := positData(p16, 32*64, rng, 1), positData(p16, 64*32, rng, 0.1)
	c := make([]float32, 64*64)
	for _, tc := range []struct {
		name    string
		f       quant.Format
		a, bb   []float32
		m, n, k int
		fresh   bool // a new workspace per call: time both tables
	}{
		{"table-posit8-64", p8, a8, b8, 64, 64, 64, false},
		{"tables-posit8", p8, a8[:64], b8[:64], 1, 1, 64, true},
		{"ref-posit16", p16, a16, b16, 32, 32, 64, false},
		{"ref-fp16", fp16, a16, b16, 32, 32, 64, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var w PerOpWorkspace
			for b.Loop() {
				if tc.fresh {
					w = PerOpWorkspace{}
				}
				w.Gemm(tc.f, false, false, tc.m, tc.n, tc.k, tc.a, tc.k, tc.bb, tc.n, c, tc.n)
			}
			b.ReportMetric(float64(tc.m*tc.n*tc.k)*float64(b.N)/b.Elapsed().Seconds()/1e6, "MMAC/s")
		})
	}
}
