package nn

import (
	"math/rand/v2"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// roles holds one Rounder per tensor role of a layer. Layers built for
// several graphs (Share) share it: the tables are read-only; a stochastic
// rounder's random source and the quire workspace are used by one node at
// a time (a TapeMachine runs nodes one after another).
type roles struct {
	f                        LayerFormats
	w, act, out, err, wgrad  *compute.Rounder
	accOut, accErr, accWGrad *compute.Rounder // quire/per-op: the format sums round to
	// wB, actB, errB round the dot products' operands block-wise along
	// each product's reduction dimension (the roles' Quantizer.Block);
	// nil where the role has no block format. Their element-wise rounders
	// above are then the identity.
	wB, actB, errB *compute.Rounder
	quire          compute.Workspace
	mask           *WeightMask          // N:M weight mask (sparse.go); nil: dense
	wc             *weightCache         // the rounded weights (wcache.go)
	perOp          [3]compute.Workspace // by role: out, err, wgrad (each keeps its format's tables)
}

func newRoles(f LayerFormats, seed uint64) *roles {
	// Each role is rounded by its Quantizer, with one random stream per
	// role (and one more per block-format role), so that adding a role
	// does not shift the others.
	mk := func(q Quantizer, stream uint64) *compute.Rounder {
		var rng *rand.PCG
		if !q.IsZero() && q.Rounding == quant.Stochastic {
			rng = rand.NewPCG(seed, stream)
		}
		return q.Rounder(rng)
	}
	// el is q's element-wise part: none for a role with a block format.
	el := func(q Quantizer) Quantizer {
		if q.Format == nil || !q.Block.IsZero() {
			return Quantizer{}
		}
		return Quantizer{Format: q.Format, Rounding: q.Rounding}
	}
	r := &roles{f: f, wc: newWeightCache(f)}
	r.w = mk(el(f.Weight), 1)
	r.act = mk(el(f.Act), 2)
	r.out = mk(el(f.Out), 3)
	r.err = mk(el(f.Err), 4)
	r.wgrad = mk(el(f.WGrad), 5)
	mkB := func(q Quantizer, stream uint64) *compute.Rounder {
		if q.Block.IsZero() {
			return nil
		}
		return mk(Quantizer{Block: q.Block, Rounding: q.Rounding}, stream)
	}
	r.wB = mkB(f.Weight, 6)
	r.actB = mkB(f.Act, 7)
	r.errB = mkB(f.Err, 8)
	if f.Accum != quant.AccumFP32 {
		acc := func(target *compute.Rounder) *compute.Rounder {
			if f.AccumFormat == nil {
				return target
			}
			return Quantizer{Format: f.AccumFormat}.Rounder(nil)
		}
		r.accOut, r.accErr, r.accWGrad = acc(r.out), acc(r.err), acc(r.wgrad)
	}
	return r
}

// mm sets c (m×n, row stride n) to op(a)·op(b), summed as the layer's
// accumulation says; acc is the format quire and per-op sums round to.
func mm[T compute.Float](r *roles, acc *compute.Rounder, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T) {
	switch r.f.Accum {
	case quant.AccumQuire:
		compute.QuireGemm(&r.quire, acc.Format(), tA, tB, m, n, k, a, lda, b, ldb, c, n)
	case quant.AccumPerOp:
		w := &r.perOp[0]
		switch acc {
		case r.accErr:
			w = &r.perOp[1]
		case r.accWGrad:
			w = &r.perOp[2]
		}
		compute.PerOpGemm(w, acc.Format(), tA, tB, m, n, k, a, lda, b, ldb, c, n)
	default:
		compute.Gemm(tA, tB, m, n, k, 1, a, lda, b, ldb, 0, c, n)
	}
}

// blockBufs hold a layer's operands rounded to block formats: for the
// forward product (x, w) and the backward ones (wb, xb and dyx, dyw: the
// error blocked for the input-gradient and weight-gradient products).
type blockBufs[T compute.Float] struct {
	x, w, wb, xb, dyx, dyw, col []T
}

// blocked returns src rounded block-wise by q (blocks along axis of the
// rows×cols matrix src) in *buf, or src itself if q is nil: the operand a
// product uses.
func blocked[T compute.Float](q *compute.Rounder, buf *[]T, src []T, rows, cols int, axis quant.Axis) []T {
	if q == nil {
		return src
	}
	*buf = grow(*buf, len(src))
	compute.RoundMatrix(q, *buf, src, rows, cols, axis)
	return *buf
}
