package nn

import (
	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// bandBytes bounds the column matrix an inference convolution packs at
// once. A convolution of a large image packs K·K times its input: 822 MB
// for the last 7×7 layer of a 256×256 CycleGAN generator, 600 MB for a
// 3×3 layer of 64 channels at 512×512. Without a gradient to compute
// (conv_scratch.go), nothing reads the columns after the product, so
// convForward packs such an image a band of output rows at a time, each
// multiplied into its columns of the output.
const bandBytes = 32 << 20

// bandRows returns how many output rows convForward packs at a time, or 0
// to pack the whole batch at once (as always unless the node lends its
// buffers: a graph node without a gradient). Bands change no bit: the column matrices hold the same
// values, and each output of this module's float32 GEMM is one chain of
// FMAs over its sum whatever the other columns of the call (colChunk);
// so bands are used only there: fp32 accumulation, no block formats, not
// OpenBLAS.
func bandRows[T compute.Float](st *convState) int {
	r, g := st.roles, st.g
	_, f32 := any(T(0)).(float32)
	if !st.lend || !f32 || r.f.Accum != quant.AccumFP32 || r.actB != nil || r.wB != nil || compute.Name() == "openblas" {
		return 0
	}
	if st.band > 0 {
		return min(st.band, g.OH)
	}
	perRow := 4 * g.Rows() * g.OW // bytes of columns per output row
	if st.batch*g.OH*perRow <= 2*bandBytes {
		return 0
	}
	return max(1, min(g.OH, bandBytes/perRow))
}

// convForwardBands sets y to W·col(x) plus the bias for the rounded input
// xq and weights wq, image by image and band by band of rows output rows:
// each band's input rows, padded, are copied into bb.yt (unused here), packed
// into bb.col and multiplied into the band's columns of y.
func convForwardBands[T compute.Float](st *convState, bb *convBufs[T], xq, wq, bias, y []T, rows int) {
	g := st.g
	wp, hw, k, p := g.W+2*g.PW, g.H*g.W, g.Rows(), g.Cols()
	for b := range st.batch {
		img := xq[b*g.C*hw : (b+1)*g.C*hw]
		yb := y[b*st.outC*p : (b+1)*st.outC*p]
		for r0 := 0; r0 < g.OH; r0 += rows {
			r1 := min(r0+rows, g.OH)
			bh := (r1-1-r0)*g.SH + g.KH
			// The band's rows of the padded image, without padding of its
			// own: (bh - KH)/SH + 1 = r1 - r0 rows and, as wp = W + 2·PW,
			// the OW columns of g.
			gb := compute.Geom{C: g.C, H: bh, W: wp, KH: g.KH, KW: g.KW, SH: g.SH, SW: g.SW, OH: r1 - r0, OW: g.OW}
			bb.yt = grow(bb.yt, g.C*bh*wp)
			for c := range g.C {
				for i := range bh {
					dst := bb.yt[(c*bh+i)*wp : (c*bh+i+1)*wp]
					sy := r0*g.SH + i - g.PH
					if sy < 0 || sy >= g.H {
						clear(dst)
						continue
					}
					clear(dst[:g.PW])
					copy(dst[g.PW:g.PW+g.W], img[c*hw+sy*g.W:c*hw+(sy+1)*g.W])
					clear(dst[g.PW+g.W:])
				}
			}
			bp := gb.Cols()
			bb.col = grow(bb.col, k*bp)
			compute.Im2colBatch(bb.col, bb.yt, 1, gb)
			compute.Gemm(false, false, st.outC, bp, k, 1, wq, k, bb.col, bp, 0, yb[r0*g.OW:], p)
		}
	}
	if bias != nil {
		compute.AddBias(y, bias, st.batch, p)
	}
}

// directConv reports whether convForward runs the implicit GEMM
// (compute.ConvForward): for a node without a gradient, under the
// conditions of bandRows (the same chains of FMAs), unless a test asks for
// bands, and for images of at least chunkCols output positions. A node
// with a gradient packs its columns, which convBackW reads again. Smaller
// images (a 28×28 DCGAN's generator inside its discriminator's update)
// run faster as one product over the whole batch: the implicit GEMM goes
// image by image, and their rows are shorter than its panels (dcgan64's
// fp32 step took 17% longer with it).
func directConv[T compute.Float](st *convState) bool {
	r := st.roles
	_, f32 := any(T(0)).(float32)
	return st.lend && st.band == 0 && f32 && r.f.Accum == quant.AccumFP32 && r.actB == nil && r.wB == nil &&
		compute.Name() != "openblas" && st.g.Cols() >= chunkCols
}

// convForwardDirect sets y to W·col(x) plus the bias for the rounded input
// xq and weights wq, image by image, with the implicit GEMM; it reports
// false, writing nothing, where the backend has none.
func convForwardDirect[T compute.Float](st *convState, xq, wq, bias, y []T) bool {
	g := st.g
	img, p := g.C*g.H*g.W, g.Cols()
	for b := range st.batch {
		if !compute.ConvForward(y[b*st.outC*p:(b+1)*st.outC*p], p, wq, st.outC, xq[b*img:(b+1)*img], g, bias) {
			return false
		}
	}
	return true
}
