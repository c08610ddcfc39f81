package tanhapprox

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

func newPWL(t testing.TB, fn Func, k int) PWL {
	t.Helper()
	p, err := NewPWL(fn, k)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// maxErrPWL measures the largest error of a continuous piecewise-linear
// function given by its breakpoints on x >= 0 (constant beyond the last),
// extended by symmetry: on a fine grid of [0, 30] plus the limit at
// infinity. It shares no code with PWL.
func maxErrPWL(fn Func, xs, ys []float64) float64 {
	at := func(a float64) float64 {
		if a >= xs[len(xs)-1] {
			return ys[len(ys)-1]
		}
		for i := 1; i < len(xs); i++ {
			if a < xs[i] {
				return ys[i-1] + (ys[i]-ys[i-1])*(a-xs[i-1])/(xs[i]-xs[i-1])
			}
		}
		panic("unreachable")
	}
	worst := math.Abs(1 - ys[len(ys)-1]) // the tail's limit
	for i := 0; i <= 300000; i++ {
		a := float64(i) * 1e-4
		worst = math.Max(worst, math.Abs(at(a)-fn.Eval(a)))
	}
	return worst
}

// K = 2 is min(m·x, L) for tanh. A brute-force search over (m, L) with
// an independent error measure must find nothing better than NewPWL.
func TestPWL2BruteForce(t *testing.T) {
	p := newPWL(t, Tanh, 2)
	best := math.Inf(1)
	for m := 0.70; m <= 0.82; m += 0.002 {
		for l := 0.89; l <= 0.95; l += 0.001 {
			// error of min(m x, l) against tanh on [0, 8] and at infinity
			worst := 1 - l
			for i := 0; i <= 8000; i++ {
				a := float64(i) * 1e-3
				worst = math.Max(worst, math.Abs(math.Min(m*a, l)-math.Tanh(a)))
				if worst >= best {
					break
				}
			}
			best = math.Min(best, worst)
		}
	}
	if got := p.MaxError(); got > best+1e-9 || got < best-2e-3 {
		t.Errorf("pwl2 tanh error %.6f, brute force %.6f", got, best)
	}
}

// The design error is the true maximum error, the error equioscillates,
// and no small perturbation of the breakpoints and values lowers it.
func TestPWLMinimax(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, fn := range []Func{Tanh, Sigmoid} {
		for _, k := range []int{2, 3, 4, 6, 8} {
			p := newPWL(t, fn, k)
			xs, ys := p.Breakpoints()
			if len(xs) != k || xs[0] != 0 || ys[0] != fn.Eval(0) {
				t.Fatalf("%v: breakpoints %v %v", p, xs, ys)
			}
			e := p.MaxError()
			if got := maxErrPWL(fn, xs, ys); math.Abs(got-e) > 1e-8 {
				t.Errorf("%v: design error %.9f, measured %.9f", p, e, got)
			}
			if got := exactErrPWL(fn, xs, ys); math.Abs(got-e) > 1e-9 {
				t.Errorf("%v: design error %.9f, closed form %.9f", p, e, got)
			}
			// Equioscillation: +e at each breakpoint after the first.
			for i := 1; i < k; i++ {
				if d := ys[i] - fn.Eval(xs[i]); math.Abs(d-e) > 1e-9 {
					t.Errorf("%v: error %.9f at breakpoint %g, want +%.9f", p, d, xs[i], e)
				}
			}
			for range 2000 {
				px := append([]float64(nil), xs...)
				py := append([]float64(nil), ys...)
				for i := 1; i < k; i++ {
					px[i] += rng.NormFloat64() * 1e-3
					py[i] += rng.NormFloat64() * 1e-4
				}
				if !sortedStrict(px) {
					continue
				}
				if got := exactErrPWL(fn, px, py); got < e-1e-9 {
					t.Fatalf("%v: perturbed breakpoints %v %v have error %.9f < %.9f", p, px, py, got, e)
				}
			}
		}
	}
}

// exactErrPWL is maxErrPWL computed in closed form: on a segment of slope
// m the error's extremes are at the ends and where f'(x) = m, which for
// x > 0 is tanh(x) = sqrt(1-m), or sigmoid(x) = (1+sqrt(1-4m))/2.
func exactErrPWL(fn Func, xs, ys []float64) float64 {
	worst := math.Abs(1 - ys[len(ys)-1])
	for i := range xs {
		worst = math.Max(worst, math.Abs(ys[i]-fn.Eval(xs[i])))
	}
	for i := 1; i < len(xs); i++ {
		m := (ys[i] - ys[i-1]) / (xs[i] - xs[i-1])
		var c float64
		switch {
		case fn == Tanh && m > 0 && m < 1:
			c = math.Atanh(math.Sqrt(1 - m))
		case fn == Sigmoid && m > 0 && m < 0.25:
			s := (1 + math.Sqrt(1-4*m)) / 2
			c = math.Log(s / (1 - s))
		default:
			continue
		}
		if c > xs[i-1] && c < xs[i] {
			worst = math.Max(worst, math.Abs(ys[i-1]+m*(c-xs[i-1])-fn.Eval(c)))
		}
	}
	return worst
}

func sortedStrict(xs []float64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] <= xs[i-1] {
			return false
		}
	}
	return true
}

