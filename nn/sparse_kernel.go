package nn

import (
	"math"

	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/sparsity"
)

// The fast path of the layers' N:M weight masks: the abs score on float32
// weights with blocks of 2, 4, 8 or 16 along rows (every Linear and
// convolution, the patterns of the sparsity table), masked and applied in
// one pass by the AVX-512 or AVX2 kernels of sparse_amd64.s, as
// sparseLevel says. It gives the bits of sparsity.MaskAbs followed by
// sparsity.Apply; everything else takes that generic path.

// maskTable drives maskAbsAVX512 and maskAbsAVX2 for one pattern: for
// each rotation r of 1..M−1, the lanes idx that lane a of a 16-value
// chunk compares with (the value r places further round a's block) and
// tie, 1 where that value has the lower index (so wins ties), 0
// elsewhere. The AVX2 kernel holds a chunk in two 8-lane halves: idx's
// low three bits are the lane within a half, bit 3 the half.
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

// sparseFast reports whether a mask kernel runs (sparseLevel is above
// generic).
func sparseFast() bool { return sparseLevel > quant.LevelGeneric }

// hasMaskKernel reports whether maskApply32 has a kernel for p along
// axis (if sparseFast).
func hasMaskKernel(p sparsity.Pattern, axis sparsity.Axis) bool {
	return axis == sparsity.AlongRow && !p.IsDense() &&
		(p.M == 2 || p.M == 4 || p.M == 8 || p.M == 16)
}

// maskApply32 sets keep to the abs N:M mask of the rows × cols weights w
// and y to w masked (y may be w), with the table t of p, and returns the
// number of zeros (±0) in y; hasMaskKernel(p, AlongRow) must hold. Rows
// whose length is a multiple of M put every block of the matrix end to
// end, so the kernel runs once over it; otherwise once per row, each row
// ending with a partial block. At the generic level it runs
// sparsity.MaskAbs and Apply.
func maskApply32(keep []bool, y, w []float32, rows, cols int, t *maskTable, m int) (zeros int) {
	n := rows * cols
	if len(keep) != n || len(y) != n || len(w) != n {
		panic("nn: sparse mask: slice lengths differ")
	}
	if n == 0 {
		return 0
	}
	if !sparseFast() {
		sparsity.MaskAbs(keep, w, rows, cols, sparsity.Pattern{N: int(t.n), M: m}, sparsity.AlongRow)
		sparsity.Apply(y, w, keep)
		for _, v := range y {
			if v == 0 {
				zeros++
			}
		}
		return zeros
	}
	if cols%m == 0 {
		return n - maskAbs32(keep, y, w, t)
	}
	zeros = n
	for r := range rows {
		o := r * cols
		zeros -= maskAbs32(keep[o:o+cols], y[o:o+cols], w[o:o+cols], t)
	}
	return zeros
}

// maskAbs32 runs the kernel of sparseLevel on w, blocks end to end, and
// returns how many values of y are not ±0.
func maskAbs32(keep []bool, y, w []float32, t *maskTable) (nonzero int) {
	if sparseLevel >= quant.LevelAVX512 {
		return maskAbsAVX512(&keep[0], &y[0], &w[0], len(w), t)
	}
	whole := len(w) &^ 15
	if whole > 0 {
		nonzero = maskAbsAVX2(&keep[0], &y[0], &w[0], whole, t)
	}
	rest := len(w) - whole
	if rest == 0 {
		return nonzero
	}
	// The cut chunk runs on a copy padded with NaN, whose key (0) never
	// beats a value of the chunk: those have a key ≥ 0 and a lower index.
	// So the values' ranks are those they have without the padding.
	var wb, yb [16]float32
	var kb [16]bool
	nan := float32(math.NaN())
	for i := range wb {
		wb[i] = nan
	}
	copy(wb[:], w[whole:])
	maskAbsAVX2(&kb[0], &yb[0], &wb[0], 16, t)
	copy(keep[whole:], kb[:rest])
	copy(y[whole:], yb[:rest])
	for _, v := range yb[:rest] {
		if v != 0 {
			nonzero++
		}
	}
	return nonzero
}

// apply32 sets dst to src where keep and to +0 elsewhere, as
// sparsity.Apply; dst may be src.
func apply32(dst, src []float32, keep []bool) {
	if !sparseFast() || len(dst) == 0 {
		sparsity.Apply(dst, src, keep)
		return
	}
	if len(dst) != len(src) || len(keep) != len(src) {
		panic("nn: sparse mask: slice lengths differ")
	}
	if sparseLevel >= quant.LevelAVX512 {
		applyMaskAVX512(&dst[0], &src[0], &keep[0], len(dst))
		return
	}
	whole := len(dst) &^ 7
	if whole > 0 {
		applyMaskAVX2(&dst[0], &src[0], &keep[0], whole)
	}
	sparsity.Apply(dst[whole:], src[whole:], keep[whole:])
}
