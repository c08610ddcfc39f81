package nn

import "github.com/positgan/positgan/quant"

// LayerFormats are the quantizers one layer uses, by tensor role: those of
// its dot products (Weight, Act, Out, Err, WGrad), how the products are
// summed, and those of the rest of a training step. The zero Quantizer
// leaves a tensor in float32. Exponent biases are part of the formats (see
// quant.Scale).
//
// The operands of the dot products, Weight, Act and Err, may take a block
// format (Quantizer.Block) instead of an element-wise one: such a role is
// rounded block by block along the reduction dimension of every product
// it enters (re-blocked from the unrounded tensor for the transposed
// products of the backward pass). The other roles take element-wise
// formats only.
type LayerFormats struct {
	Weight Quantizer // weights, as dot-product operands
	Act    Quantizer // activations: the dot product's other operand
	Out    Quantizer // the layer's output
	Err    Quantizer // errors: gradients flowing back to the layer's input
	WGrad  Quantizer // weight gradients
	// Accum is how products are summed; AccumFormat is the format per-op
	// accumulation rounds to and quire accumulation rounds the sum to
	// (nil: Out's). It is a bare Format, not a Quantizer, because a sum
	// is always rounded to nearest, element by element.
	Accum       quant.Accumulation
	AccumFormat quant.Format
	// Sparsity masks the weights N:M as the products read them, and the
	// weight gradients (see Sparsity); the zero value masks nothing.
	Sparsity Sparsity

	// The roles below quantize the rest of a training step, each with its
	// own rounding (QPyTorch's OptimLP rounds weights, gradients and
	// momenta each to its own quantizer). Their zero value is float32, so
	// a policy that does not name them trains as before. Stochastic
	// rounding draws its random bits from a stream the user of the role
	// derives from the run's seed and step, so that a resumed run rounds
	// exactly as an uninterrupted one.
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

	// OtherNone records that the policy names float32 ("none") as Other,
	// where a zero Other alone means that it names no format: a residual
	// sum whose Other is unnamed takes the promotion of its inputs'
	// formats (see Scope.Residual), one named none stays float32.
	OtherNone bool
	// Promoter, if not nil, is how formats promote where two meet in this
	// layer (the policy's prefer list and formats; see quant.Promoter);
	// nil: among the operands and the built-in formats.
	Promoter *quant.Promoter
}

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
