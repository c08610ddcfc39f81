package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/compute"
	"gorgonia.org/tensor"
)

// The norm kernels sum several channels side by side; their results must
// be those of the kernels that summed one group at a time, below, bit for
// bit: the forward output, x̂, 1/σ, the running statistics and the three
// gradients, for batch norm (training, frozen, evaluation) and instance
// norm, for channel counts on both sides of the four summed together, and
// whatever the order of the backward ops.
func TestNormKernelsBits(t *testing.T) {
	testNormKernelsBits[float32](t, tensor.Float32)
	testNormKernelsBits[float64](t, tensor.Float64)
}

func testNormKernelsBits[T compute.Float](t *testing.T, dt tensor.Dtype) {
	rng := rand.New(rand.NewPCG(11, 12))
	vals := func(n int, scale, shift float64) []T {
		s := make([]T, n)
		for i := range s {
			s[i] = T(shift + scale*rng.NormFloat64())
		}
		return s
	}
	for _, mode := range []string{"bn-train", "bn-frozen", "bn-eval", "in"} {
		for _, c := range []int{1, 3, 4, 5, 9} {
			for _, sh := range [][2]int{{1, 1}, {6, 1}, {3, 7}, {4, 49}, {2, 196}} {
				n, inner := sh[0], sh[1]
				name := fmt.Sprintf("%v %s n=%d c=%d inner=%d", dt, mode, n, c, inner)
				size := n * c * inner
				x, dy := vals(size, 3, 0.5), vals(size, 1, 0)
				gamma, beta := vals(c, 0.5, 1), vals(c, 0.5, 0)
				rm, rv := vals(c, 0.1, 0.2), vals(c, 0.1, 1.5)
				run := func(ref bool) (outs [][]T, invstd []float64) {
					st := &normState{n: n, c: c, inner: inner, eps: 1e-5, perSample: mode == "in"}
					var bn *BatchNorm
					if mode != "in" {
						training := mode != "bn-eval"
						bn = &BatchNorm{C: c, Momentum: 0.1, mode: &training,
							RunningMean: dense(dt, []int{c}, append([]T(nil), rm...)),
							RunningVar:  dense(dt, []int{c}, append([]T(nil), rv...))}
						st.bn, st.frozen = bn, mode == "bn-frozen"
					}
					shape := []int{n, c, inner}
					xt, dyt := dense(dt, shape, x), dense(dt, shape, dy)
					gt, bt := dense(dt, []int{c}, gamma), dense(dt, []int{c}, beta)
					y, dx := dense(dt, shape, make([]T, size)), dense(dt, shape, make([]T, size))
					dg, db := dense(dt, []int{c}, make([]T, c)), dense(dt, []int{c}, make([]T, c))
					if ref {
						var xhat []float64
						refNormForward[T](st, &xhat, xt, gt, bt, y)
						refNormBackX[T](st, xhat, dyt, gt, dx)
						refNormBackAffine[T](st, xhat, dyt, dg, true)
						refNormBackAffine[T](st, xhat, dyt, db, false)
					} else {
						// The affine gradients first, then dx, then again
						// from another gradient: batch norm's cached sums
						// must follow dy.
						normForward[T](st, xt, gt, bt, y)
						other := dense(dt, shape, vals(size, 2, 1))
						normBackAffine[T](st, other, xt, dg, true)
						normBackX[T](st, other, gt, xt, dx)
						normBackAffine[T](st, dyt, xt, dg, true)
						normBackX[T](st, dyt, gt, xt, dx)
						normBackAffine[T](st, dyt, xt, db, false)
					}
					outs = [][]T{data[T](y), data[T](dx), data[T](dg), data[T](db)}
					if bn != nil {
						outs = append(outs, data[T](bn.RunningMean), data[T](bn.RunningVar))
					}
					return outs, st.invstd
				}
				want, wantInv := run(true)
				got, gotInv := run(false)
				for k, what := range []string{"y", "dx", "dgamma", "dbeta", "running mean", "running var"}[:len(want)] {
					for i := range want[k] {
						if bitsOf(got[k][i]) != bitsOf(want[k][i]) {
							t.Fatalf("%s: %s[%d] = %v, want %v", name, what, i, got[k][i], want[k][i])
						}
					}
				}
				for i := range wantInv {
					if math.Float64bits(gotInv[i]) != math.Float64bits(wantInv[i]) {
						t.Fatalf("%s: invstd[%d] = %v, want %v", name, i, gotInv[i], wantInv[i])
					}
				}
			}
		}
	}
}

