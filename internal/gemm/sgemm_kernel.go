package gemm

import (
	"math"
	"unsafe"
)

// The micro-kernel contract (sgemm_gen.go has the assembly ones): one
// mr×nr tile of C from k steps of a (mr values a step, as elements apart)
// and b (nr values a step, bs elements apart),
//
//	acc[i][j] = load ? c[i·ldc+j] : 0
//	acc[i][j] = fma(a[l·as+i], b[l·bs+j], acc[i][j])  for l = 0, 1, …, k-1
//	c[i·ldc+j] = alpha·acc[i][j]                           if beta == 0 (c not read)
//	c[i·ldc+j] = fma(alpha, acc[i][j], beta·c[i·ldc+j])     otherwise
//
// with fma rounded once to T. Each element of C is one chain of FMAs
// in the order of l whatever the kernel, tile shape, blocking or thread,
// so every kernel gives the same bits.
type kernelFunc[T Float] func(k int, a *T, as int, b *T, bs int, c *T, ldc int, alpha, beta T, load bool)

// The portable kernel's tile.
const (
	mrGo = 4
	nrGo = 4
)

// kernelGo is the portable micro-kernel, a mrGo×nrGo tile.
func kernelGo[T Float](k int, a *T, as int, b *T, bs int, c *T, ldc int, alpha, beta T, load bool) {
	av := unsafe.Slice(a, (k-1)*as+mrGo)
	bv := unsafe.Slice(b, (k-1)*bs+nrGo)
	cv := unsafe.Slice(c, (mrGo-1)*ldc+nrGo)
	var acc [mrGo][nrGo]T
	if load {
		for i := range acc {
			copy(acc[i][:], cv[i*ldc:i*ldc+nrGo])
		}
	}
	for l := 0; l < k; l++ {
		ar := av[l*as : l*as+mrGo]
		br := bv[l*bs : l*bs+nrGo]
		for i, x := range ar {
			for j, y := range br {
				if unsafe.Sizeof(x) == 8 {
					// fmaT does not inline: math.FMA here is one
					// instruction instead of a call (7× faster).
					acc[i][j] = T(math.FMA(float64(x), float64(y), float64(acc[i][j])))
				} else {
					acc[i][j] = fmaT(x, y, acc[i][j])
				}
			}
		}
	}
	for i := range acc {
		row := cv[i*ldc : i*ldc+nrGo]
		storeRow(row, acc[i][:], alpha, beta)
	}
}

// storeRow is the kernels' epilogue for one row: dst = alpha·acc, or
// fma(alpha, acc, beta·dst) when beta is not zero.
func storeRow[T Float](dst, acc []T, alpha, beta T) {
	acc = acc[:len(dst)]
	if beta == 0 {
		for j, v := range acc {
			dst[j] = alpha * v
		}
		return
	}
	for j, v := range acc {
		dst[j] = fmaT(alpha, v, beta*dst[j])
	}
}

// fmaT returns x·y+z rounded once to T. The size test is resolved when
// each instance is compiled.
func fmaT[T Float](x, y, z T) T {
	if unsafe.Sizeof(x) == 4 {
		return T(fma32(float32(x), float32(y), float32(z)))
	}
	return T(math.FMA(float64(x), float64(y), float64(z)))
}

// fma32 returns x·y+z rounded once to float32, as VFMADD231PS does. The
// product is exact in float64; the sum is rounded to float64 with round to
// odd (53 ≥ 24+2 bits), which makes the final rounding to float32 correct.
func fma32(x, y, z float32) float32 {
	p := float64(float64(x) * float64(y)) // float64(…): never fused with the sums below on arm64
	zz := float64(z)
	s := p + zz
	bb := s - p
	e := (p - (s - bb)) + (zz - bb)
	if e != 0 {
		bits := math.Float64bits(s)
		if bits&1 == 0 && bits>>52&0x7ff != 0x7ff {
			if (e > 0) == (s > 0) {
				bits++
			} else {
				bits--
			}
			s = math.Float64frombits(bits)
		}
	}
	return float32(s)
}
