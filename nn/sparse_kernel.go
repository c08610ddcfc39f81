package nn

import (
	"github.com/positgan/positgan/sparsity"
)

// The fast path of the layers' N:M weight masks: the abs score on float32
// weights with blocks of 2, 4, 8 or 16 along rows (every Linear and
// convolution, the patterns of the sparsity table), masked and applied in
// one pass by the AVX-512 kernels of sparse_amd64.s. It gives the bits of
// sparsity.MaskAbs followed by sparsity.Apply; everything else takes
// that generic path.

// maskTable drives maskAbsAVX512 for one pattern: for each rotation r of
// 1..M−1, the lanes idx that lane a of a 16-value chunk compares with (the
// value r places further round a's block) and tie, 1 where that value has
// the lower index (so wins ties), 0 elsewhere.
type maskTable struct {
	rot   [sparsity.MaxM - 1]struct{ idx, tie [16]int32 }
	n     int32 // values kept per block
	count int32 // rotations: M − 1
}

// newMaskTable returns the table of p, whose M divides 16.
func newMaskTable(p sparsity.Pattern) *maskTable {
	t := &maskTable{n: int32(p.N), count: int32(p.M - 1)}
	for r := 1; r < p.M; r++ {
		for a := range 16 {
			base, pos := a-a%p.M, a%p.M
			t.rot[r-1].idx[a] = int32(base + (pos+r)%p.M)
			if pos+r >= p.M {
				t.rot[r-1].tie[a] = 1
			}
		}
	}
	return t
}

// hasMaskKernel reports whether maskApply32 has a kernel for p along
// axis (if sparseAVX512).
func hasMaskKernel(p sparsity.Pattern, axis sparsity.Axis) bool {
	return axis == sparsity.AlongRow && !p.IsDense() &&
		(p.M == 2 || p.M == 4 || p.M == 8 || p.M == 16)
}

// maskApply32 sets keep to the abs N:M mask of the rows × cols weights w
// and y to w masked (y may be w), with the table t of p, and returns the
// number of zeros (±0) in y; hasMaskKernel(p, AlongRow) must hold. Rows
// whose length is a multiple of M put every block of the matrix end to
// end, so the kernel runs once over it; otherwise once per row, each row
// ending with a partial block.
func maskApply32(keep []bool, y, w []float32, rows, cols int, t *maskTable, m int) (zeros int) {
	n := rows * cols
	if len(keep) != n || len(y) != n || len(w) != n {
		panic("nn: sparse mask: slice lengths differ")
	}
	if n == 0 {
		return 0
	}
	if cols%m == 0 {
		return n - maskAbsAVX512(&keep[0], &y[0], &w[0], n, t)
	}
	zeros = n
	for r := range rows {
		o := r * cols
		zeros -= maskAbsAVX512(&keep[o], &y[o], &w[o], cols, t)
	}
	return zeros
}

// apply32 sets dst to src where keep and to +0 elsewhere, as
// sparsity.Apply; dst may be src.
func apply32(dst, src []float32, keep []bool) {
	if !sparseAVX512 || len(dst) == 0 {
		sparsity.Apply(dst, src, keep)
		return
	}
	if len(dst) != len(src) || len(keep) != len(src) {
		panic("nn: sparse mask: slice lengths differ")
	}
	applyMaskAVX512(&dst[0], &src[0], &keep[0], len(dst))
}
