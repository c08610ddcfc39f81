package imageio

// The hot loops of JPEG decoding, each a transcription of libjpeg's C
// (libjpeg-turbo 2.1, whose SIMD versions give the same results on the
// values real files produce): the islow IDCT of jidctint.c, the fancy
// upsamplers of jdsample.c and the YCbCr→RGB tables of jdcolor.c.

// Fixed-point constants of jidctint.c: FIX(x) = round(x·2^13).
const (
	idctConstBits = 13
	idctPass1Bits = 2

	fix0_298631336 = 2446
	fix0_390180644 = 3196
	fix0_541196100 = 4433
	fix0_765366865 = 6270
	fix0_899976223 = 7373
	fix1_175875602 = 9633
	fix1_501321110 = 12299
	fix1_847759065 = 15137
	fix1_961570560 = 16069
	fix2_053119869 = 16819
	fix2_562915447 = 20995
	fix3_072711026 = 25172
)

// descale is libjpeg's DESCALE: x/2^n rounded half up (arithmetic shift).
func descale(x int32, n uint) int32 { return (x + 1<<(n-1)) >> n }

// idctSample level-shifts and clamps an IDCT output to [0, 255], as
// libjpeg-turbo's SIMD IDCT does (saturating packs; the C code's range
// table gives the same for |x| < 512, all that valid data produces).
func idctSample(x int32) byte {
	x += 128
	if x < 0 {
		return 0
	}
	if x > 255 {
		return 255
	}
	return byte(x)
}

// idctIslow is jpeg_idct_islow: b holds dequantized coefficients in
// natural order; the 8×8 samples go to dst, stride apart. b is used as
// the work array.
func idctIslow(dst []byte, stride int, b *block) {
	// Pass 1: columns, results scaled up by 2^PASS1_BITS.
	for c := 0; c < 8; c++ {
		if b[8+c] == 0 && b[16+c] == 0 && b[24+c] == 0 && b[32+c] == 0 &&
			b[40+c] == 0 && b[48+c] == 0 && b[56+c] == 0 {
			dc := b[c] << idctPass1Bits
			for r := 0; r < 8; r++ {
				b[8*r+c] = dc
			}
			continue
		}
		z2, z3 := b[16+c], b[48+c]
		z1 := (z2 + z3) * fix0_541196100
		tmp2 := z1 - z3*fix1_847759065
		tmp3 := z1 + z2*fix0_765366865
		z2, z3 = b[c], b[32+c]
		tmp0 := (z2 + z3) << idctConstBits
		tmp1 := (z2 - z3) << idctConstBits
		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2

		tmp0, tmp1, tmp2, tmp3 = b[56+c], b[40+c], b[24+c], b[8+c]
		o0, o1, o2, o3 := idctOdd(tmp0, tmp1, tmp2, tmp3)

		const n = idctConstBits - idctPass1Bits
		b[c] = descale(tmp10+o3, n)
		b[56+c] = descale(tmp10-o3, n)
		b[8+c] = descale(tmp11+o2, n)
		b[48+c] = descale(tmp11-o2, n)
		b[16+c] = descale(tmp12+o1, n)
		b[40+c] = descale(tmp12-o1, n)
		b[24+c] = descale(tmp13+o0, n)
		b[32+c] = descale(tmp13-o0, n)
	}
	// Pass 2: rows, descaled by 8 and 2^PASS1_BITS.
	for r := 0; r < 8; r++ {
		w := b[8*r : 8*r+8 : 8*r+8]
		out := dst[r*stride : r*stride+8 : r*stride+8]
		// libjpeg short-cuts a row of zero AC terms; the full
		// computation gives the same values (tmp0 = w0·2^13 and the
		// rest 0, so each output is descale(w0, 5)).
		if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
			v := idctSample(descale(w[0], idctPass1Bits+3))
			for i := range out {
				out[i] = v
			}
			continue
		}
		z2, z3 := w[2], w[6]
		z1 := (z2 + z3) * fix0_541196100
		tmp2 := z1 - z3*fix1_847759065
		tmp3 := z1 + z2*fix0_765366865
		tmp0 := (w[0] + w[4]) << idctConstBits
		tmp1 := (w[0] - w[4]) << idctConstBits
		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2
		o0, o1, o2, o3 := idctOdd(w[7], w[5], w[3], w[1])

		const n = idctConstBits + idctPass1Bits + 3
		out[0] = idctSample(descale(tmp10+o3, n))
		out[7] = idctSample(descale(tmp10-o3, n))
		out[1] = idctSample(descale(tmp11+o2, n))
		out[6] = idctSample(descale(tmp11-o2, n))
		out[2] = idctSample(descale(tmp12+o1, n))
		out[5] = idctSample(descale(tmp12-o1, n))
		out[3] = idctSample(descale(tmp13+o0, n))
		out[4] = idctSample(descale(tmp13-o0, n))
	}
}

