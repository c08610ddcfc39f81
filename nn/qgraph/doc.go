// Package qgraph inserts quantization into Gorgonia graphs.
//
// Quantize is the single graph op: it rounds its input to a forward
// format and the gradient flowing back through it to a backward format
// (the error format), or passes the gradient straight through. Every
// parameter is part of the op's hash, so Gorgonia never merges two
// quantizers that differ.
//
// The layer wrappers put a policy's quantizers around a dot product, for a
// layer named by the caller:
//
//	y, err := qgraph.Mul(pol, "G/fc1", x, w)          // instead of gorgonia.Mul(x, w)
//	y, err := qgraph.Conv2d(pol, "G/conv1", x, w, k, pad, stride, dil)
//	y, err := qgraph.BatchedMatMul(pol, "attn", q, kT, qgraph.Act, qgraph.Act, false, false)
//	y, err := qgraph.Dot(pol, "layer", f, a, b, qgraph.Act, qgraph.Weight) // any bilinear f
//
// Around each dot product, with lf = pol.For(layer):
//
//	activation operand:  forward lf.Act,    backward lf.Err   (error passed back)
//	weight operand:      forward lf.Weight, backward lf.WGrad (weight gradient)
//	result:              forward lf.Out,    backward lf.Err   (error arriving)
//
// Where two tensors meet outside a dot product, Add, Sub and Concat round
// the result to the layer's Other format, or to the promotion of the
// inputs' formats when the policy leaves it unnamed (quant.Promote; see
// promote.go).
//
// Rewrite does the same to a graph already built with plain Gorgonia ops:
// it copies the graph, inserting the quantizers around every dot-product
// node and putting a layer's output quantizer after its bias (see Rewrite
// for what it recognises). A rewritten network is checked against the
// fused layers of nn: built from plain Mul, BroadcastAdd and Conv2d
// and rewritten, it gives the same outputs and gradients (of the input and
// of every weight and bias), bit for bit, as the same network built from
// nn.Linear and nn.Conv2d with the same weights and policy.For(layer), for
// the policy presets with fp32, quire and per-op accumulation
// (rewrite_fused_test.go). For fp32 that needs the same order of float32
// operations, so Rewrite computes weight matrix multiplies and bias
// gradients with the kernels of the fused layers (nn.LinearKernel,
// nn.Conv2dKernel, nn.SumBias), and im2col's gradient with the col2im of
// internal/gemm nn.Conv2d uses, rather than with Gorgonia's ops. Rewrite's knowledge of
// Gorgonia's unexported op types is confined to gorgonia_internals.go,
// whose tests fail with "gorgonia changed" if a Gorgonia version breaks it.
//
// Accumulation: with quant.AccumFP32 the wrappers' dot products are
// Gorgonia's own (float32 sums for float32 graphs; Rewrite's weight matrix
// multiplies follow the fused layers instead, as above). Quire and per-op accumulation replace
// matrix multiplies — Mul of two matrices, Conv2d, and Rewrite's matrix
// multiplies — by an op built on the reference kernels of internal/gemm
// (gemm.QuireGemm, gemm.PerOpGemm), backward passes included: each of a
// layer's three dot products rounds to its result's format (Out, and Err
// or WGrad for the operand gradients), or to the layer's AccumFormat if it
// names one. A convolution's error is rounded so per window, then the
// windows are summed in the graph's dtype and rounded to Err again, as
// nn.Conv2d does (see Conv2d). Other dot products (matrix-vector,
// BatchedMatMul, Dot) support fp32 only and return an error otherwise.
// These reference kernels take nanoseconds per product; the fused layers
// of nn are the fast path.
//
// Block formats (mxfp8, posit8-block, ...; nn.Quantizer.Block of a role):
// Rewrite blocks each operand of a rewritten layer's matrix multiply along
// the reduction dimension of every product it enters, forward and in both
// backward products, re-blocked from the unrounded values, as nn.Linear and
// nn.Conv2d do; a rewritten network gives their bits (rewrite_fused_test.go).
// That needs fp32 accumulation and rounding to nearest, and a dot product
// with one weight operand; otherwise Rewrite returns an error, and the
// layer wrappers (Mul, Conv2d, Dot, BatchedMatMul) refuse block formats.
//
// Gradients: only symbolic differentiation (gorgonia.Grad, the
// TapeMachine) is supported; the LispMachine's automatic differentiation
// is not.
package qgraph
