// Package tanhapprox provides cheap approximations of tanh and the logistic
// sigmoid for GAN output layers: the bitwise posit sigmoid, tanh built from
// it (plain and with a tail correction), and minimax piecewise-linear
// functions with K pieces, together with Gorgonia ops that use them in place
// of Tanh and Sigmoid.
//
// # Bitwise sigmoid
//
// For a posit(n,0) code x, the code (x XOR 1<<(n-1)) >> 2 (an unsigned
// shift of the n-bit pattern) is close to sigmoid(x): it costs one XOR and
// one shift. The result always lies in [0,1), where posit(n,0) values form
// the uniform grid k·2^-(n-2) and the code of k·2^-(n-2) is k itself. Its
// largest error over posit(16,0) is 0.0490 (at x ≈ 3.4); with n = 8 it is
// 0.0607. The rule needs es = 0 (for es = 1 its error is 0.31 and it is no
// approximation) and no exponent bias; n = 3 to 5 give errors of 0.38 to
// 0.12, so the constructor accepts n >= 3 but the rule is useful from
// about n = 6 on. The rule maps NaR to 0; this package maps NaR to NaR.
//
// Tanh follows from tanh(x) = 2·sigmoid(2x) - 1. In posit(n,0) arithmetic
// 2x is rounded (a multiply by two loses a bit once |x| >= 1), while 2s-1
// is exact because s lies on the uniform grid of [0,1). The corrected tanh
// pulls the tails towards ±1: R > θ gives min(R+δ, 1), R < -θ gives
// max(R-δ, -1), with the published θ = 0.7583 and δ = 0.06795 as defaults.
//
// Over every posit(16,0) code the bitwise tanh's largest error is 0.0980
// (mean 0.0401) and the corrected one's 0.0384 (mean 0.0136). The
// published figures, 0.098 and 0.056 plain, 0.0379 and 0.0086 corrected,
// are those over a uniform grid of step 0.01 (or 0.1) on [-8,8] with the
// inputs rounded to posit(16,0); that grid steps over a spike of the
// corrected error about 0.002 wide at x ≈ ±1.066, where R first passes
// ±θ. ErrorTable and CheckPublished measure both, and "positgan approx
// table" prints them.
//
// # Piecewise-linear
//
// NewPWL builds the continuous piecewise-linear function with K pieces on
// x >= 0 (the last one constant), extended to x < 0 by symmetry, whose
// largest absolute error over the whole real line is smallest. See NewPWL
// for how the breakpoints are found.
//
// # Inputs, outputs and the slice convention
//
// Every approximation has a float64 scalar form At and a float32 slice form
// Apply(dst, src); the slice written to is dst, and comes first. The
// bitwise methods first round their input to the posit format.
package tanhapprox
