package nn

import (
	"math"

	"github.com/positgan/positgan/compute"
	"gorgonia.org/tensor"
)

// The sums over a group run in float64, each one chain of adds in element
// order, so that the results depend on nothing else. One chain at a time,
// every add waits for the one before (four cycles or so); the kernels run
// the chains of four neighbouring channels side by side instead, each in
// its own order, so the processor overlaps them and the bits are those of
// one group at a time.

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
func plane[T compute.Float](s []T, st *normState, b, c int) []T {
	i := (b*st.c + c) * st.inner
	return s[i : i+st.inner]
}

// quad returns channels c to c+3, those past the last (of n) replaced by
// the last: the kernels sum them too, and the sums are dropped.
func quad(c, n int) [4]int {
	return [4]int{c, min(c+1, n-1), min(c+2, n-1), min(c+3, n-1)}
}

// planes4 returns sample b's planes of the channels ch.
func planes4[T compute.Float](s []T, st *normState, b int, ch [4]int) (p0, p1, p2, p3 []T) {
	return plane(s, st, b, ch[0]), plane(s, st, b, ch[1]), plane(s, st, b, ch[2]), plane(s, st, b, ch[3])
}

// sum4 returns Σ x over samples [b0, b1) of each of the channels ch.
func sum4[T compute.Float](x []T, st *normState, ch [4]int, b0, b1 int) [4]float64 {
	var s0, s1, s2, s3 float64
	for b := b0; b < b1; b++ {
		x0, x1, x2, x3 := planes4(x, st, b, ch)
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		for i, v := range x0 {
			s0 += float64(v)
			s1 += float64(x1[i])
			s2 += float64(x2[i])
			s3 += float64(x3[i])
		}
	}
	return [4]float64{s0, s1, s2, s3}
}

// sqDev4 returns Σ (x - mean)² over samples [b0, b1) of each of the
// channels ch.
func sqDev4[T compute.Float](x []T, st *normState, ch [4]int, b0, b1 int, mean [4]float64) [4]float64 {
	var s0, s1, s2, s3 float64
	m0, m1, m2, m3 := mean[0], mean[1], mean[2], mean[3]
	for b := b0; b < b1; b++ {
		x0, x1, x2, x3 := planes4(x, st, b, ch)
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		for i, v := range x0 {
			d0 := float64(v) - m0
			d1 := float64(x1[i]) - m1
			d2 := float64(x2[i]) - m2
			d3 := float64(x3[i]) - m3
			s0 += d0 * d0
			s1 += d1 * d1
			s2 += d2 * d2
			s3 += d3 * d3
		}
	}
	return [4]float64{s0, s1, s2, s3}
}

// sumDot4 returns Σ dy and Σ dy·x̂ over samples [b0, b1) of each of the
// channels ch, in one pass.
func sumDot4[T compute.Float](dy []T, xhat []float64, st *normState, ch [4]int, b0, b1 int) (s, sx [4]float64) {
	var s0, s1, s2, s3, t0, t1, t2, t3 float64
	for b := b0; b < b1; b++ {
		d0, d1, d2, d3 := planes4(dy, st, b, ch)
		h0, h1, h2, h3 := planes4(xhat, st, b, ch)
		d1, d2, d3 = d1[:len(d0)], d2[:len(d0)], d3[:len(d0)]
		h0, h1, h2, h3 = h0[:len(d0)], h1[:len(d0)], h2[:len(d0)], h3[:len(d0)]
		for i, v := range d0 {
			v0, v1, v2, v3 := float64(v), float64(d1[i]), float64(d2[i]), float64(d3[i])
			s0 += v0
			s1 += v1
			s2 += v2
			s3 += v3
			t0 += v0 * h0[i]
			t1 += v1 * h1[i]
			t2 += v2 * h2[i]
			t3 += v3 * h3[i]
		}
	}
	return [4]float64{s0, s1, s2, s3}, [4]float64{t0, t1, t2, t3}
}