func dense[T compute.Float](dt tensor.Dtype, shape []int, s []T) *tensor.Dense {
	return tensor.New(tensor.Of(dt), tensor.WithShape(shape...), tensor.WithBacking(s))
}

func bitsOf[T compute.Float](v T) uint64 {
	switch v := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(v))
	case float64:
		return math.Float64bits(v)
	}
	panic("unreachable")
}

// BenchmarkNorm times the batch norm kernels at dcgan64's shapes and at a
// fully connected layer's (1024 features, one value a plane, as in the
// CGAN's generator), batch 64: forward, and backward (the input gradient
// and both affine gradients).
func BenchmarkNorm(b *testing.B) {
	for _, sh := range [][2]int{{128, 49}, {64, 196}, {1024, 1}} {
		c, inner := sh[0], sh[1]
		const n = 64
		size := n * c * inner
		rng := rand.New(rand.NewPCG(1, 1))
		vals := func(k int) []float32 {
			s := make([]float32, k)
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
			return s
		}
		training := true
		st := &normState{n: n, c: c, inner: inner, eps: 1e-5,
			bn: &BatchNorm{C: c, Momentum: 0.1, mode: &training,
				RunningMean: dense(tensor.Float32, []int{c}, vals(c)), RunningVar: dense(tensor.Float32, []int{c}, vals(c))}}
		shape := []int{n, c, inner}
		x, dy, y, dx := dense(tensor.Float32, shape, vals(size)), dense(tensor.Float32, shape, vals(size)),
			dense(tensor.Float32, shape, vals(size)), dense(tensor.Float32, shape, vals(size))
		gamma, beta, dg := dense(tensor.Float32, []int{c}, vals(c)), dense(tensor.Float32, []int{c}, vals(c)), dense(tensor.Float32, []int{c}, vals(c))
		normForward[float32](st, x, gamma, beta, y) // the mean and 1/σ for backward
		name := fmt.Sprintf("c%d-inner%d", c, inner)
		elems := func(b *testing.B) {
			b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
		}
		b.Run("forward/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				normForward[float32](st, x, gamma, beta, y)
			}
			elems(b)
		})
		b.Run("backward/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				st.gen++ // as after a forward run: the sums are computed anew
				normBackX[float32](st, dy, gamma, x, dx)
				normBackAffine[float32](st, dy, x, dg, true)
				normBackAffine[float32](st, dy, x, dg, false)
			}
			elems(b)
		})
	}
}

// The kernels as they were, one group's sums at a time, and how they
// index the node's tensors: groups per channel, the samples of group gi,
// and the plane of sample b, channel c.

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

func plane[T compute.Float](s []T, st *normState, b, c int) []T {
	i := (b*st.c + c) * st.inner
	return s[i : i+st.inner]
}

func refNormForward[T compute.Float](st *normState, xhat *[]float64, xt, gt, bt, yt *tensor.Dense) {
	x, gamma, beta, y := data[T](xt), data[T](gt), data[T](bt), data[T](yt)
	*xhat = grow(*xhat, len(x))
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
				xs, xh, ys := plane(x, st, b, c), plane(*xhat, st, b, c), plane(y, st, b, c)
				for i, v := range xs {
					h := (float64(v) - mean) * inv
					xh[i] = h
					ys[i] = T(g*h + be)
				}
			}
		}
	}
}

func refNormBackX[T compute.Float](st *normState, xhat []float64, dyt, gt, dxt *tensor.Dense) {
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
				d, xh := plane(dy, st, b, c), plane(xhat, st, b, c)
				for i, v := range d {
					s += float64(v)
					sx += float64(v) * xh[i]
				}
			}
			k := g * inv / m
			for b := b0; b < b1; b++ {
				d, xh, o := plane(dy, st, b, c), plane(xhat, st, b, c), plane(dx, st, b, c)
				for i, v := range d {
					o[i] = T(k * (m*float64(v) - s - xh[i]*sx))
				}
			}
		}
	}
}

// refNormBackAffine sets dst to the gradient of gamma (Σ dy·xhat) or beta (Σ dy).
func refNormBackAffine[T compute.Float](st *normState, xhat []float64, dyt, dstt *tensor.Dense, gamma bool) {
	dy, dst := data[T](dyt), data[T](dstt)
	for c := 0; c < st.c; c++ {
		var s float64
		for b := 0; b < st.n; b++ {
			d, xh := plane(dy, st, b, c), plane(xhat, st, b, c)
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
