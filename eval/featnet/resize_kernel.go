package featnet

// resizePlane interpolates one plane: h0·(w0·a + w1·b) + h1·(w0·c + w1·d),
// the order of PyTorch's CPU kernel. The float32 conversions round every
// product, so that no platform fuses them into multiply-adds.
func resizePlane(dst, src []float32, w int, ys, xs []tap) {
	ow := len(xs)
	for oy, ty := range ys {
		r0, r1 := src[ty.i0*w:(ty.i0+1)*w], src[ty.i1*w:(ty.i1+1)*w]
		d := dst[oy*ow : (oy+1)*ow]
		for ox, tx := range xs {
			t0 := float32(tx.w0*r0[tx.i0]) + float32(tx.w1*r0[tx.i1])
			t1 := float32(tx.w0*r1[tx.i0]) + float32(tx.w1*r1[tx.i1])
			d[ox] = float32(ty.w0*t0) + float32(ty.w1*t1)
		}
	}
}
