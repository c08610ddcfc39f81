package compute

import "github.com/positgan/positgan/internal/gemm"

// ConvForward sets y, the outC × g.Cols() output of one C×H×W image x
// (rows ldy apart), to w·Im2col(x) plus bias[o] on row o (bias nil:
// none), for the outC × g.Rows() weights w, without building the column
// matrix, and reports true; the bits are those of Im2colBatch, Gemm (α 1,
// β 0) and AddBias. It reports false, doing nothing, when the backend in
// use is not CPU: the caller then packs the columns and calls Gemm.
func ConvForward[T Float](y []T, ldy int, w []T, outC int, x []T, g Geom, bias []T) bool {
	if _, ok := impl.(CPU); !ok {
		return false
	}
	gemm.ConvForward(y, ldy, w, outC, x, g, bias)
	return true
}
