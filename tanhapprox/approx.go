package tanhapprox

import (
	"fmt"
	"math"
)

// Func names the function being approximated.
type Func uint8

const (
	// Tanh is the hyperbolic tangent.
	Tanh Func = iota
	// Sigmoid is the logistic function 1/(1+e^-x).
	Sigmoid
)

func (f Func) String() string {
	switch f {
	case Tanh:
		return "tanh"
	case Sigmoid:
		return "sigmoid"
	}
	return fmt.Sprintf("Func(%d)", uint8(f))
}

// ParseFunc parses "tanh" or "sigmoid".
func ParseFunc(s string) (Func, error) {
	switch s {
	case "tanh":
		return Tanh, nil
	case "sigmoid":
		return Sigmoid, nil
	}
	return 0, fmt.Errorf("tanhapprox: unknown function %q (want tanh or sigmoid)", s)
}

// Eval returns the exact value of f at x.
func (f Func) Eval(x float64) float64 {
	if f == Sigmoid {
		return sigmoid(x)
	}
	return math.Tanh(x)
}

// DerivAtOutput returns f'(x) written in terms of y = f(x): 1-y² for tanh,
// y(1-y) for the sigmoid.
func (f Func) DerivAtOutput(y float64) float64 {
	if f == Sigmoid {
		return y * (1 - y)
	}
	return 1 - float64(y*y) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
}

// sigmoid is 1/(1+e^-x) without overflow for large negative x.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// An Approx is an elementwise approximation of Tanh or Sigmoid.
// Implementations are immutable and safe for concurrent use.
type Approx interface {
	// Func returns the function approximated.
	Func() Func
	// At returns the approximation at x.
	At(x float64) float64
	// Apply sets dst[i] to the approximation at src[i] and returns dst.
	// dst and src must have equal lengths; dst may be src.
	Apply(dst, src []float32) []float32
	// String names the method and every parameter.
	String() string
}

// Sloper is implemented by approximations that have a useful derivative of
// their own (the piecewise-linear ones): Slope(x) is d/dx At(x), taken from
// the right at breakpoints.
type Sloper interface {
	Slope(x float64) float64
}

// Exact is the exact function, computed with package math (math.Tanh, and
// 1/(1+e^-x) for the sigmoid). It is the reference the approximations are
// measured against.
type Exact struct{ Fn Func }

// Func returns e.Fn.
func (e Exact) Func() Func { return e.Fn }

// At returns the exact value at x.
func (e Exact) At(x float64) float64 { return e.Fn.Eval(x) }

// Apply sets dst[i] = f(src[i]), computed in float64 and rounded once.
func (e Exact) Apply(dst, src []float32) []float32 {
	if len(dst) != len(src) {
		panic(errLength)
	}
	if e.Fn == Sigmoid {
		for i, x := range src {
			dst[i] = float32(sigmoid(float64(x)))
		}
		return dst
	}
	for i, x := range src {
		dst[i] = float32(math.Tanh(float64(x)))
	}
	return dst
}

// Slope returns the exact derivative at x.
func (e Exact) Slope(x float64) float64 { return e.Fn.DerivAtOutput(e.Fn.Eval(x)) }

func (e Exact) String() string { return "exact-" + e.Fn.String() }

const errLength = "tanhapprox: slice lengths differ"
