package tanhapprox

import (
	"math"

	"github.com/positgan/positgan/quant"
)

// Stats are the absolute errors of an approximation over a set of inputs.
type Stats struct {
	N      int     // number of inputs
	Max    float64 // largest absolute error
	Mean   float64 // mean absolute error, each input weighted equally
	ArgMax float64 // the first input with the largest error
}

// Measure returns the errors of a against the exact function (Func.Eval)
// at the inputs xs, in float64. NaN inputs are skipped.
func Measure(a Approx, xs []float64) Stats {
	var s Stats
	var sum float64
	fn := a.Func()
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		e := math.Abs(a.At(x) - fn.Eval(x))
		if e > s.Max || s.N == 0 {
			s.Max, s.ArgMax = e, x
		}
		sum += e
		s.N++
	}
	if s.N > 0 {
		s.Mean = sum / float64(s.N)
	}
	return s
}

// Grid returns n >= 2 points evenly spaced over [lo, hi], the i-th being
// lo + (hi-lo)·i/(n-1) (so both ends are included exactly).
func Grid(lo, hi float64, n int) []float64 {
	if n < 2 {
		panic("tanhapprox: a grid needs at least 2 points")
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	xs[n-1] = hi
	return xs
}

// CodeValues returns the values of the codes of p (of at most 24 bits)
// that lie in [lo, hi], NaR excluded, in increasing order.
func CodeValues(p quant.Posit, lo, hi float64) []float64 {
	if p.N() > 24 {
		panic("tanhapprox: CodeValues needs a posit of at most 24 bits")
	}
	var xs []float64
	nar := p.NaR()
	// Codes in two's-complement order from NaR+1 (-maxpos) increase in value.
	for i := uint32(1); i <= p.Mask(); i++ {
		c := (nar + i) & p.Mask()
		if v := p.Decode(c); v >= lo && v <= hi {
			xs = append(xs, v)
		}
	}
	return xs
}