// idctOdd is the odd part of jidctint.c (figure 8 of the LL&M paper):
// inputs y7, y5, y3, y1, outputs tmp0..tmp3.
func idctOdd(tmp0, tmp1, tmp2, tmp3 int32) (int32, int32, int32, int32) {
	z1 := tmp0 + tmp3
	z2 := tmp1 + tmp2
	z3 := tmp0 + tmp2
	z4 := tmp1 + tmp3
	z5 := (z3 + z4) * fix1_175875602
	tmp0 *= fix0_298631336
	tmp1 *= fix2_053119869
	tmp2 *= fix3_072711026
	tmp3 *= fix1_501321110
	z1 *= -fix0_899976223
	z2 *= -fix2_562915447
	z3 *= -fix1_961570560
	z4 *= -fix0_390180644
	z3 += z5
	z4 += z5
	return tmp0 + z1 + z3, tmp1 + z2 + z4, tmp2 + z2 + z3, tmp3 + z1 + z4
}

// upsampleH2V1 is h2v1_fancy_upsample on one row: in has n > 2 samples,
// out gets 2n, each the triangle filter ¾·nearer + ¼·further with the
// rounding biases alternating 1 and 2 (so that no direction is favoured).
func upsampleH2V1(out, in []byte, n int) {
	out = out[:2*n]
	v := int(in[0])
	out[0] = byte(v)
	out[1] = byte((v*3 + int(in[1]) + 2) >> 2)
	for i := 1; i < n-1; i++ {
		v := int(in[i]) * 3
		out[2*i] = byte((v + int(in[i-1]) + 1) >> 2)
		out[2*i+1] = byte((v + int(in[i+1]) + 2) >> 2)
	}
	v = int(in[n-1])
	out[2*n-2] = byte((v*3 + int(in[n-2]) + 1) >> 2)
	out[2*n-1] = byte(v)
}

// upsampleH2V2 is one output row of h2v2_fancy_upsample: in is the input
// row, near the row above (for the upper output row) or below (the lower
// one); vertically ¾·in + ¼·near, then horizontally as upsampleH2V1, in
// one fixed-point step with biases 8 and 7. n > 2.
func upsampleH2V2(out, in, near []byte, n int) {
	out = out[:2*n]
	this := int(in[0])*3 + int(near[0])
	next := int(in[1])*3 + int(near[1])
	out[0] = byte((this*4 + 8) >> 4)
	out[1] = byte((this*3 + next + 7) >> 4)
	last := this
	this = next
	for i := 1; i < n-1; i++ {
		next = int(in[i+1])*3 + int(near[i+1])
		out[2*i] = byte((this*3 + last + 8) >> 4)
		out[2*i+1] = byte((this*3 + next + 7) >> 4)
		last, this = this, next
	}
	out[2*n-2] = byte((this*3 + last + 8) >> 4)
	out[2*n-1] = byte((this*4 + 7) >> 4)
}

// upsampleH1V2 is one output row of h1v2_fancy_upsample: ¾·in + ¼·near
// with bias 1 for the upper output row and 2 for the lower.
func upsampleH1V2(out, in, near []byte, n int, bias int) {
	out, in, near = out[:n], in[:n], near[:n]
	for i := range out {
		out[i] = byte((int(in[i])*3 + int(near[i]) + bias) >> 2)
	}
}

// yccTables are jdcolor.c's build_ycc_rgb_table: 16-bit fixed point,
// FIX(x) = round(x·2^16).
type yccTables struct {
	crR, cbB [256]int32
	crG, cbG [256]int32 // not yet shifted
}

func newYCCTables() *yccTables {
	const (
		scaleBits = 16
		oneHalf   = 1 << (scaleBits - 1)
	)
	fix := func(x float64) int32 { return int32(x*(1<<scaleBits) + 0.5) }
	t := &yccTables{}
	for i := range 256 {
		x := int32(i - 128)
		t.crR[i] = (fix(1.40200)*x + oneHalf) >> scaleBits
		t.cbB[i] = (fix(1.77200)*x + oneHalf) >> scaleBits
		t.crG[i] = -fix(0.71414) * x
		t.cbG[i] = -fix(0.34414)*x + oneHalf
	}
	return t
}

func clamp255(x int32) byte {
	if x < 0 {
		return 0
	}
	if x > 255 {
		return 255
	}
	return byte(x)
}

// yccRow converts n pixels of full-size Y, Cb, Cr rows to RGB, 3 bytes
// a pixel, as ycc_rgb_convert.
func (t *yccTables) yccRow(rgb, y, cb, cr []byte, n int) {
	rgb, y, cb, cr = rgb[:3*n], y[:n], cb[:n], cr[:n]
	for i := range y {
		l, b, r := int32(y[i]), cb[i], cr[i]
		rgb[3*i] = clamp255(l + t.crR[r])
		rgb[3*i+1] = clamp255(l + (t.cbG[b]+t.crG[r])>>16)
		rgb[3*i+2] = clamp255(l + t.cbB[b])
	}
}

// block is one 8×8 block of coefficients or samples, in natural order
// (row-major) unless said otherwise.
type block [blockSize]int32

const blockSize = 8 * 8

// cmykToRGB is PIL's cmyk2rgb (Convert.c): each colour is
// nk − c·nk/255 with nk = 255 − k, the product rounded as MULDIV255.
func cmykToRGB(out []byte, c, m, y, k byte) {
	nk := 255 - int(k)
	muldiv := func(a int) int { t := a*nk + 128; return ((t >> 8) + t) >> 8 }
	out[0] = byte(min(max(nk-muldiv(int(c)), 0), 255))
	out[1] = byte(min(max(nk-muldiv(int(m)), 0), 255))
	out[2] = byte(min(max(nk-muldiv(int(y)), 0), 255))
	out[3] = 255
}
