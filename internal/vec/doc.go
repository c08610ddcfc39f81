// Package vec holds element-wise float32 kernels of the training step:
// the Adam update (fused, and split in three passes for rounding between
// them), leaky ReLU (and so ReLU) forward and backward, tanh, a count
// of a tensor's non-finite and saturated values, and the element-wise
// passes of batch and instance norm (in float64, on float32 data). They are Go assembly
// for amd64 (AVX2, and AVX-512 where it pays) and a portable Go fallback
// elsewhere or with the purego build tag. Package compute's CPU backend
// calls them; nothing above compute does.
//
// Every kernel gives the same bits as the scalar Go loop it replaced, on
// every input, ±0, subnormals, ±Inf and NaN included, so that moving a
// loop here changes no training run: the assembly does the same IEEE
// operations in the same order and association, each multiply rounded
// before its add (Go does not fuse float32 multiply-adds on amd64 at the
// default GOAMD64=v1, and the fallback converts explicitly so that no
// architecture or GOAMD64 level fuses them), √ as VSQRTPS (which rounds
// as float32(math.Sqrt(float64(x)))) and division as VDIVPS; tanh
// repeats math.Tanh's float64 operations, its amd64 Exp's fused ones
// included. Only which of two NaN operands an operation returns is not
// Go's to define: x86 returns its first source's, and which operand that
// is the compiler chooses; the assembly makes the choices gan's
// Adam.Step was compiled with.
//
// Selections are masks and blends, not branches: activations and
// gradients have random signs, on which a branch mispredicts half the
// time.
//
// The first argument is the slice written (or updated in place); its
// length is the number of elements, and the other slices must be at
// least as long or the kernel panics.
package vec
