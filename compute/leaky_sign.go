package compute

import "github.com/positgan/positgan/internal/vec"

// LeakyReLUSign sets dst = x where x > 0 and alpha·x elsewhere, as
// LeakyReLU does, and bit i%8 of pos[i/8] to whether x[i] > 0 (false for
// NaN; the bits of a last partial byte past len(dst) are zero). pos must
// hold (len(dst)+7)/8 bytes. It runs internal/vec's kernel whatever the
// backend: a layer on the CPU backend keeps these bits for its backward
// pass instead of a copy of x, a 32nd of the memory traffic.
func LeakyReLUSign(dst []float32, pos []uint8, x []float32, alpha float32) {
	vec.LeakyReLUSign(dst, pos, x, alpha)
}

// LeakyReLUBackSign sets dst = dy where bit i%8 of pos[i/8] is set and
// alpha·dy elsewhere: LeakyReLUBack with the bits LeakyReLUSign kept of x.
func LeakyReLUBackSign(dst, dy []float32, pos []uint8, alpha float32) {
	vec.LeakyReLUBackSign(dst, dy, pos, alpha)
}
