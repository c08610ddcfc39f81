//go:build amd64 && !purego && !openblas

package gemm

// pick2AVX2 is pick2 on float32 rows: out[r·ow + k] = in[r·step + 2k] for
// r < rows, k < n.
//
//go:noescape
func pick2AVX2(out *float32, ow, rows, n int, in *float32, step int)

// put2AVX2 is put2 on float32 rows: img[r·step + 2k] += in[r·ow + k] for
// r < rows, k < n.
//
//go:noescape
func put2AVX2(img *float32, step int, in *float32, ow, rows, n int)

// hasIm2colAVX2 selects pick2AVX2 and put2AVX2 (useLevel).
var hasIm2colAVX2 bool

// pick2Fast runs pick2 on float32 with the level's kernel, reporting
// whether there is one. The column matrices of stride-2 layers are
// rows of 7 to 14 values picked two apart, which Go moves one at a time
// (dcgan28's first layer at batch 64, CPU time: im2col 280 → 92 µs,
// col2im 271 → 121 µs; its 64·14·14 layer: 5.1 → 3.4 ms, 5.5 → 2.8 ms).
func pick2Fast(out []float32, ow, n int, img []float32, s, step int) bool {
	if !hasIm2colAVX2 || n <= 0 || len(out) == 0 {
		return false
	}
	rows := (len(out)-n)/ow + 1
	_ = out[(rows-1)*ow+n-1]
	_ = img[s+(rows-1)*step+2*n-2]
	pick2AVX2(&out[0], ow, rows, n, &img[s], step)
	return true
}

// put2Fast runs put2 on float32 with the level's kernel, reporting whether
// there is one.
func put2Fast(img []float32, d, step int, in []float32, ow, n int) bool {
	// Rows of four or fewer terms (a 7×7 image's) run as fast in Go.
	if !hasIm2colAVX2 || n <= 4 || len(in) == 0 {
		return false
	}
	rows := (len(in)-n)/ow + 1
	_ = in[(rows-1)*ow+n-1]
	_ = img[d+(rows-1)*step+2*n-2]
	put2AVX2(&img[d], step, &in[0], ow, rows, n)
	return true
}

// col2im42AVX2 sets the 2oh × 2ow plane img to the col2im of the 16 rows
// src + t·ld (t = 4ky + kx, oh·ow entries each) of one channel of one
// image under a 4×4 kernel with stride 2 and padding 1.
//
//go:noescape
func col2im42AVX2(img *float32, oh, ow int, src *float32, ld int)

// col2im42Fast runs col2im42 on float32 with the level's kernel,
// reporting whether there is one. Each pixel of these layers has four
// terms, which col2imChan adds with sixteen put2 calls over rows of 7 or
// 14, reading and writing the plane sixteen times; the kernel sums each
// pixel's terms in registers and writes it once.
func col2im42Fast(img []float32, oh, ow int, src []float32, ld int) bool {
	if !hasIm2colAVX2 || oh <= 0 || ow <= 0 {
		return false
	}
	_ = img[4*oh*ow-1]
	_ = src[15*ld+oh*ow-1]
	col2im42AVX2(&img[0], oh, ow, &src[0], ld)
	return true
}

// padRowsAVX2 writes h rows of wp pixels, wp apart, at dst: pw zeros,
// the w pixels of a row of src (rows w apart), and zeros.
//
//go:noescape
func padRowsAVX2(dst, src *float32, w, h, pw, wp int)

// padRowsFast runs padRows on float32 with the level's kernel, reporting
// whether there is one. Go moved the pixels of PadImages one at a time
// (rows of 14 or 28 between one-pixel borders).
func padRowsFast(dst []float32, wp int, src []float32, w, h, pw int) bool {
	if !hasIm2colAVX2 || h <= 0 || w <= 0 || pw < 0 || wp < w+pw {
		return false
	}
	_ = dst[(h-1)*wp+wp-1]
	_ = src[(h-1)*w+w-1]
	padRowsAVX2(&dst[0], &src[0], w, h, pw, wp)
	return true
}

// col2imWholeAVX2 sets dst[(8b+i)·ldd + j] = 0 + src[j·lds + 8b+i] for
// i, j < 8 and b < blocks.
//
//go:noescape
func col2imWholeAVX2(dst *float32, ldd int, src *float32, lds, blocks int)

// col2imWholeFast runs col2imWhole on float32 rows [r0, r1) of the column
// matrix with the level's kernel, eight rows by eight images at a time,
// and returns the rows and images it did (the rest is left to Go): the
// Go loop reads the column matrix n values apart, one at a time.
func col2imWholeFast(dst, src []float32, n, r, r0, r1 int) (rows, imgs int) {
	if !hasIm2colAVX2 || n < 8 || r1-r0 < 8 {
		return 0, 0
	}
	rows, imgs = (r1-r0)&^7, n&^7
	_ = dst[(imgs-1)*r+r0+rows-1]
	_ = src[(r0+rows-1)*n+imgs-1]
	for q := r0; q < r0+rows; q += 8 {
		col2imWholeAVX2(&dst[q], r, &src[q*n], n, imgs/8)
	}
	return rows, imgs
}
