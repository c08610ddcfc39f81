package scaling

import (
	"testing"

	"github.com/positgan/positgan/quant"
)

// A tensor of 100 values, 10 each in the binades -6..3: the 5% quantile
// is binade -6, the median -2 and the 95% 3; posit(8,1) takes a bias, as
// ChooseBias picks it.
func TestBulkOf(t *testing.T) {
	var xs []float32
	for e := -6; e <= 3; e++ {
		for range 10 {
			xs = append(xs, float32(1.5)*pow2(e))
		}
	}
	h := Log2Histogram(xs)
	p81 := quant.MustParse("posit(8,1)")
	k, err := ChooseBias(h, p81)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := BulkOf(h, p81), (Bulk{Lo: -6, Median: -2, Hi: 3, OK: true, Bias: k, HasBias: true}); got != want {
		t.Errorf("BulkOf(posit(8,1)) = %+v, want %+v", got, want)
	}
	if got, want := BulkOf(h, nil), (Bulk{Lo: -6, Median: -2, Hi: 3, OK: true}); got != want {
		t.Errorf("BulkOf(nil) = %+v, want %+v", got, want)
	}
	if got := BulkOf(Log2Histogram([]float32{0, 0}), p81); got != (Bulk{}) {
		t.Errorf("BulkOf(zeros) = %+v, want no bulk and no bias", got)
	}
}

func pow2(e int) float32 {
	x := float32(1)
	for ; e > 0; e-- {
		x *= 2
	}
	for ; e < 0; e++ {
		x /= 2
	}
	return x
}
