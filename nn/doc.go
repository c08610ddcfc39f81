// Package nn is the layer library the positgan models are built from, as
// Gorgonia custom ops: fused quantized Linear, Conv2d and ConvTranspose2d
// layers, normalisation, activations, padding, upsampling, losses, and
// correct replacements for Gorgonia ops that give wrong results in
// v0.9.18 (average pooling, spatial mean, batch and instance
// normalisation, nearest upsampling, reshape).
//
// Modules: a Module is a network or part of one (Forward on nodes,
// Params, Buffers, Share into another graph). A Scope builds modules in a
// graph under a name prefix: it names every quantized layer as policies
// address it ("G_AB/res3/conv1"), looks its formats up, and derives its
// initial weights from the run's seed and that name. Containers: Seq,
// Residual (x + f(x)), Cat (along channels), Conditional (labels
// concatenated to the input), Func (any op as a module). A Pass carries a
// forward pass's labels and hooks (taps of each quantized layer's input
// and output, and of the error arriving at its output).
//
// A layer is a struct of parameters built by a New function for one graph,
// with a Fwd method that adds ONE node to the graph. Its forward kernel
// rounds the input to LayerFormats.Act and the weights to Weight while
// packing them into buffers the layer keeps, multiplies them with
// compute.Gemm, adds the bias and rounds the result to Out. Its backward
// kernels round the incoming gradient to Err (a matrix-multiply operand),
// the input gradient to Err and the weight and bias gradients to WGrad.
// Rounding is straight-through: the backward pass treats each rounding as
// the identity, so nil formats give the exact gradients of the float
// layer. Bias is added in float32 after the accumulation and is not
// rounded as an operand.
//
// Accumulation (LayerFormats.Accum): AccumFP32 multiplies the rounded
// operands with float32 SGEMM. AccumQuire rounds each exact dot product
// once, to AccumFormat (nil: the result's role format: Out, Err or WGrad),
// by exact float64 DGEMMs (compute.QuireGemm). AccumPerOp rounds
// every product and every partial sum to that format, summing in order of
// the inner index, with byte-indexed tables for 8-bit formats
// (compute.PerOpGemm).
//
// The other ops: AvgPool2D, SpatialMean, Upsample2D, PixelShuffle,
// ReflectionPad2D, Reshape (a copy), Concat, Add, Scale, ReLU, LeakyReLU,
// Tanh, Sigmoid, InstanceNorm and BatchNorm (running statistics, with
// training and evaluation modes per copy), and the losses SoftplusLoss,
// MSETarget, MSELoss, L1Loss, WeightedSum and the projection AddRowDot.
// They are not quantized themselves; Scope.Other rounds around them where
// a policy gives them an Other format.
//
// Quantizers: a Quantizer is one tensor role's format (or block format)
// and rounding. Quantize is the one quantizer op, forward and backward
// (QPyTorch's quantizer): Scope.Other, RoundOther and nn/qgraph's
// Quantize all build it; its kernel is compute.Rounder.
//
// Values are float32 for training and float64 for gradient checks; with
// float64 data the formats round with Format.Round64, always to nearest.
//
// Buffers: each node's kernels reuse their buffers and output tensors from
// one run to the next, so steady-state training allocates little. The
// value a node returns is overwritten by the next run; copy it to keep it.
//
// Gradients: gorgonia.Grad returns gradient nodes; read their values after
// each run. Values bound with BindDualValues accumulate across runs
// (Gorgonia issue 543) unless ZeroGrads clears them.
package nn