// normJobs are the loop bodies of a norm node's kernels for element type
// T, one call for four channels, which ForEaches splits. The workers that
// run them keep a pointer to them, so that jobs on the stack would be
// allocated at every call: the node's normState keeps them instead.
type normJobs[T compute.Float] struct {
	sums  normSumsJob[T]
	fwd   normForwardJob[T]
	backX normBackXJob[T]
}

// normJobsOf returns st's jobs for element type T.
func normJobsOf[T compute.Float](st *normState) *normJobs[T] {
	if j, ok := any(&st.jobs32).(*normJobs[T]); ok {
		return j
	}
	return any(&st.jobs64).(*normJobs[T])
}

// normSums returns Σdy and Σdy·x̂ per channel, over the whole batch
// (batch norm's dx needs both; the affine gradients of both norms are
// them), computed once per forward run and gradient dyt.
func normSums[T compute.Float](st *normState, dyt *tensor.Dense) (s, sx []float64) {
	if st.sumsGen == st.gen && st.sumsDy == dyt && len(st.sumDy) == st.c {
		return st.sumDy, st.sumDyHat
	}
	dy := data[T](dyt)
	st.sumDy, st.sumDyHat = grow(st.sumDy, st.c), grow(st.sumDyHat, st.c)
	// Channels are independent: split them across the cores.
	j := &normJobsOf[T](st).sums
	*j = normSumsJob[T]{st: st, dy: dy}
	compute.ForEaches((st.c+3)/4, 4*len(dy), j)
	st.sumsGen, st.sumsDy = st.gen, dyt
	return st.sumDy, st.sumDyHat
}

// normSumsJob is normSums of channels 4q to 4q+3.
type normSumsJob[T compute.Float] struct {
	st *normState
	dy []T
}

func (j *normSumsJob[T]) Each(q int) {
	st, dy := j.st, j.dy
	c0 := 4 * q
	s4, sx4 := sumDot4(dy, st.xhat, st, quad(c0, st.c), 0, st.n)
	copy(st.sumDy[c0:min(c0+4, st.c)], s4[:])
	copy(st.sumDyHat[c0:min(c0+4, st.c)], sx4[:])
}

func normForward[T compute.Float](st *normState, xt, gt, bt, yt *tensor.Dense) {
	x, gamma, beta, y := data[T](xt), data[T](gt), data[T](bt), data[T](yt)
	st.gen++
	st.xhat = grow(st.xhat, len(x))
	ng := st.groups()
	st.invstd = grow(st.invstd, st.c*ng)
	st.batchStats = st.bn == nil || st.bn.Training()
	var rm, rv []T
	if st.bn != nil {
		rm, rv = data[T](st.bn.RunningMean), data[T](st.bn.RunningVar)
	}
	// Channels are independent: split them across the cores.
	j := &normJobsOf[T](st).fwd
	*j = normForwardJob[T]{st: st, x: x, gamma: gamma, beta: beta, y: y, rm: rm, rv: rv}
	compute.ForEaches((st.c+3)/4, 8*len(x), j)
}

// normForwardJob is normForward of channels 4q to 4q+3.
type normForwardJob[T compute.Float] struct {
	st                *normState
	x, gamma, beta, y []T
	rm, rv            []T // batch norm's running statistics, or nil
}

