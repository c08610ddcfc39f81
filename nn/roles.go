package nn

import (
	"math/rand/v2"

	"github.com/positgan/positgan/internal/gemm"
	"github.com/positgan/positgan/quant"
)

// roles holds one Rounder per tensor role of a layer. Layers built for
// several graphs (Share) share it: the tables are read-only; a stochastic
// rounder's random source and the quire workspace are used by one node at
// a time (a TapeMachine runs nodes one after another).
type roles struct {
	f                        LayerFormats
	w, act, out, err, wgrad  *gemm.Rounder
	accOut, accErr, accWGrad *gemm.Rounder // quire/per-op: the format sums round to
	// wB, actB, errB round the dot products' operands block-wise along
	// each product's reduction dimension (f.Block); nil where the role has
	// no block format. Their element-wise rounders above are then the
	// identity.
	wB, actB, errB *gemm.Rounder
	quire          gemm.QuireWorkspace
	perOp          [3]gemm.PerOpWorkspace // by role: out, err, wgrad (each keeps its format's tables)
}

func newRoles(f LayerFormats, seed uint64) *roles {
	// One stream per role, so that adding a role does not shift the others.
	mk := func(fm quant.Format, stream uint64) *gemm.Rounder {
		if fm == nil {
			return gemm.NewRounder(nil, quant.Nearest, nil)
		}
		var rng *rand.PCG
		if f.Rounding == quant.Stochastic {
			rng = rand.NewPCG(seed, stream)
		}
		return gemm.NewRounder(fm, f.Rounding, rng)
	}
	r := &roles{f: f}
	r.w = mk(f.Weight, 1)
	r.act = mk(f.Act, 2)
	r.out = mk(f.Out, 3)
	r.err = mk(f.Err, 4)
	r.wgrad = mk(f.WGrad, 5)
	mkB := func(b quant.BlockFormat, stream uint64) *gemm.Rounder {
		if b.IsZero() {
			return nil
		}
		var rng *rand.PCG
		if f.Rounding == quant.Stochastic {
			rng = rand.NewPCG(seed, stream)
		}
		return gemm.NewBlockRounder(b, f.Rounding, rng)
	}
	r.wB = mkB(f.Block.Weight, 6)
	r.actB = mkB(f.Block.Act, 7)
	r.errB = mkB(f.Block.Err, 8)
	if f.Accum != quant.AccumFP32 {
		acc := func(target *gemm.Rounder) *gemm.Rounder {
			if f.AccumFormat == nil {
				return target
			}
			return gemm.NewRounder(f.AccumFormat, quant.Nearest, nil)
		}
		r.accOut, r.accErr, r.accWGrad = acc(r.out), acc(r.err), acc(r.wgrad)
	}
	return r
}

// mm sets c (m×n, row stride n) to op(a)·op(b), summed as the layer's
// accumulation says; acc is the format quire and per-op sums round to.
func mm[T gemm.Float](r *roles, acc *gemm.Rounder, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T) {
	switch r.f.Accum {
	case quant.AccumQuire:
		if a32, ok := any(a).([]float32); ok {
			r.quire.Gemm(acc.Format(), tA, tB, m, n, k, a32, lda, any(b).([]float32), ldb, any(c).([]float32), n)
			return
		}
		gemm.QuireGemm(acc.Format(), tA, tB, m, n, k, a, lda, b, ldb, c, n)
	case quant.AccumPerOp:
		if a32, ok := any(a).([]float32); ok {
			w := &r.perOp[0]
			switch acc {
			case r.accErr:
				w = &r.perOp[1]
			case r.accWGrad:
				w = &r.perOp[2]
			}
			w.Gemm(acc.Format(), tA, tB, m, n, k, a32, lda, any(b).([]float32), ldb, any(c).([]float32), n)
			return
		}
		gemm.PerOpGemm(acc.Format(), tA, tB, m, n, k, a, lda, b, ldb, c, n)
	default:
		gemm.Gemm(tA, tB, m, n, k, 1, a, lda, b, ldb, 0, c, n)
	}
}

// blockBufs hold a layer's operands rounded to block formats: for the
// forward product (x, w) and the backward ones (wb, xb and dyx, dyw: the
// error blocked for the input-gradient and weight-gradient products).
type blockBufs[T gemm.Float] struct {
	x, w, wb, xb, dyx, dyw, col []T
}

// blocked returns src rounded block-wise by q (blocks along axis of the
// rows×cols matrix src) in *buf, or src itself if q is nil: the operand a
// product uses.
func blocked[T gemm.Float](q *gemm.Rounder, buf *[]T, src []T, rows, cols int, axis quant.Axis) []T {
	if q == nil {
		return src
	}
	*buf = grow(*buf, len(src))
	gemm.RoundMatrix(q, *buf, src, rows, cols, axis)
	return *buf
}
