package tanhapprox

import (
	"fmt"
	"math"

	"github.com/positgan/positgan/quant"
)

// MaxPieces is the largest K NewPWL accepts.
const MaxPieces = 64

// PWL is a continuous piecewise-linear approximation of tanh or the
// sigmoid with the least maximum absolute error over the real line among
// the functions of the form below with the same number of pieces.
//
// On x >= 0 it has K pieces: K-1 sloped segments from (0, f(0)) through
// the breakpoints, then a constant. It is extended to x < 0 by the
// function's symmetry (odd for tanh, sigmoid(-x) = 1 - sigmoid(x)), so over
// the whole real line it has 2K-1 linear pieces: K = 2 is the best "hard"
// tanh or sigmoid, a sloped segment through the origin clipped to a
// constant. A source that counts the pieces over the whole line calls
// this 2K-1 pieces.
//
// The zero PWL is not valid; use NewPWL. PWL values are immutable and safe
// for concurrent use.
type PWL struct {
	fn     Func
	k      int
	xs, ys []float64 // breakpoints on x >= 0: xs[0] = 0; f = ys[k-1] for x >= xs[k-1]
	slopes []float64 // slopes[i] on [xs[i], xs[i+1]); slopes[k-1] = 0 beyond xs[k-1]
	err    float64   // the design's maximum error
	out    quant.Format
}

