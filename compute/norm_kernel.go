package compute

import (
	"math"

	"github.com/positgan/positgan/internal/vec"
)

// The sums over a group run in float64, each one chain of adds in element
// order, so that the results depend on nothing else. One chain at a time,
// every add waits for the one before (four cycles or so); the kernels run
// the chains of four neighbouring channels side by side instead, each in
// its own order, so the processor overlaps them and the bits are those of
// one group at a time.

// samples returns the range of samples that group gi of a channel spans.
func (g Norm) samples(gi int) (int, int) {
	if g.PerSample {
		return gi, gi + 1
	}
	return 0, g.N
}

// plane returns the inner elements of sample b, channel c.
func plane[T Float](s []T, g *Norm, b, c int) []T {
	i := (b*g.C + c) * g.Inner
	return s[i : i+g.Inner]
}

// quad returns channels c to c+3, those past the last (of n) replaced by
// the last: the kernels sum them too, and the sums are dropped.
func quad(c, n int) [4]int {
	return [4]int{c, min(c+1, n-1), min(c+2, n-1), min(c+3, n-1)}
}

// planes4 returns sample b's planes of the channels ch.
func planes4[T Float](s []T, g *Norm, b int, ch [4]int) (p0, p1, p2, p3 []T) {
	return plane(s, g, b, ch[0]), plane(s, g, b, ch[1]), plane(s, g, b, ch[2]), plane(s, g, b, ch[3])
}

