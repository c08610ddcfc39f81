//go:build amd64 && !purego && !openblas

package gemm

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestTransposeBlocks checks the assembly block transpositions of the
// packing against their definition, on every width, padded strides and
// any alignment; each is checked whether or not the driver uses it here.
func TestTransposeBlocks(t *testing.T) {
	if !cpu.X86.HasAVX {
		t.Skip("no AVX")
	}
	testTranspose(t, "transpose8", transpose8, 8)
	testTranspose(t, "transpose4d", transpose4d, 4)
	if cpu.X86.HasAVX512F {
		testTranspose(t, "transpose8d", transpose8d, 8)
	}
}

func testTranspose[T Float](t *testing.T, name string, tr func(dst *T, ldd int, src *T, lds int, n int), tw int) {
	rng := rand.New(rand.NewPCG(15, 16))
	for n := tw; n <= 5*tw; n += tw {
		for _, pad := range []int{0, 1, 3} {
			off := rng.IntN(8)
			lds, ldd := n+pad, tw+pad+1
			src := randSlice[T](rng, off+(tw-1)*lds+n)[off:]
			dst := make([]T, off+(n-1)*ldd+tw+1)[off:]
			tr(&dst[0], ldd, &src[0], lds, n)
			for l := 0; l < n; l++ {
				for i := 0; i < tw; i++ {
					if got, want := dst[l*ldd+i], src[i*lds+l]; got != want {
						t.Fatalf("%s n=%d pad=%d: dst[%d·ldd+%d] = %g, want %g", name, n, pad, l, i, got, want)
					}
				}
				for i := tw; i < ldd && l*ldd+i < len(dst); i++ {
					if dst[l*ldd+i] != 0 {
						t.Fatalf("%s n=%d pad=%d: wrote dst[%d·ldd+%d]", name, n, pad, l, i)
					}
				}
			}
		}
	}
}
