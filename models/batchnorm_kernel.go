package models

import "math"

// Kernels of BatchNorm: plain loops over slices, no checks.

func bnForward[T float](st *bnState, dst, x, gamma, beta []T) {
	n := float64(st.batch * st.p)
	for c := 0; c < st.b.C; c++ {
		var sum float64
		st.each(c, func(i int) { sum += float64(x[i]) })
		mean := sum / n
		var ss float64
		st.each(c, func(i int) { d := float64(x[i]) - mean; ss += d * d })
		inv := 1 / math.Sqrt(ss/n+st.b.Eps)
		st.invStd[c] = inv
		g, b := float64(gamma[c]), float64(beta[c])
		st.each(c, func(i int) {
			h := (float64(x[i]) - mean) * inv
			st.xhat[i] = h
			dst[i] = T(g*h + b)
		})
	}
}

func bnBackX[T float](st *bnState, dx, gamma, dy []T) {
	n := float64(st.batch * st.p)
	for c := 0; c < st.b.C; c++ {
		var sdy, sdyh float64
		st.each(c, func(i int) { sdy += float64(dy[i]); sdyh += float64(dy[i]) * st.xhat[i] })
		k := float64(gamma[c]) * st.invStd[c] / n
		st.each(c, func(i int) {
			dx[i] = T(k * (n*float64(dy[i]) - sdy - st.xhat[i]*sdyh))
		})
	}
}

// bnSums sets dst[c] to Σ dy·x̂ (withXhat) or Σ dy over channel c.
func bnSums[T float](st *bnState, dst, dy []T, withXhat bool) {
	for c := range dst {
		var s float64
		st.each(c, func(i int) {
			if withXhat {
				s += float64(dy[i]) * st.xhat[i]
			} else {
				s += float64(dy[i])
			}
		})
		dst[c] = T(s)
	}
}
