package vec

// LeakyReLUSign sets dst = x where x > 0 and alpha·x elsewhere, as
// LeakyReLU does, and bit i%8 of pos[i/8] to whether x[i] > 0 (false for
// NaN), the bits of a last partial byte past len(dst) to zero. The bits
// are all LeakyReLUBackSign needs of x, a 32nd of its size: a layer that
// kept a copy of x for its backward pass wrote and read 4 bytes a value
// more. pos must hold (len(dst)+7)/8 bytes.
func LeakyReLUSign(dst []float32, pos []uint8, x []float32, alpha float32) {
	n := len(dst)
	x, pos = x[:n], pos[:(n+7)/8]
	full := n &^ 7
	leakySign(dst[:full], pos[:full/8], x[:full], alpha)
	if full < n {
		leakySignGo(dst[full:], pos[full/8:], x[full:], alpha)
	}
}

// LeakyReLUBackSign sets dst = dy where bit i%8 of pos[i/8] is set and
// alpha·dy elsewhere: LeakyReLUBack with the bits LeakyReLUSign kept of
// x. pos must hold (len(dst)+7)/8 bytes.
func LeakyReLUBackSign(dst, dy []float32, pos []uint8, alpha float32) {
	n := len(dst)
	dy, pos = dy[:n], pos[:(n+7)/8]
	full := n &^ 7
	leakyBackSign(dst[:full], dy[:full], pos[:full/8], alpha)
	if full < n {
		leakyBackSignGo(dst[full:], dy[full:], pos[full/8:], alpha)
	}
}

// leakySignGo is LeakyReLUSign in Go, branch-free as leakyGo.
func leakySignGo(dst []float32, pos []uint8, x []float32, alpha float32) {
	x = x[:len(dst)]
	var b uint8
	for i, v := range x {
		m := positive(v)
		dst[i] = pick(m, v, alpha*v)
		b |= uint8(m&1) << (i & 7)
		if i&7 == 7 || i == len(x)-1 {
			pos[i>>3] = b
			b = 0
		}
	}
}

// leakyBackSignGo is LeakyReLUBackSign in Go.
func leakyBackSignGo(dst, dy []float32, pos []uint8, alpha float32) {
	dy = dy[:len(dst)]
	for i, d := range dy {
		m := -uint32(pos[i>>3] >> (i & 7) & 1)
		dst[i] = pick(m, d, alpha*d)
	}
}
