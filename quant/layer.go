package quant

import "fmt"

// Accumulation says how a dot product sums its products.
type Accumulation uint8

const (
	// AccumFP32 multiplies the rounded operands and sums in float32, then
	// rounds the result once: the layer-level emulation QPyTorch does.
	AccumFP32 Accumulation = iota
	// AccumQuire sums the exact products exactly and rounds once, as posit
	// hardware with a quire does.
	AccumQuire
	// AccumPerOp rounds every product and every partial sum to the
	// accumulation format, as fine-grained emulation of real low-precision
	// hardware must (Arbitor).
	AccumPerOp
)

func (a Accumulation) String() string {
	switch a {
	case AccumFP32:
		return "fp32"
	case AccumQuire:
		return "quire"
	case AccumPerOp:
		return "per-op"
	}
	return fmt.Sprintf("Accumulation(%d)", uint8(a))
}

// ParseAccumulation parses "fp32", "quire" or "per-op".
func ParseAccumulation(s string) (Accumulation, error) {
	for _, a := range []Accumulation{AccumFP32, AccumQuire, AccumPerOp} {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, FormatError("unknown accumulation " + s + " (want fp32, quire or per-op)")
}

// LayerFormats are the formats one layer's dot products use, by tensor
// role. A nil Format leaves that tensor in float32. Exponent biases are part
// of the formats (see Scale).
type LayerFormats struct {
	Weight Format // weights, as dot-product operands
	Act    Format // activations: the dot product's other operand
	Out    Format // the layer's output
	Err    Format // errors: gradients flowing back to the layer's input
	WGrad  Format // weight gradients
	// Accum is how products are summed; AccumFormat is the format per-op
	// accumulation rounds to and quire accumulation rounds the sum to
	// (nil: Out).
	Accum       Accumulation
	AccumFormat Format
	Rounding    Rounding
	// Block holds block-scaled formats for the roles that are operands of
	// dot products. A role set here is rounded block by block along the
	// reduction dimension of every product it enters (re-blocked from the
	// unrounded tensor for the transposed products of the backward pass),
	// and its Format above is nil.
	Block BlockRoles

	// The roles below quantize the rest of a training step, each with its
	// own rounding (QPyTorch's OptimLP rounds weights, gradients and
	// momenta each to its own quantizer). Their zero value is float32, so
	// a policy that does not name them trains as before.
	//
	// Other is the format of the tensors a layer that is not a dot product
	// computes (normalisation, activations, residual adds, the loss): its
	// outputs in the forward pass and the gradients it passes back. The
	// name it is looked up under is the layer's (see nn.Scope).
	Other RoleFormat
	// Master is the format the stored weights (every parameter of the
	// layer) are rounded to after each optimizer update.
	Master RoleFormat
	// Grad is the format of the gradient the optimizer sees: the weight
	// gradient after loss scaling has been undone.
	Grad RoleFormat
	// Moment1 and Moment2 are the formats Adam's first and second moments
	// are rounded to after each update.
	Moment1, Moment2 RoleFormat
}

// RoleFormat is one tensor role's format and rounding. A nil Format is
// float32. Stochastic rounding draws its random bits from a stream the
// user of the role derives from the run's seed and step, so that a resumed
// run rounds exactly as an uninterrupted one.
type RoleFormat struct {
	Format   Format
	Rounding Rounding
}

// IsZero reports whether r rounds nothing.
func (r RoleFormat) IsZero() bool { return r.Format == nil }

// BlockRoles are the block-scaled formats of a layer's dot-product
// operands; the zero BlockFormat leaves a role to LayerFormats.
type BlockRoles struct {
	Weight BlockFormat // weights: blocks along the input features (forward) and the output features (error product)
	Act    BlockFormat // activations: along the input features (forward) and the batch (weight-gradient product)
	Err    BlockFormat // errors: along the output features (error product) and the batch (weight-gradient product)
}

// IsZero reports whether no role has a block format.
func (b BlockRoles) IsZero() bool { return b == BlockRoles{} }