// sum4 returns Σ x over samples [b0, b1) of each of the channels ch.
func sum4[T Float](x []T, g *Norm, ch [4]int, b0, b1 int) [4]float64 {
	var s0, s1, s2, s3 float64
	if g.Inner == 1 { // the planes are single values: index the rows
		for b := b0; b < b1; b++ {
			r := x[b*g.C : (b+1)*g.C]
			s0 += float64(r[ch[0]])
			s1 += float64(r[ch[1]])
			s2 += float64(r[ch[2]])
			s3 += float64(r[ch[3]])
		}
		return [4]float64{s0, s1, s2, s3}
	}
	for b := b0; b < b1; b++ {
		x0, x1, x2, x3 := planes4(x, g, b, ch)
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
func sqDev4[T Float](x []T, g *Norm, ch [4]int, b0, b1 int, mean [4]float64) [4]float64 {
	var s0, s1, s2, s3 float64
	m0, m1, m2, m3 := mean[0], mean[1], mean[2], mean[3]
	if g.Inner == 1 { // as in sum4
		for b := b0; b < b1; b++ {
			r := x[b*g.C : (b+1)*g.C]
			d0 := float64(r[ch[0]]) - m0
			d1 := float64(r[ch[1]]) - m1
			d2 := float64(r[ch[2]]) - m2
			d3 := float64(r[ch[3]]) - m3
			s0 += float64(d0 * d0)
			s1 += float64(d1 * d1)
			s2 += float64(d2 * d2)
			s3 += float64(d3 * d3)
		}
		return [4]float64{s0, s1, s2, s3}
	}
	for b := b0; b < b1; b++ {
		x0, x1, x2, x3 := planes4(x, g, b, ch)
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		for i, v := range x0 {
			d0 := float64(v) - m0
			d1 := float64(x1[i]) - m1
			d2 := float64(x2[i]) - m2
			d3 := float64(x3[i]) - m3
			// float64(…) stops arm64 fusing the multiply-adds: same bits as amd64.
			s0 += float64(d0 * d0)
			s1 += float64(d1 * d1)
			s2 += float64(d2 * d2)
			s3 += float64(d3 * d3)
		}
	}
	return [4]float64{s0, s1, s2, s3}
}

// sumDot4 returns Σ dy and Σ dy·x̂ over samples [b0, b1) of each of the
// channels ch, in one pass, with x̂ = (x - mean)·inv recomputed from x as
// normForwardJob computes it, from the mean and 1/σ of each group kept
// in mu and invstd.
func sumDot4[T Float](dy, x []T, mu, invstd []float64, g *Norm, ch [4]int, b0, b1 int) (s, sx [4]float64) {
	var s0, s1, s2, s3, t0, t1, t2, t3 float64
	ng := g.Groups()
	for b := b0; b < b1; b++ {
		gi := 0
		if g.PerSample {
			gi = b
		}
		m0, m1, m2, m3 := mu[ch[0]*ng+gi], mu[ch[1]*ng+gi], mu[ch[2]*ng+gi], mu[ch[3]*ng+gi]
		i0, i1, i2, i3 := invstd[ch[0]*ng+gi], invstd[ch[1]*ng+gi], invstd[ch[2]*ng+gi], invstd[ch[3]*ng+gi]
		if g.Inner == 1 { // as in sum4
			d, r := dy[b*g.C:(b+1)*g.C], x[b*g.C:(b+1)*g.C]
			v0, v1, v2, v3 := float64(d[ch[0]]), float64(d[ch[1]]), float64(d[ch[2]]), float64(d[ch[3]])
			h0 := (float64(r[ch[0]]) - m0) * i0
			h1 := (float64(r[ch[1]]) - m1) * i1
			h2 := (float64(r[ch[2]]) - m2) * i2
			h3 := (float64(r[ch[3]]) - m3) * i3
			s0 += v0
			s1 += v1
			s2 += v2
			s3 += v3
			t0 += float64(v0 * h0)
			t1 += float64(v1 * h1)
			t2 += float64(v2 * h2)
			t3 += float64(v3 * h3)
			continue
		}
		d0, d1, d2, d3 := planes4(dy, g, b, ch)
		x0, x1, x2, x3 := planes4(x, g, b, ch)
		if d0, ok := any(d0).([]float32); ok { // internal/vec's kernel
			dys := [4][]float32{d0, any(d1).([]float32), any(d2).([]float32), any(d3).([]float32)}
			xs := [4][]float32{any(x0).([]float32), any(x1).([]float32), any(x2).([]float32), any(x3).([]float32)}
			mus, invs := [4]float64{m0, m1, m2, m3}, [4]float64{i0, i1, i2, i3}
			ss, sxs := [4]float64{s0, s1, s2, s3}, [4]float64{t0, t1, t2, t3}
			vec.NormSumDot4(&dys, &xs, &mus, &invs, &ss, &sxs)
			s0, s1, s2, s3 = ss[0], ss[1], ss[2], ss[3]
			t0, t1, t2, t3 = sxs[0], sxs[1], sxs[2], sxs[3]
			continue
		}
		d1, d2, d3 = d1[:len(d0)], d2[:len(d0)], d3[:len(d0)]
		x0, x1, x2, x3 = x0[:len(d0)], x1[:len(d0)], x2[:len(d0)], x3[:len(d0)]
		for i, v := range d0 {
			v0, v1, v2, v3 := float64(v), float64(d1[i]), float64(d2[i]), float64(d3[i])
			h0 := (float64(x0[i]) - m0) * i0
			h1 := (float64(x1[i]) - m1) * i1
			h2 := (float64(x2[i]) - m2) * i2
			h3 := (float64(x3[i]) - m3) * i3
			s0 += v0
			s1 += v1
			s2 += v2
			s3 += v3
			t0 += float64(v0 * h0)
			t1 += float64(v1 * h1)
			t2 += float64(v2 * h2)
			t3 += float64(v3 * h3)
		}
	}
	return [4]float64{s0, s1, s2, s3}, [4]float64{t0, t1, t2, t3}
}

// normJobs are the loop bodies of the norm kernels for element type T,
// one call for four channels, which ForEaches splits. The workers that
// run them keep a pointer to them, so that jobs on the stack would be
// allocated at every call: the caller's Workspace keeps them instead.
type normJobs[T Float] struct {
	sums  normSumsJob[T]
	fwd   normForwardJob[T]
	backX normBackXJob[T]
}

// normJobsOf returns w's jobs for element type T (fresh ones if w is
// nil).
func normJobsOf[T Float](w *Workspace) *normJobs[T] {
	if w == nil {
		return new(normJobs[T])
	}
	if j, ok := any(&w.norm32).(*normJobs[T]); ok {
		return j
	}
	return any(&w.norm64).(*normJobs[T])
}

func normSums[T Float](w *Workspace, sumDy, sumDyHat []float64, dy, x []T, mu, invstd []float64, g Norm) {
	// Channels are independent: split them across the cores.
	j := &normJobsOf[T](w).sums
	*j = normSumsJob[T]{g: g, dy: dy, x: x, mu: mu, invstd: invstd, s: sumDy, sx: sumDyHat}
	ForEaches((g.C+3)/4, 4*len(dy), j)
}

// normSumsJob is normSums of channels 4q to 4q+3.
type normSumsJob[T Float] struct {
	g          Norm
	dy, x      []T
	mu, invstd []float64
	s, sx      []float64
}

func (j *normSumsJob[T]) Each(q int) {
	g := &j.g
	c0 := 4 * q
	s4, sx4 := sumDot4(j.dy, j.x, j.mu, j.invstd, g, quad(c0, g.C), 0, g.N)
	copy(j.s[c0:min(c0+4, g.C)], s4[:])
	copy(j.sx[c0:min(c0+4, g.C)], sx4[:])
}

func normForward[T Float](w *Workspace, y, x, gamma, beta, mean, variance []T, mu, invstd []float64, g Norm) {
	// Channels are independent: split them across the cores.
	j := &normJobsOf[T](w).fwd
	*j = normForwardJob[T]{g: g, x: x, gamma: gamma, beta: beta, y: y, rm: mean, rv: variance, mu: mu, invstd: invstd}
	ForEaches((g.C+3)/4, 8*len(x), j)
}

// normForwardJob is normForward of channels 4q to 4q+3.
type normForwardJob[T Float] struct {
	g                 Norm
	x, gamma, beta, y []T
	rm, rv            []T // batch norm's running statistics, or nil
	mu, invstd        []float64
}

func (j *normForwardJob[T]) Each(q int) {
	g, x, gamma, beta, y, rm, rv := &j.g, j.x, j.gamma, j.beta, j.y, j.rm, j.rv
	ng := g.Groups()
	c0 := 4 * q
	ch := quad(c0, g.C)
	for gi := 0; gi < ng; gi++ {
		b0, b1 := g.samples(gi)
		m := float64((b1 - b0) * g.Inner)
		var means, vars [4]float64
		if !g.Running {
			means = sum4(x, g, ch, b0, b1)
			for k := range means {
				means[k] /= m
			}
			vars = sqDev4(x, g, ch, b0, b1, means)
			for k := range vars {
				vars[k] /= m
			}
		}
		for k := range min(4, g.C-c0) {
			c := c0 + k
			mean, variance := means[k], vars[k]
			if g.Running {
				mean, variance = float64(rm[c]), float64(rv[c])
			} else if g.Update {
				mo := g.Momentum
				unbiased := variance
				if m > 1 {
					unbiased = variance * m / (m - 1)
				}
				rm[c] = T(float64((1-mo)*float64(rm[c])) + float64(mo*mean))
				rv[c] = T(float64((1-mo)*float64(rv[c])) + float64(mo*unbiased))
			}
			inv := 1 / math.Sqrt(variance+g.Eps)
			j.mu[c*ng+gi], j.invstd[c*ng+gi] = mean, inv
			ga, be := float64(gamma[c]), float64(beta[c])
			if g.Inner == 1 { // a value a plane: too short for normalize's kernel
				for i := b0*g.C + c; i < b1*g.C; i += g.C {
					h := (float64(x[i]) - mean) * inv
					y[i] = T(float64(ga*h) + be)
				}
				continue
			}
			for b := b0; b < b1; b++ {
				xs, ys := plane(x, g, b, c), plane(y, g, b, c)
				normalize(ys, xs, mean, inv, ga, be)
			}
		}
	}
}

func normBackX[T Float](w *Workspace, dx, dy, gamma, x []T, mu, invstd, sumDy, sumDyHat []float64, g Norm) {
	var bs, bsx []float64
	if !g.Running && !g.PerSample {
		bs, bsx = sumDy, sumDyHat
	}
	// Channels are independent: split them across the cores.
	j := &normJobsOf[T](w).backX
	*j = normBackXJob[T]{g: g, dy: dy, gamma: gamma, dx: dx, x: x, mu: mu, invstd: invstd, bs: bs, bsx: bsx}
	ForEaches((g.C+3)/4, 8*len(dy), j)
}

// normBackXJob is normBackX of channels 4q to 4q+3.
type normBackXJob[T Float] struct {
	g                Norm
	dy, gamma, dx, x []T
	mu, invstd       []float64
	bs, bsx          []float64 // batch norm's sums over the batch, or nil
}

func (j *normBackXJob[T]) Each(q int) {
	g, dy, gamma, dx, bs, bsx := &j.g, j.dy, j.gamma, j.dx, j.bs, j.bsx
	ng := g.Groups()
	c0 := 4 * q
	ch := quad(c0, g.C)
	for gi := 0; gi < ng; gi++ {
		b0, b1 := g.samples(gi)
		// dx = γ·inv/m · (m·dy − Σdy − x̂·Σdy·x̂): sums and x̂ in float64.
		m := float64((b1 - b0) * g.Inner)
		var s, sx [4]float64
		switch {
		case bs != nil:
			copy(s[:], bs[c0:])
			copy(sx[:], bsx[c0:])
		case !g.Running:
			s, sx = sumDot4(dy, j.x, j.mu, j.invstd, g, ch, b0, b1)
		}
		for k := range min(4, g.C-c0) {
			c := c0 + k
			ga, mean, inv := float64(gamma[c]), j.mu[c*ng+gi], j.invstd[c*ng+gi]
			if g.Running {
				for b := b0; b < b1; b++ {
					d, o := plane(dy, g, b, c), plane(dx, g, b, c)
					o = o[:len(d)]
					for i, v := range d {
						o[i] = T(float64(v) * ga * inv)
					}
				}
				continue
			}
			sk, sxk := s[k], sx[k]
			f := ga * inv / m
			if g.Inner == 1 { // as in normForwardJob
				for i := b0*g.C + c; i < b1*g.C; i += g.C {
					h := (float64(j.x[i]) - mean) * inv
					dx[i] = T(f * (float64(m*float64(dy[i])) - sk - float64(h*sxk)))
				}
				continue
			}
			for b := b0; b < b1; b++ {
				d, xs, o := plane(dy, g, b, c), plane(j.x, g, b, c), plane(dx, g, b, c)
				normGrad(o, d, xs, mean, inv, m, sk, sxk, f)
			}
		}
	}
}

// normalize sets y = γ·x̂ + β over y, x̂ = (x - mean)·inv, in float64:
// internal/vec's kernel for float32.
func normalize[T Float](y, x []T, mean, inv, ga, be float64) {
	if y, ok := any(y).([]float32); ok {
		vec.NormAffine(y, any(x).([]float32), mean, inv, ga, be)
		return
	}
	x = x[:len(y)]
	for i, v := range x {
		h := (float64(v) - mean) * inv
		y[i] = T(float64(ga*h) + be)
	}
}

// normGrad sets dx = f·(m·dy − s − x̂·sx) over dx, x̂ = (x - mean)·inv, in
// float64: internal/vec's kernel for float32.
func normGrad[T Float](dx, dy, x []T, mean, inv, m, s, sx, f float64) {
	if dx, ok := any(dx).([]float32); ok {
		vec.NormBackXFrom(dx, any(dy).([]float32), any(x).([]float32), mean, inv, m, s, sx, f)
		return
	}
	dy, x = dy[:len(dx)], x[:len(dx)]
	for i, v := range dy {
		h := (float64(x[i]) - mean) * inv
		dx[i] = T(f * (float64(m*float64(v)) - s - float64(h*sx)))
	}
}
