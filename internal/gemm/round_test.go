package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

func TestRounder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	src := make([]float32, 1000)
	for i := range src {
		src[i] = float32(rng.NormFloat64() * 4)
	}
	src64 := make([]float64, len(src))
	for i, v := range src {
		src64[i] = float64(v)
	}
	for _, f := range []quant.Format{nil, quant.MustParse("posit(8,1)"), quant.MustParse("posit(8,2,scale=3)")} {
		q := NewRounder(f, quant.Nearest, nil)
		dst := make([]float32, len(src))
		dst64 := make([]float64, len(src))
		RoundSlice(q, dst, src)
		RoundSlice(q, dst64, src64)
		for i, x := range src {
			want := x
			if f != nil {
				want = f.Round(x)
			}
			if math.Float32bits(dst[i]) != math.Float32bits(want) || dst64[i] != float64(want) {
				t.Fatalf("%v: Round(%g) = %g, %g (float64); want %g", f, x, dst[i], dst64[i], want)
			}
		}
		if q.IsIdentity() != (f == nil) {
			t.Errorf("%v: IsIdentity = %v", f, q.IsIdentity())
		}
	}
}
