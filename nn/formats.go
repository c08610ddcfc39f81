package nn

import "github.com/positgan/positgan/quant"

// LayerFormats are the formats one layer's dot products use, by tensor
// role. A nil Format leaves that tensor in float32. Exponent biases are part
// of the formats (see Scale).
type LayerFormats struct {
	Weight quant.Format // weights, as dot-product operands
	Act    quant.Format // activations: the dot product's other operand
	Out    quant.Format // the layer's output
	Err    quant.Format // errors: gradients flowing back to the layer's input
	WGrad  quant.Format // weight gradients
	// Accum is how products are summed; AccumFormat is the format per-op
	// accumulation rounds to and quire accumulation rounds the sum to
	// (nil: Out).
	Accum       quant.Accumulation
	AccumFormat quant.Format
	Rounding    quant.Rounding
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
	Other Quantizer
	// Master is the format the stored weights (every parameter of the
	// layer) are rounded to after each optimizer update.
	Master Quantizer
	// Grad is the format of the gradient the optimizer sees: the weight
	// gradient after loss scaling has been undone.
	Grad Quantizer
	// Moment1 and Moment2 are the formats Adam's first and second moments
	// are rounded to after each update.
	Moment1, Moment2 Quantizer
}

// RoleFormat is the name LayerFormats' quantizers had before Quantizer:
// one tensor role's format and rounding. A zero Format is float32.
// Stochastic rounding draws its random bits from a stream the user of the
// role derives from the run's seed and step, so that a resumed run rounds
// exactly as an uninterrupted one.
type RoleFormat = Quantizer

// BlockRoles are the block-scaled formats of a layer's dot-product
// operands; the zero BlockFormat leaves a role to LayerFormats.
type BlockRoles struct {
	Weight quant.BlockFormat // weights: blocks along the input features (forward) and the output features (error product)
	Act    quant.BlockFormat // activations: along the input features (forward) and the batch (weight-gradient product)
	Err    quant.BlockFormat // errors: along the output features (error product) and the batch (weight-gradient product)
}

// IsZero reports whether no role has a block format.
func (b BlockRoles) IsZero() bool { return b == BlockRoles{} }

// A Policy gives the formats of each layer by its name ("G/fc1"); package
// policy's *Policy is one. Code that takes a Policy treats nil as float32
// everywhere.
type Policy interface {
	For(layer string) LayerFormats
}

// FormatsOf returns p's formats for layer, and float32 everywhere when p
// is nil.
func FormatsOf(p Policy, layer string) LayerFormats {
	if p == nil {
		return LayerFormats{}
	}
	return p.For(layer)
}
