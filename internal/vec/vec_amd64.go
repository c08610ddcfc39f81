//go:build amd64 && !purego

package vec

// The kernels in vec_amd64.s; each slice has the length of the first.
// AVX-512 pays where the divider and square root bind, in adam and apply
// (on Zen 5, 1.4 times AVX2's speed on a million values, 1.8 in L1), and
// in tanh (twice). The others are bound by memory on tensors of training
// size: AVX-512 leaky ReLU was 2.3 times faster than AVX2 on 2048 values
// in L1 but no faster on 32768 in L2 or a million, so they stay AVX2.

//go:noescape
func adamAVX2(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32)

//go:noescape
func adamAVX512(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32)

//go:noescape
func scaleAVX2(dst, x []float32, a float32)

//go:noescape
func momentsAVX2(m, v, g []float32, b1, c1, b2, c2 float32)

//go:noescape
func applyAVX2(p, m, v []float32, lr, sc2, eps float32)

//go:noescape
func applyAVX512(p, m, v []float32, lr, sc2, eps float32)

//go:noescape
func leakyAVX2(dst, x []float32, alpha float32)

//go:noescape
func leakyBackAVX2(dst, dy, x []float32, alpha float32)

//go:noescape
func countAVX2(x []float32, lo uint32) (ge, inf int)

// tanhAVX2 and tanhAVX512 are in tanh_amd64.s; they need FMA too.
//
//go:noescape
func tanhAVX2(dst, x []float32)

//go:noescape
func tanhAVX512(dst, x []float32)

// maxLevel is the highest level the package has kernels for.
const maxLevel = levelAVX512

// The instruction sets the kernels may use, set by useLevel from the
// level in use. (The avx2 level has FMA, which is also math's condition
// for the FMA path of Exp, which tanhAVX2 reproduces.)
var hasAVX2, hasAVX512, hasFMA bool

// useLevel makes the dispatchers run the kernels of level l and below.
func useLevel(l level) {
	levelInUse = l
	hasAVX2, hasAVX512, hasFMA = l >= levelAVX2, l >= levelAVX512, l >= levelAVX2
}

func adam(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32) {
	switch {
	case hasAVX512:
		adamAVX512(p, g, m, v, inv, b1, c1, b2, c2, lr, sc2, eps)
	case hasAVX2:
		adamAVX2(p, g, m, v, inv, b1, c1, b2, c2, lr, sc2, eps)
	default:
		adamGo(p, g, m, v, inv, b1, c1, b2, c2, lr, sc2, eps)
	}
}

func scale(dst, x []float32, a float32) {
	if hasAVX2 {
		scaleAVX2(dst, x, a)
	} else {
		scaleGo(dst, x, a)
	}
}

func moments(m, v, g []float32, b1, c1, b2, c2 float32) {
	if hasAVX2 {
		momentsAVX2(m, v, g, b1, c1, b2, c2)
	} else {
		momentsGo(m, v, g, b1, c1, b2, c2)
	}
}

func apply(p, m, v []float32, lr, sc2, eps float32) {
	switch {
	case hasAVX512:
		applyAVX512(p, m, v, lr, sc2, eps)
	case hasAVX2:
		applyAVX2(p, m, v, lr, sc2, eps)
	default:
		applyGo(p, m, v, lr, sc2, eps)
	}
}

func leaky(dst, x []float32, alpha float32) {
	if hasAVX2 {
		leakyAVX2(dst, x, alpha)
	} else {
		leakyGo(dst, x, alpha)
	}
}

func leakyBack(dst, dy, x []float32, alpha float32) {
	if hasAVX2 {
		leakyBackAVX2(dst, dy, x, alpha)
	} else {
		leakyBackGo(dst, dy, x, alpha)
	}
}

func count(x []float32, lo uint32) (ge, inf int) {
	if hasAVX2 {
		return countAVX2(x, lo)
	}
	return countGo(x, lo)
}

func tanh(dst, x []float32) {
	switch {
	case hasAVX512 && hasFMA:
		tanhAVX512(dst, x)
	case hasAVX2 && hasFMA:
		tanhAVX2(dst, x)
	default:
		tanhGo(dst, x)
	}
}
