package tanhapprox

import (
	"math"
	"testing"
)

// FuzzParse: any spec gives an approximation or an error, never a panic;
// an approximation that parses is a number within [-1, 1] on a few probes.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"exact", "bitwise", "bitwise:posit(8,0)", "bitwise-corrected:posit(16,0)", "pwl:3",
		"pwl:8:posit(8,1)", "pwl:1", "pwl:99999999999", "bitwise:fp16", "exact:x", "pwl:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		for _, fn := range []Func{Tanh, Sigmoid} {
			a, err := Parse(fn, spec)
			if err != nil {
				continue
			}
			for _, x := range []float64{-100, -3, -0.5, 0, 1e-3, 0.7, 2, 50} {
				y := a.At(x)
				if math.IsNaN(y) || y < -1 || y > 1 {
					t.Fatalf("%s (%v) at %g = %g", spec, fn, x, y)
				}
			}
			dst := make([]float32, 3)
			a.Apply(dst, []float32{-1, 0, 1})
			_ = a.String()
		}
	})
}
