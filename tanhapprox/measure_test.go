package tanhapprox

import (
	"math"
	"testing"
)

func round(x, digits float64) float64 { return math.Round(x*digits) / digits }

// The published figures for the posit(16,0) bitwise tanh — plain: max
// 0.098, mean 0.056; corrected: max 0.0379, mean 0.0086 — are those of a
// uniform grid of step 0.01 on [-8,8] (1601 points), inputs rounded to
// posit(16,0). Over every posit(16,0) code the maximum of the plain tanh
// is the same but the means differ, and the corrected maximum is 0.0384:
// the grid steps over the narrow spike where R first passes ±θ.
func TestPublishedFigures(t *testing.T) {
	p16 := posit(t, 16, 0)
	plain := bitwise(t, Tanh, 16)
	corr, err := NewCorrectedTanh(p16, DefaultTheta, DefaultDelta)
	if err != nil {
		t.Fatal(err)
	}
	grid := Grid(-8, 8, 1601)
	codes := CodeValues(p16, math.Inf(-1), math.Inf(1))
	for _, c := range []struct {
		name      string
		a         Approx
		xs        []float64
		digits    float64
		max, mean float64
	}{
		{"plain, grid", plain, grid, 1e3, 0.098, 0.056},
		{"corrected, grid", corr, grid, 1e4, 0.0379, 0.0086},
		{"corrected rounded, grid", corr.RoundedOutput(), grid, 1e4, 0.0379, 0.0086},
		{"plain, codes", plain, codes, 1e4, 0.0980, 0.0401},
		{"corrected, codes", corr, codes, 1e4, 0.0384, 0.0136},
	} {
		s := Measure(c.a, c.xs)
		if round(s.Max, c.digits) != c.max || round(s.Mean, c.digits) != c.mean {
			t.Errorf("%s: max %.5f mean %.5f, want %g %g", c.name, s.Max, s.Mean, c.max, c.mean)
		}
	}
	s := Measure(corr, codes)
	if math.Abs(s.ArgMax+1.066) > 1e-3 {
		t.Errorf("corrected tanh over codes: largest error at %g, want -1.066", s.ArgMax)
	}
}

func TestGridAndCodeValues(t *testing.T) {
	g := Grid(-8, 8, 1601)
	if len(g) != 1601 || g[0] != -8 || g[1600] != 8 || g[800] != 0 || math.Abs(g[1]+7.99) > 1e-12 {
		t.Errorf("Grid(-8, 8, 1601) = %g %g ... %g %g", g[0], g[1], g[800], g[1600])
	}
	p8 := posit(t, 8, 0)
	all := CodeValues(p8, math.Inf(-1), math.Inf(1))
	if len(all) != 255 || all[0] != -64 || all[254] != 64 || all[127] != 0 {
		t.Errorf("CodeValues(posit(8,0)) has %d values from %g to %g", len(all), all[0], all[len(all)-1])
	}
	for i := 1; i < len(all); i++ {
		if all[i] <= all[i-1] {
			t.Fatalf("CodeValues not increasing at %d: %g, %g", i, all[i-1], all[i])
		}
	}
	// [1,2] in posit(8,0): 1 + k/32, k = 0..32.
	if got := CodeValues(p8, 1, 2); len(got) != 33 || got[1] != 1+1.0/32 {
		t.Errorf("CodeValues(posit(8,0), 1, 2) = %v", got)
	}
	if s := Measure(Exact{Tanh}, []float64{math.NaN(), 1, 2}); s.N != 2 || s.Max != 0 {
		t.Errorf("Measure(exact) = %+v", s)
	}
}
