package featnet

import "math"

type float interface{ ~float32 | ~float64 }

// xentForward sets dst[i] to logsumexp(z_i) - Σ_j t_ij z_ij for the rows
// z_i, t_i of length k, summing in float64.
func xentForward[T float](dst, z, t []T, k int) {
	for i := range dst {
		zi, ti := z[i*k:(i+1)*k], t[i*k:(i+1)*k]
		m := rowMax(zi)
		var se, tz, ts float64
		for j, v := range zi {
			d := float64(v) - m
			se += math.Exp(d)
			tz += float64(float64(ti[j]) * d) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
			ts += float64(ti[j])
		}
		// logsumexp(z) - Σ t·z with m subtracted from both: the shift
		// cancels when Σt = 1 and is accounted for otherwise.
		dst[i] = T(math.Log(se) + m - tz - float64(ts*m)) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
	}
}

// xentBackward sets dz_ij = s·dy_i·(softmax(z_i)_j·Σt_i - t_ij).
func xentBackward[T float](dz, z, t, dy []T, k int, s T) {
	for i, g := range dy {
		zi, ti, di := z[i*k:(i+1)*k], t[i*k:(i+1)*k], dz[i*k:(i+1)*k]
		m := rowMax(zi)
		var se, ts float64
		for j, v := range zi {
			se += math.Exp(float64(v) - m)
			ts += float64(ti[j])
		}
		for j, v := range zi {
			p := math.Exp(float64(v)-m) / se
			di[j] = s * g * T(float64(p*ts)-float64(ti[j])) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
		}
	}
}

func rowMax[T float](z []T) float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, float64(v))
	}
	if math.IsInf(m, -1) {
		return 0
	}
	return m
}
