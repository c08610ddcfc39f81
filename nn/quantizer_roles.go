package nn

import (
	"fmt"

	"github.com/positgan/positgan/quant"
)

// DotRounding returns the rounding of f's dot-product roles (Weight, Act,
// Out, Err and WGrad), which a policy sets together (its key rounding):
// Stochastic if any of them rounds stochastically, Nearest otherwise.
func (f LayerFormats) DotRounding() quant.Rounding {
	for _, q := range [...]Quantizer{f.Weight, f.Act, f.Out, f.Err, f.WGrad} {
		if q.Rounding == quant.Stochastic {
			return quant.Stochastic
		}
	}
	return quant.Nearest
}

// checkDot reports an error if a dot-product role of f is not one the
// layers apply: a block format on a role that is not an operand of the
// products (Out, WGrad), or a role given both a format and a block format.
func (f LayerFormats) checkDot() error {
	for _, r := range [...]struct {
		name  string
		q     Quantizer
		block bool
	}{{"weight", f.Weight, true}, {"act", f.Act, true}, {"out", f.Out, false}, {"err", f.Err, true}, {"wgrad", f.WGrad, false}} {
		switch {
		case r.q.Block.IsZero():
		case !r.block:
			return fmt.Errorf("role %s: block format %v: only the dot-product operands weight, act and err take block formats", r.name, r.q.Block)
		case r.q.Format != nil:
			return fmt.Errorf("role %s: both a format (%v) and a block format (%v)", r.name, r.q.Format, r.q.Block)
		}
	}
	return nil
}