// More pieces, less error; the sigmoid error is half the tanh error.
func TestPWLErrors(t *testing.T) {
	prev := 1.0
	for k := 2; k <= 12; k++ {
		th, sg := newPWL(t, Tanh, k), newPWL(t, Sigmoid, k)
		if th.MaxError() >= prev {
			t.Errorf("pwl%d tanh error %g not below pwl%d's %g", k, th.MaxError(), k-1, prev)
		}
		if math.Abs(sg.MaxError()-th.MaxError()/2) > 1e-12 {
			t.Errorf("pwl%d: sigmoid error %g, tanh error %g", k, sg.MaxError(), th.MaxError())
		}
		prev = th.MaxError()
	}
	for _, k := range []int{-1, 0, 1, MaxPieces + 1} {
		if _, err := NewPWL(Tanh, k); err == nil {
			t.Errorf("NewPWL(K=%d) succeeded", k)
		}
	}
}

// Symmetry, slopes against finite differences away from breakpoints,
// Apply against At, and output rounding.
func TestPWLEval(t *testing.T) {
	p16 := quant.Posit(posit(t, 16, 0))
	for _, fn := range []Func{Tanh, Sigmoid} {
		p := newPWL(t, fn, 3)
		xs, _ := p.Breakpoints()
		for _, x := range []float64{0.1, 0.7, 1.2, 2.9, 3.3, 10, 1e6} {
			var sym float64
			if fn == Tanh {
				sym = -p.At(x)
			} else {
				sym = 1 - p.At(x)
			}
			if got := p.At(-x); math.Abs(got-sym) > 1e-15 {
				t.Errorf("%v: At(-%g) = %g, want %g", p, x, got, sym)
			}
			near := false
			for _, b := range xs {
				near = near || math.Abs(x-b) < 1e-3
			}
			if near {
				continue
			}
			const h = 1e-6
			fd := (p.At(x+h) - p.At(x-h)) / (2 * h)
			if math.Abs(fd-p.Slope(x)) > 1e-7 || math.Abs(p.Slope(-x)-p.Slope(x)) > 0 {
				t.Errorf("%v: Slope(%g) = %g, finite difference %g", p, x, p.Slope(x), fd)
			}
		}
		if !math.IsNaN(p.At(math.NaN())) {
			t.Errorf("%v: At(NaN) is not NaN", p)
		}
		r := p.WithOutput(p16)
		src := probes(t, 8)
		dst := make([]float32, len(src))
		for _, a := range []PWL{p, r} {
			a.Apply(dst, src)
			for i, x := range src {
				want := float32(a.At(float64(x)))
				if dst[i] != want && !(dst[i] != dst[i] && want != want) {
					t.Fatalf("%v: Apply(%g) = %g, At %g", a, x, dst[i], want)
				}
			}
		}
		for _, x := range []float64{0.3, -1.7, 2.5} {
			if got, want := r.At(x), p16.Round64(p.At(x)); got != want {
				t.Errorf("%v: At(%g) = %g, want %g", r, x, got, want)
			}
		}
	}
}
