package nn

import (
	"math"

	"github.com/positgan/positgan/internal/gemm"
	"gorgonia.org/tensor"
)

// groups returns the number of groups per channel and, for group gi, the
// range of samples it spans.
func (st *normState) groups() int {
	if st.perSample {
		return st.n
	}
	return 1
}

func (st *normState) samples(gi int) (int, int) {
	if st.perSample {
		return gi, gi + 1
	}
	return 0, st.n
}

// plane returns the inner elements of sample b, channel c.
func plane[T gemm.Float](s []T, st *normState, b, c int) []T {
	i := (b*st.c + c) * st.inner
	return s[i : i+st.inner]
}

func normForward[T gemm.Float](st *normState, xt, gt, bt, yt *tensor.Dense) {
	x, gamma, beta, y := data[T](xt), data[T](gt), data[T](bt), data[T](yt)
	st.xhat = grow(st.xhat, len(x))
	ng := st.groups()
	st.invstd = grow(st.invstd, st.c*ng)
	st.batchStats = st.bn == nil || st.bn.Training()
	var rm, rv []T
	if st.bn != nil {
		rm, rv = data[T](st.bn.RunningMean), data[T](st.bn.RunningVar)
	}
	for c := 0; c < st.c; c++ {
		for gi := 0; gi < ng; gi++ {
			b0, b1 := st.samples(gi)
			var mean, variance float64
			if st.batchStats {
				m := float64((b1 - b0) * st.inner)
				for b := b0; b < b1; b++ {
					for _, v := range plane(x, st, b, c) {
						mean += float64(v)
					}
				}
				mean /= m
				for b := b0; b < b1; b++ {
					for _, v := range plane(x, st, b, c) {
						d := float64(v) - mean
						variance += d * d
					}
				}
				variance /= m
				if st.bn != nil && !st.frozen {
					mo := st.bn.Momentum
					unbiased := variance
					if m > 1 {
						unbiased = variance * m / (m - 1)
					}
					rm[c] = T((1-mo)*float64(rm[c]) + mo*mean)
					rv[c] = T((1-mo)*float64(rv[c]) + mo*unbiased)
				}
			} else {
				mean, variance = float64(rm[c]), float64(rv[c])
			}
			inv := 1 / math.Sqrt(variance+st.eps)
			st.invstd[c*ng+gi] = inv
			g, be := float64(gamma[c]), float64(beta[c])
			for b := b0; b < b1; b++ {
				xs, xh, ys := plane(x, st, b, c), plane(st.xhat, st, b, c), plane(y, st, b, c)
				for i, v := range xs {
					h := (float64(v) - mean) * inv
					xh[i] = h
					ys[i] = T(g*h + be)
				}
			}
		}
	}
}

func normBackX[T gemm.Float](st *normState, dyt, gt, dxt *tensor.Dense) {
	dy, gamma, dx := data[T](dyt), data[T](gt), data[T](dxt)
	ng := st.groups()
	for c := 0; c < st.c; c++ {
		g := float64(gamma[c])
		for gi := 0; gi < ng; gi++ {
			b0, b1 := st.samples(gi)
			inv := st.invstd[c*ng+gi]
			if !st.batchStats {
				for b := b0; b < b1; b++ {
					d, o := plane(dy, st, b, c), plane(dx, st, b, c)
					for i, v := range d {
						o[i] = T(float64(v) * g * inv)
					}
				}
				continue
			}
			// dx = γ·inv/m · (m·dy − Σdy − x̂·Σdy·x̂): sums and x̂ in float64.
			m := float64((b1 - b0) * st.inner)
			var s, sx float64
			for b := b0; b < b1; b++ {
				d, xh := plane(dy, st, b, c), plane(st.xhat, st, b, c)
				for i, v := range d {
					s += float64(v)
					sx += float64(v) * xh[i]
				}
			}
			k := g * inv / m
			for b := b0; b < b1; b++ {
				d, xh, o := plane(dy, st, b, c), plane(st.xhat, st, b, c), plane(dx, st, b, c)
				for i, v := range d {
					o[i] = T(k * (m*float64(v) - s - xh[i]*sx))
				}
			}
		}
	}
}

// normBackAffine sets dst to the gradient of gamma (Σ dy·xhat) or beta (Σ dy).
func normBackAffine[T gemm.Float](st *normState, dyt, dstt *tensor.Dense, gamma bool) {
	dy, dst := data[T](dyt), data[T](dstt)
	for c := 0; c < st.c; c++ {
		var s float64
		for b := 0; b < st.n; b++ {
			d, xh := plane(dy, st, b, c), plane(st.xhat, st, b, c)
			for i, v := range d {
				if gamma {
					s += float64(v) * xh[i]
				} else {
					s += float64(v)
				}
			}
		}
		dst[c] = T(s)
	}
}
