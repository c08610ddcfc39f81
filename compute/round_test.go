package compute

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

func TestBlockRounder(t *testing.T) {
	b := quant.MustParseBlock("mxfp8-e4m3(block=3)")
	q := NewBlockRounder(b, quant.Nearest, nil)
	if q.IsIdentity() || q.Block() != b || q.Format() != nil {
		t.Fatalf("block rounder: identity %v, block %v, format %v", q.IsIdentity(), q.Block(), q.Format())
	}
	// A 2×4 matrix: along rows the blocks are {1000, 0.3, -1}, {0.05} and
	// {2, 3, 100}, {0.001}; down columns they are the two-element columns.
	src := []float32{1000, 0.3, -1, 0.05, 2, 3, 100, 0.001}
	for _, axis := range []quant.Axis{quant.AlongRow, quant.AlongColumn} {
		want := make([]float32, len(src))
		b.RoundMatrix(want, src, 2, 4, axis, quant.Nearest, nil)
		got := make([]float32, len(src))
		RoundMatrix(q, got, src, 2, 4, axis)
		got64 := make([]float64, len(src))
		src64 := make([]float64, len(src))
		for i, v := range src {
			src64[i] = float64(v)
		}
		RoundMatrix(q, got64, src64, 2, 4, axis)
		for i := range want {
			if got[i] != want[i] || got64[i] != float64(want[i]) {
				t.Errorf("%v [%d] = %g, %g (float64); want %g", axis, i, got[i], got64[i], want[i])
			}
		}
	}
	// An element-wise format ignores the shape; a block rounder refuses
	// slices.
	e := NewRounder(quant.FP8E4M3, quant.Nearest, nil)
	got := make([]float32, len(src))
	RoundMatrix(e, got, src, 2, 4, quant.AlongColumn)
	for i, v := range src {
		if got[i] != quant.FP8E4M3.Round(v) {
			t.Errorf("element-wise [%d] = %g", i, got[i])
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Round on a block rounder did not panic")
		}
	}()
	q.Round(got, src)
}
