package tanhapprox

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// benchInputs returns n float32 values, normal with standard deviation 2:
// the range of pre-activations of a generator's last layer.
func benchInputs(n int) []float32 {
	rng := rand.New(rand.NewPCG(7, 11))
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64() * 2)
	}
	return xs
}

func benchApprox(b *testing.B, a Approx) {
	src := benchInputs(1 << 14)
	dst := make([]float32, len(src))
	b.ReportAllocs()
	for b.Loop() {
		a.Apply(dst, src)
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(src)), "ns/elem")
}

// benchFunc runs one sub-benchmark per method: math is the exact function
// (math.Tanh in float64, rounded to float32), the reference the others
// must beat.
func benchFunc(b *testing.B, fn Func) {
	p16, p8 := posit(b, 16, 0), posit(b, 8, 0)
	names := []string{"math", "bitwise", "bitwise-p8"}
	as := []Approx{Exact{fn}, bitwise(b, fn, 16), bitwise(b, fn, 8)}
	if fn == Tanh {
		c, err := NewCorrectedTanh(p16, DefaultTheta, DefaultDelta)
		if err != nil {
			b.Fatal(err)
		}
		names, as = append(names, "bitwise-corrected"), append(as, c)
	}
	for _, k := range []int{2, 3, 4, 8} {
		names, as = append(names, "pwl"+strconv.Itoa(k)), append(as, newPWL(b, fn, k))
	}
	names, as = append(names, "pwl3-p8out"), append(as, newPWL(b, fn, 3).WithOutput(p8))
	for i, a := range as {
		b.Run(names[i], func(b *testing.B) { benchApprox(b, a) })
	}
}

func BenchmarkTanh(b *testing.B)    { benchFunc(b, Tanh) }
func BenchmarkSigmoid(b *testing.B) { benchFunc(b, Sigmoid) }
