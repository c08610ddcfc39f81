//go:build arm64 && !purego

package quant

import "math/rand/v2"

// The NEON kernels in posit_kernel_arm64.s do what roundPositGo and
// roundPositStochGo do on 4 lanes at once. positNEON (level_arm64.go)
// chooses them, once, by CPU and CPUEnv.

// roundPositNEON rounds the n elements at src (n a multiple of 4) to dst.
// Where it cannot, it copies the input to dst and stores the element's
// index at idx. It returns the number of indices stored.
//
//go:noescape
func roundPositNEON(dst, src *float32, n int, c *positSlice, idx *int32) int

// roundPositStochNEON rounds the n elements at src (n a multiple of 4)
// stochastically to dst, lane i using the random word u[i], where the
// bracketing posits share a binade. Elsewhere it copies the input to dst
// and stores the element's index at idx. It returns the number of indices.
//
//go:noescape
func roundPositStochNEON(dst, src *float32, n int, kp *positKernel, u *uint32, idx *int32) int

// positVecChunk is how many elements a vector kernel call handles: its
// list of elements left for the slow path lives on the stack.
const positVecChunk = 1024

func roundPositSlice(dst, src []float32, p Posit) {
	if positNEON {
		roundPositVec(dst, src, p)
		return
	}
	roundPositGo(dst, src, p)
}

// roundPositVec runs the NEON kernel over src, finishes the elements it
// skips with the slow path and the tail with the portable kernel. dst may
// be src: the kernel leaves the inputs it skips in dst.
func roundPositVec(dst, src []float32, p Posit) {
	if len(src) < positShort {
		roundPositGo(dst, src, p)
		return
	}
	c := p.slice()
	dst = dst[:len(src)]
	var idx [positVecChunk]int32
	n := len(src) &^ 3
	for i := 0; i < n; i += positVecChunk {
		m := min(positVecChunk, n-i)
		cnt := roundPositNEON(&dst[i], &src[i], m, &c, &idx[0])
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
	if positNEON {
		ks = append(ks, positSliceKernel{"neon", roundPositVec})
	}
	return ks
}

func roundPositStochSlice(dst, src []float32, p Posit, rng *rand.PCG) {
	if positNEON {
		roundPositStochVec(dst, src, p, rng)
		return
	}
	roundPositStochGo(dst, src, p, rng)
}

// roundPositStochVec is roundPositStochGo on 4 lanes. It draws the same
// random words for the same elements, so the results are the same.
func roundPositStochVec(dst, src []float32, p Posit, rng *rand.PCG) {
	kp := p.kernel()
	dst = dst[:len(src)]
	var u [positVecChunk]uint32
	var idx [positVecChunk]int32
	n := len(src) &^ 3
	for i := 0; i < n; i += positVecChunk {
		m := min(positVecChunk, n-i)
		for j := 0; j < m; j += 2 {
			b := rng.Uint64()
			u[j], u[j+1] = uint32(b), uint32(b>>32)
		}
		cnt := roundPositStochNEON(&dst[i], &src[i], m, &kp, &u[0], &idx[0])
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
	if positNEON {
		ks = append(ks, positStochKernel{"neon", roundPositStochVec})
	}
	return ks
}
