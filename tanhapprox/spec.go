package tanhapprox

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/positgan/positgan/quant"
)

// DefaultFormat is the posit the bitwise methods use when a spec names
// none: posit(16,0), the format of the published error figures.
const DefaultFormat = "posit(16,0)"

// Parse returns the approximation of fn that spec names:
//
//	exact                        fn itself
//	bitwise[:FORMAT]             the bitwise posit rule on FORMAT (default posit(16,0))
//	bitwise-corrected[:FORMAT]   the corrected bitwise tanh, published theta and delta
//	pwl:K[:FORMAT]               minimax piecewise-linear with K pieces, output rounded to FORMAT if given
//
// It is how quantization policies name the generator's output activation
// (policy.Policy.Tanh), e.g. "bitwise-corrected:posit(8,0)".
func Parse(fn Func, spec string) (Approx, error) {
	method, format, hasFormat := strings.Cut(strings.TrimSpace(spec), ":")
	switch method {
	case "exact":
		if hasFormat {
			return nil, fmt.Errorf("tanhapprox: %q: exact takes no format", spec)
		}
		return Exact{Fn: fn}, nil
	case "pwl":
		kStr, out, hasOut := strings.Cut(format, ":")
		k, err := strconv.Atoi(kStr)
		if !hasFormat || err != nil {
			return nil, fmt.Errorf("tanhapprox: %q: want pwl:K with K an integer in [2,%d]", spec, MaxPieces)
		}
		p, err := NewPWL(fn, k)
		if err != nil {
			return nil, err
		}
		if hasOut {
			f, err := quant.ParseSelfContained(out) // a tanh spec travels in checkpoints
			if err != nil {
				return nil, fmt.Errorf("tanhapprox: %q: %w", spec, err)
			}
			p = p.WithOutput(f)
		}
		return p, nil
	case "bitwise", "bitwise-corrected":
		if !hasFormat {
			format = DefaultFormat
		}
		f, err := quant.ParseSelfContained(format)
		if err != nil {
			return nil, fmt.Errorf("tanhapprox: %q: %w", spec, err)
		}
		p, ok := f.(quant.Posit)
		if !ok {
			return nil, fmt.Errorf("tanhapprox: %q: the bitwise methods need a posit(n,0) format, not %v", spec, f)
		}
		if method == "bitwise" {
			return NewBitwise(fn, p)
		}
		if fn != Tanh {
			return nil, fmt.Errorf("tanhapprox: %q: bitwise-corrected is a tanh method, not %v", spec, fn)
		}
		return NewCorrectedTanh(p, DefaultTheta, DefaultDelta)
	}
	return nil, fmt.Errorf("tanhapprox: unknown method %q (want exact, bitwise, bitwise-corrected or pwl:K, each optionally :FORMAT)", spec)
}
