package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStride2Rows checks pick2 and put2 (the level's kernels where there
// are some) against their definitions, on rows of every length to 40 and
// values with signed zeros and NaNs, and that nothing outside the rows
// is read into them or written: the slices end where the rows do, and
// the entries between the rows and between the pixels put2 adds to keep
// their bits (-0 stays -0).
func TestStride2Rows(t *testing.T) {
	defer useLevel(levelTop)
	rng := rand.New(rand.NewPCG(30, 7))
	val := func() float32 {
		switch rng.IntN(6) {
		case 0:
			return float32(math.Copysign(0, -1))
		case 1:
			return float32(math.NaN())
		default:
			return float32(rng.NormFloat64())
		}
	}
	for _, l := range []level{levelGeneric, levelTop} {
		useLevel(l)
		for n := 1; n <= 40; n++ {
			for _, rows := range []int{1, 2, 5} {
				ow, step := n+rng.IntN(3), 2*n+rng.IntN(5)
				s := rng.IntN(3)
				img := make([]float32, s+(rows-1)*step+2*n-1)
				for i := range img {
					img[i] = val()
				}
				out := make([]float32, (rows-1)*ow+n)
				for i := range out {
					out[i] = val()
				}
				want := append([]float32(nil), out...)
				for r := range rows {
					for k := range n {
						want[r*ow+k] = img[s+r*step+2*k]
					}
				}
				pick2(out, ow, n, img, s, step)
				for i := range out {
					if math.Float32bits(out[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%v: pick2 n %d rows %d: out[%d] = %v, want %v", l, n, rows, i, out[i], want[i])
					}
				}

				in := out
				wantImg := append([]float32(nil), img...)
				for r := range rows {
					for k := range n {
						wantImg[s+r*step+2*k] += in[r*ow+k]
					}
				}
				put2(img, s, step, in, ow, n)
				for i := range img {
					if math.Float32bits(img[i]) != math.Float32bits(wantImg[i]) && !(img[i] != img[i] && wantImg[i] != wantImg[i]) {
						t.Fatalf("%v: put2 n %d rows %d: img[%d] = %v, want %v", l, n, rows, i, img[i], wantImg[i])
					}
				}
			}
		}
	}
}
