//go:build amd64 && !purego

package vec

// leakySignAVX2 and leakyBackSignAVX2 are LeakyReLUSign and
// LeakyReLUBackSign on len(dst), a multiple of 8, values (leakysign_amd64.s).
//
//go:noescape
func leakySignAVX2(dst []float32, pos []uint8, x []float32, alpha float32)

//go:noescape
func leakyBackSignAVX2(dst, dy []float32, pos []uint8, alpha float32)

func leakySign(dst []float32, pos []uint8, x []float32, alpha float32) {
	if hasAVX2 && len(dst) > 0 {
		leakySignAVX2(dst, pos, x, alpha)
	} else {
		leakySignGo(dst, pos, x, alpha)
	}
}

func leakyBackSign(dst, dy []float32, pos []uint8, alpha float32) {
	if hasAVX2 && len(dst) > 0 {
		leakyBackSignAVX2(dst, dy, pos, alpha)
	} else {
		leakyBackSignGo(dst, dy, pos, alpha)
	}
}