// NewPWL returns the minimax K-piece approximation of fn, 2 <= K <= 64.
//
// How the breakpoints are chosen: for a trial error e, a greedy path
// through the band [tanh-e, tanh+e] on x >= 0 starts at (0, 0) and draws
// each segment as the tangent to tanh-e through its start (the flattest
// segment that stays in the band, tanh being concave there), ending it
// where it leaves the band at tanh+e, the highest start the next segment
// can have; the last segment ends where it reaches 1-e, and the constant
// 1-e follows (its error tends to e as x grows). No K-piece function with
// error e gets further than this path (each greedy segment starts at least
// as high and ends at least as far right as any other's; the tests check
// the result against brute force and random perturbations), so e is
// achievable exactly when the path needs at most K pieces, and bisection on e finds the least one to
// about 1e-13. The result equioscillates: its error is +e at every
// breakpoint and in the tail, -e at every tangent point. The sigmoid
// approximation is the tanh one mapped through sigmoid(x) = (1+tanh(x/2))/2,
// which halves the error. For tanh, K = 2, 3, 4, 8 give errors 0.0822,
// 0.0290, 0.0147, 0.0032.
func NewPWL(fn Func, k int) (PWL, error) {
	if fn != Tanh && fn != Sigmoid {
		return PWL{}, fmt.Errorf("tanhapprox: unknown function %v", fn)
	}
	if k < 2 || k > MaxPieces {
		return PWL{}, fmt.Errorf("tanhapprox: pwl needs 2 <= K <= %d pieces, not %d", MaxPieces, k)
	}
	lo, hi := 0.0, 1.0 // K = 1 (a constant) has error 1: every K >= 2 does better
	for hi-lo > 1e-13 {
		mid := float64((lo + hi) / 2) // float64(…): not fused into below's x-x0 on arm64
		if _, _, ok := tanhTube(mid, k); ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	xs, ys, _ := tanhTube(hi, k)
	p := PWL{fn: fn, k: k, xs: xs, ys: ys, err: hi}
	if fn == Sigmoid {
		for i := range xs {
			p.xs[i] = 2 * xs[i]
			p.ys[i] = (1 + ys[i]) / 2
		}
		p.err = hi / 2
	}
	p.slopes = make([]float64, k)
	for i := range k - 1 {
		p.slopes[i] = (p.ys[i+1] - p.ys[i]) / (p.xs[i+1] - p.xs[i])
	}
	return p, nil
}

// tanhTube runs the greedy tube construction for tanh on x >= 0 with
// error e and at most k pieces. It returns the breakpoints and their
// values, and whether k pieces suffice.
func tanhTube(e float64, k int) (xs, ys []float64, ok bool) {
	x, y := 0.0, 0.0
	xs, ys = []float64{0}, []float64{0}
	top := 1 - e // the constant of the last piece
	for range k - 1 {
		if y >= top {
			break
		}
		t := tangentPoint(x, y, e)
		m := 1 - float64(math.Tanh(t)*math.Tanh(t)) // tanh'(t)
		end := exitPoint(x, y, m, t, e)
		if reach := x + (top-y)/m; reach <= end {
			xs, ys = append(xs, reach), append(ys, top)
			x, y = reach, top
			break
		}
		x, y = end, math.Tanh(end)+e
		xs, ys = append(xs, x), append(ys, y)
	}
	if y < top {
		return xs, ys, false
	}
	// A path that reached the top in fewer than k-1 segments is padded
	// with zero-slope pieces so that every PWL of K pieces has K-1 segments.
	for len(xs) < k {
		x++
		xs, ys = append(xs, x), append(ys, top)
	}
	return xs, ys, true
}

// tangentPoint returns t > x0 where the tangent of tanh - e passes through
// (x0, y0), which lies above tanh - e and below 1 - e. The tangent's
// intercept at x0, phi(t) = tanh(t) - e + tanh'(t)(x0 - t), increases
// with t from tanh(x0) - e towards 1 - e.
func tangentPoint(x0, y0, e float64) float64 {
	phi := func(t float64) float64 {
		th := math.Tanh(t)
		return th - e + float64((1-float64(th*th))*(x0-t)) // float64(…) stops arm64 fusing multiply-adds: same bits as amd64
	}
	lo, hi := x0, x0+1
	for phi(hi) < y0 && hi < 40 {
		hi = x0 + 2*(hi-x0)
	}
	return bisect(func(t float64) bool { return phi(t) < y0 }, lo, hi)
}

// exitPoint returns the x > t where the line through (x0, y0) with slope
// m, tangent to tanh - e at t, meets tanh + e. The gap line - tanh - e is
// convex, -2e at t, and grows without bound.
func exitPoint(x0, y0, m, t, e float64) float64 {
	gap := func(x float64) float64 { return y0 + float64(m*(x-x0)) - math.Tanh(x) - e }
	lo, hi := t, t+1
	for gap(hi) < 0 {
		hi = t + 2*(hi-t)
	}
	return bisect(func(x float64) bool { return gap(x) < 0 }, lo, hi)
}

// bisect returns the boundary in [lo, hi] where below stops being true
// (below(lo) is true, below(hi) false), to float64 precision.
func bisect(below func(float64) bool, lo, hi float64) float64 {
	for range 200 {
		mid := float64((lo + hi) / 2) // float64(…): not fused into below's x-x0 on arm64
		if mid <= lo || mid >= hi {
			break
		}
		if below(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// WithOutput returns a copy of p whose outputs are rounded to f (nil:
// no rounding).
func (p PWL) WithOutput(f quant.Format) PWL {
	p.out = f
	return p
}

// Output returns the format outputs are rounded to, or nil.
func (p PWL) Output() quant.Format { return p.out }

// Func returns the function approximated.
func (p PWL) Func() Func { return p.fn }

// Pieces returns K.
func (p PWL) Pieces() int { return p.k }

// MaxError returns the largest absolute error over the real line, before
// any output rounding.
func (p PWL) MaxError() float64 { return p.err }

// Breakpoints returns the K breakpoints on x >= 0 (the first is 0) and
// the function's values there; beyond the last breakpoint it is constant.
func (p PWL) Breakpoints() (xs, ys []float64) {
	return append([]float64(nil), p.xs...), append([]float64(nil), p.ys...)
}

func (p PWL) String() string {
	if p.out != nil {
		return fmt.Sprintf("pwl%d-%v(out=%v)", p.k, p.fn, p.out)
	}
	return fmt.Sprintf("pwl%d-%v", p.k, p.fn)
}

// piece returns the index of the piece of a >= 0: the number of
// breakpoints after the first that are <= a.
func (p PWL) piece(a float64) int {
	i := 0
	for _, b := range p.xs[1:] {
		if a >= b {
			i++
		}
	}
	return i
}

// half evaluates the x >= 0 branch at a >= 0.
func (p PWL) half(a float64) float64 {
	i := p.piece(a)
	return p.ys[i] + float64(p.slopes[i]*(a-p.xs[i]))
}

// At returns the approximation at x (NaN for NaN).
func (p PWL) At(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	v := p.half(math.Abs(x))
	if x < 0 {
		if p.fn == Sigmoid {
			v = 1 - v
		} else {
			v = -v
		}
	}
	if p.out != nil {
		v = p.out.Round64(v)
	}
	return v
}

// Slope returns the derivative of the piecewise-linear function at x (not
// of its rounded output), taken from the side away from zero at a
// breakpoint; it is 0 beyond the last breakpoint.
func (p PWL) Slope(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	return p.slopes[p.piece(math.Abs(x))]
}

// Apply sets dst[i] = At(src[i]) (computed in float64, rounded once to
// float32) and returns dst. dst may be src.
func (p PWL) Apply(dst, src []float32) []float32 {
	if len(dst) != len(src) {
		panic(errLength)
	}
	pwlKernel(dst, src, p)
	return dst
}
