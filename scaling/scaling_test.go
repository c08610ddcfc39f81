package scaling

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

func TestLog2Histogram(t *testing.T) {
	h := Log2Histogram([]float32{
		1, 1.5, -1.99, // binade 0
		0.25, -0.3, // binade -2
		3,                              // binade 1
		0x1p-149, 0x1.8p-140, 0x1p-126, // float32 subnormals and the smallest normal
		0, float32(math.Copysign(0, -1)), // zeros
		float32(math.Inf(1)), float32(math.NaN()),
	})
	want := map[int]int{0: 3, -2: 2, 1: 1, -149: 1, -140: 1, -126: 1}
	for e, c := range want {
		if h.Counts[e] != c {
			t.Errorf("Counts[%d] = %d, want %d", e, h.Counts[e], c)
		}
	}
	if len(h.Counts) != len(want) || h.Zeros != 2 || h.NonFinite != 2 || h.Total() != 9 {
		t.Errorf("histogram %+v: want %d binades, 2 zeros, 2 non-finite, 9 counted", h, len(want))
	}
	if e, _ := h.Quantile(0.5); e != -2 {
		t.Errorf("median binade %d, want -2", e)
	}
}

func TestChooseBias(t *testing.T) {
	p81 := quant.MustParse("posit(8,1)")
	p161 := quant.MustParse("posit(16,1)")
	for _, tc := range []struct {
		name   string
		f      quant.Format
		binade int // every value in [2^binade, 2^(binade+1))
		want   int
	}{
		// posit(n,1) has its most fraction bits (n-4) in the binades -2..1
		// (regimes 01 and 10); the nearest shift that reaches them wins.
		{"weights at 2^-5", p81, -5, 3},
		{"already accurate", p81, -1, 0},
		{"activations at 2^4", p81, 4, -3},
		{"posit16 at 2^-10", p161, -10, 8},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		xs := make([]float32, 1000)
		for i := range xs {
			xs[i] = float32(math.Ldexp(1+rng.Float64(), tc.binade))
			if i%2 == 1 {
				xs[i] = -xs[i]
			}
		}
		k, err := ChooseBias(Log2Histogram(xs), tc.f)
		if err != nil || k != tc.want {
			t.Errorf("%s: ChooseBias = %d, %v; want %d", tc.name, k, err, tc.want)
		}
	}
	if _, err := ChooseBias(Log2Histogram([]float32{1, float32(math.NaN())}), p81); err == nil {
		t.Error("ChooseBias accepted a NaN")
	}
	if k, err := ChooseBias(Log2Histogram([]float32{0, 0}), p81); k != 0 || err != nil {
		t.Errorf("all-zero tensor: %d, %v; want 0, nil", k, err)
	}
}

// A bias chosen from the histogram really lowers the rounding error of the
// tensor it was chosen for, measured directly.
func TestChooseBiasLowersError(t *testing.T) {
	f := quant.MustParse("posit(8,1)")
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]float32, 4096)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64() * 0x1p-5) // GAN weights sit near 2^-5
	}
	k, err := ChooseBias(Log2Histogram(xs), f)
	if err != nil {
		t.Fatal(err)
	}
	fk, err := quant.Scale(f, k)
	if err != nil {
		t.Fatal(err)
	}
	if e0, ek := relErr(f, xs), relErr(fk, xs); !(ek < e0/2) {
		t.Errorf("bias %d: mean relative error %.4g, unbiased %.4g; want at least halved", k, ek, e0)
	}
}

func relErr(f quant.Format, xs []float32) float64 {
	sum := 0.0
	for _, x := range xs {
		if x != 0 {
			sum += math.Abs(float64(f.Round(x)-x) / float64(x))
		}
	}
	return sum / float64(len(xs))
}

func TestLossScaler(t *testing.T) {
	if _, err := NewLossScaler(0, true); err == nil {
		t.Error("scale 0 accepted")
	}
	l, _ := NewLossScaler(1024, true)
	l.Interval = 3
	good := GradStats{Total: 10000}
	bad := GradStats{Total: 10000, NonFinite: 1}
	sat := GradStats{Total: 10000, Saturated: 11} // > 0.1%
	okSat := GradStats{Total: 10000, Saturated: 10}
	for i, step := range []struct {
		st        GradStats
		apply     bool
		wantScale float64
	}{
		{good, true, 1024},
		{good, true, 1024},
		{okSat, true, 2048}, // third good step in a row: grow
		{bad, false, 1024},  // overflow: back off, skip
		{sat, false, 512},   // saturation counts as overflow
		{good, true, 512},
	} {
		if apply := l.Update(step.st); apply != step.apply || l.Scale != step.wantScale {
			t.Errorf("step %d: apply %v scale %v, want %v %v", i, apply, l.Scale, step.apply, step.wantScale)
		}
	}
	s, _ := NewLossScaler(8, false)
	if s.Update(bad) || s.Scale != 8 {
		t.Errorf("static scaler: scale %v after overflow, want 8 and a skipped step", s.Scale)
	}
}

func TestInspect(t *testing.T) {
	f := quant.MustParse("posit(8,1)") // maxpos 4096
	st := Inspect([]float32{1, 4096, -4096, 5000, float32(math.Inf(-1)), float32(math.NaN()), 4095}, f)
	if st != (GradStats{Total: 7, NonFinite: 2, Saturated: 3}) {
		t.Errorf("Inspect = %+v, want 7 total, 2 non-finite, 3 saturated", st)
	}
	if m := MaxFinite(quant.MustParse("posit(8,1,scale=2)")); m != 1024 {
		t.Errorf("MaxFinite(posit(8,1,scale=2)) = %v, want 4096/4", m)
	}
}