func (j *normForwardJob[T]) Each(q int) {
	st, x, gamma, beta, y, rm, rv := j.st, j.x, j.gamma, j.beta, j.y, j.rm, j.rv
	ng := st.groups()
	c0 := 4 * q
	ch := quad(c0, st.c)
	for gi := 0; gi < ng; gi++ {
		b0, b1 := st.samples(gi)
		m := float64((b1 - b0) * st.inner)
		var means, vars [4]float64
		if st.batchStats {
			means = sum4(x, st, ch, b0, b1)
			for k := range means {
				means[k] /= m
			}
			vars = sqDev4(x, st, ch, b0, b1, means)
			for k := range vars {
				vars[k] /= m
			}
		}
		for k := range min(4, st.c-c0) {
			c := c0 + k
			mean, variance := means[k], vars[k]
			if !st.batchStats {
				mean, variance = float64(rm[c]), float64(rv[c])
			} else if st.bn != nil && !st.frozen {
				mo := st.bn.Momentum
				unbiased := variance
				if m > 1 {
					unbiased = variance * m / (m - 1)
				}
				rm[c] = T((1-mo)*float64(rm[c]) + mo*mean)
				rv[c] = T((1-mo)*float64(rv[c]) + mo*unbiased)
			}
			inv := 1 / math.Sqrt(variance+st.eps)
			st.invstd[c*ng+gi] = inv
			g, be := float64(gamma[c]), float64(beta[c])
			for b := b0; b < b1; b++ {
				xs, xh, ys := plane(x, st, b, c), plane(st.xhat, st, b, c), plane(y, st, b, c)
				xh, ys = xh[:len(xs)], ys[:len(xs)]
				for i, v := range xs {
					h := (float64(v) - mean) * inv
					xh[i] = h
					ys[i] = T(g*h + be)
				}
			}
		}
	}
}

func normBackX[T compute.Float](st *normState, dyt, gt, dxt *tensor.Dense) {
	dy, gamma, dx := data[T](dyt), data[T](gt), data[T](dxt)
	var bs, bsx []float64
	if st.batchStats && !st.perSample {
		bs, bsx = normSums[T](st, dyt)
	}
	// Channels are independent: split them across the cores.
	j := &normJobsOf[T](st).backX
	*j = normBackXJob[T]{st: st, dy: dy, gamma: gamma, dx: dx, bs: bs, bsx: bsx}
	compute.ForEaches((st.c+3)/4, 8*len(dy), j)
}

// normBackXJob is normBackX of channels 4q to 4q+3.
type normBackXJob[T compute.Float] struct {
	st            *normState
	dy, gamma, dx []T
	bs, bsx       []float64 // batch norm's sums over the batch, or nil
}

func (j *normBackXJob[T]) Each(q int) {
	st, dy, gamma, dx, bs, bsx := j.st, j.dy, j.gamma, j.dx, j.bs, j.bsx
	ng := st.groups()
	c0 := 4 * q
	ch := quad(c0, st.c)
	for gi := 0; gi < ng; gi++ {
		b0, b1 := st.samples(gi)
		// dx = γ·inv/m · (m·dy − Σdy − x̂·Σdy·x̂): sums and x̂ in float64.
		m := float64((b1 - b0) * st.inner)
		var s, sx [4]float64
		switch {
		case bs != nil:
			copy(s[:], bs[c0:])
			copy(sx[:], bsx[c0:])
		case st.batchStats:
			s, sx = sumDot4(dy, st.xhat, st, ch, b0, b1)
		}
		for k := range min(4, st.c-c0) {
			c := c0 + k
			g, inv := float64(gamma[c]), st.invstd[c*ng+gi]
			if !st.batchStats {
				for b := b0; b < b1; b++ {
					d, o := plane(dy, st, b, c), plane(dx, st, b, c)
					o = o[:len(d)]
					for i, v := range d {
						o[i] = T(float64(v) * g * inv)
					}
				}
				continue
			}
			sk, sxk := s[k], sx[k]
			f := g * inv / m
			for b := b0; b < b1; b++ {
				d, xh, o := plane(dy, st, b, c), plane(st.xhat, st, b, c), plane(dx, st, b, c)
				xh, o = xh[:len(d)], o[:len(d)]
				for i, v := range d {
					o[i] = T(f * (m*float64(v) - sk - xh[i]*sxk))
				}
			}
		}
	}
}

// normBackAffine sets dst to the gradient of gamma (Σ dy·xhat) or beta (Σ dy).
func normBackAffine[T compute.Float](st *normState, dyt, dstt *tensor.Dense, gamma bool) {
	dst := data[T](dstt)
	s, sx := normSums[T](st, dyt)
	if gamma {
		s = sx
	}
	for c, v := range s {
		dst[c] = T(v)
	}
}
