//go:build openblas

package gemm

// ConvForward sets y (outC × g.Cols(), rows ldy apart) to w·Im2col(x)
// plus bias[o] on row o (bias nil: none). With OpenBLAS it packs the
// column matrix and calls Gemm: OpenBLAS makes no promise on the order of
// its sums, so there are no bits to keep (convgemm.go has the implicit
// GEMM of the default build).
func ConvForward[T Float](y []T, ldy int, w []T, outC int, x []T, g Geom, bias []T) {
	k, p := g.Rows(), g.Cols()
	if outC == 0 || p == 0 {
		return
	}
	col := make([]T, k*p)
	Im2col(col, p, x, g)
	Gemm(false, false, outC, p, k, 1, w, k, col, p, 0, y, ldy)
	if bias != nil {
		for o, b := range bias[:outC] {
			row := y[o*ldy : o*ldy+p]
			for j := range row {
				row[j] += b
			}
		}
	}
}
