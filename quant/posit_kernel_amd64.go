//go:build amd64 && !purego

package quant

import "math/rand/v2"

// The vector kernels in posit_kernel_amd64.s do what roundPositGo does on
// 8 (AVX2) or 16 (AVX-512) lanes at once. positAVX2 and positAVX512
// (level_amd64.go) choose them, once, by CPU and CPUEnv.

// roundPositAVX2 and roundPositAVX512 round the n elements at src (n a
// multiple of 8 or 16) to dst. Where they cannot, they copy the input to
// dst and store the element's index at idx. They return the number of
// indices stored.
//
//go:noescape
func roundPositAVX2(dst, src *float32, n int, c *positSlice, idx *int32) int

//go:noescape
func roundPositAVX512(dst, src *float32, n int, c *positSlice, idx *int32) int

// roundPositAVX512T is roundPositAVX512 with a fast path that looks up
// 2^drop-1 by binade in t (positSlice.lowTable) rather than computing
// drop: ten instructions a block instead of fifteen.
//
//go:noescape
func roundPositAVX512T(dst, src *float32, n int, c *positSlice, t *[32]uint32, idx *int32) int

// roundPositStochAVX512 rounds the n elements at src (n a multiple of 16)
// stochastically to dst, lane i using the random word u[i], where the
// bracketing posits share a binade. Elsewhere it copies the input to dst
// and stores the element's index at idx. It returns the number of indices.
//
//go:noescape
func roundPositStochAVX512(dst, src *float32, n int, kp *positKernel, u *uint32, idx *int32) int

// roundPositStochAVX2 is roundPositStochAVX512 on 8 lanes (n a multiple
// of 8).
//
//go:noescape
func roundPositStochAVX2(dst, src *float32, n int, kp *positKernel, u *uint32, idx *int32) int

// positVecChunk is how many elements a vector kernel call handles: its
// list of elements left for the slow path lives on the stack.
const positVecChunk = 1024

func roundPositSlice(dst, src []float32, p Posit) {
	switch {
	case positAVX512:
		roundPositVec(dst, src, p, true, true)
	case positAVX2:
		roundPositVec(dst, src, p, false, false)
	default:
		roundPositGo(dst, src, p)
	}
}

// roundPositVec runs a vector kernel over src, finishes the elements it
// skips with the slow path and the tail with the portable kernel. dst may
// be src: the kernels leave the inputs they skip in dst. With avx512 and
// table, the AVX-512 kernel looks drop up where the format allows
// (positSlice.lowTable).
func roundPositVec(dst, src []float32, p Posit, avx512, table bool) {
	if len(src) < positShort {
		roundPositGo(dst, src, p)
		return
	}
	c := p.slice()
	dst = dst[:len(src)]
	width := 8
	var tbl [32]uint32
	useTbl := false
	if avx512 {
		width = 16
		if table {
			tbl, useTbl = c.lowTable()
		}
	}
	var idx [positVecChunk]int32
	n := len(src) &^ (width - 1)
	for i := 0; i < n; i += positVecChunk {
		m := min(positVecChunk, n-i)
		var cnt int
		switch {
		case useTbl:
			cnt = roundPositAVX512T(&dst[i], &src[i], m, &c, &tbl, &idx[0])
		case avx512:
			cnt = roundPositAVX512(&dst[i], &src[i], m, &c, &idx[0])
		default:
			cnt = roundPositAVX2(&dst[i], &src[i], m, &c, &idx[0])
		}
		d := dst[i : i+m]
		for _, j := range idx[:cnt] {
			d[j] = p.roundSlow(d[j])
		}
	}
	roundPositGo(dst[n:], src[n:], p)
}

// positKernels lists the RoundSlice kernels this machine can run at the
// level in use, so that tests and benchmarks can reach each of them.
func positKernels() []positSliceKernel {
	ks := []positSliceKernel{{"go", roundPositGo}}
	if positAVX2 {
		ks = append(ks, positSliceKernel{"avx2", func(dst, src []float32, p Posit) {
			roundPositVec(dst, src, p, false, false)
		}})
	}
	if positAVX512 {
		ks = append(ks, positSliceKernel{"avx512", func(dst, src []float32, p Posit) {
			roundPositVec(dst, src, p, true, true)
		}}, positSliceKernel{"avx512-computed", func(dst, src []float32, p Posit) {
			roundPositVec(dst, src, p, true, false)
		}})
	}
	return ks
}

func roundPositStochSlice(dst, src []float32, p Posit, rng *rand.PCG) {
	switch {
	case positAVX512:
		roundPositStochVec(dst, src, p, rng, true)
	case positAVX2:
		roundPositStochVec(dst, src, p, rng, false)
	default:
		roundPositStochGo(dst, src, p, rng)
	}
}

// roundPositStochVec is roundPositStochGo on 16 lanes (AVX-512) or 8. It
// draws the same random words for the same elements, so the results are
// the same.
func roundPositStochVec(dst, src []float32, p Posit, rng *rand.PCG, avx512 bool) {
	kp := p.kernel()
	dst = dst[:len(src)]
	var u [positVecChunk]uint32
	var idx [positVecChunk]int32
	width := 8
	if avx512 {
		width = 16
	}
	n := len(src) &^ (width - 1)
	for i := 0; i < n; i += positVecChunk {
		m := min(positVecChunk, n-i)
		for j := 0; j < m; j += 2 {
			b := rng.Uint64()
			u[j], u[j+1] = uint32(b), uint32(b>>32)
		}
		var cnt int
		if avx512 {
			cnt = roundPositStochAVX512(&dst[i], &src[i], m, &kp, &u[0], &idx[0])
		} else {
			cnt = roundPositStochAVX2(&dst[i], &src[i], m, &kp, &u[0], &idx[0])
		}
		d := dst[i : i+m]
		for _, j := range idx[:cnt] {
			d[j] = p.roundStochSlow(d[j], u[j])
		}
	}
	roundPositStochGo(dst[n:], src[n:], p, rng) // n is even: the pairing holds
}

// positStochKernels lists the RoundSliceStochastic kernels this machine
// can run at the level in use.
func positStochKernels() []positStochKernel {
	ks := []positStochKernel{{"go", roundPositStochGo}}
	if positAVX2 {
		ks = append(ks, positStochKernel{"avx2", func(dst, src []float32, p Posit, rng *rand.PCG) {
			roundPositStochVec(dst, src, p, rng, false)
		}})
	}
	if positAVX512 {
		ks = append(ks, positStochKernel{"avx512", func(dst, src []float32, p Posit, rng *rand.PCG) {
			roundPositStochVec(dst, src, p, rng, true)
		}})
	}
	return ks
}
