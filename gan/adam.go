package gan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// Adam is the Adam optimiser (Kingma and Ba, ICLR 2015) over a fixed list
// of float32 parameter tensors. Its state (the moments M, V and the step
// count T) is plain data, so a checkpoint can save and restore it exactly.
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	T                     int         // updates applied so far
	M, V                  [][]float32 // first and second moments, one per parameter
	// Formats, if not nil, holds per parameter the formats the update
	// rounds to (see ParamFormats); nil or a zero entry: float32.
	Formats []ParamFormats
	// Seed seeds stochastic rounding. The random stream of each tensor and
	// role at each update is derived from Seed, the tensor's index, the
	// role and T, so that resuming from a checkpoint (which holds T)
	// rounds exactly as an uninterrupted run.
	Seed uint64
	// writes holds per parameter the nn.WeightWrite that Step reports
	// each chunk of updated values to, while they are in the cache (a
	// layer's rounded weights, kept current); empty: none. The Trainer
	// sets it around each Step.
	writes []nn.WeightWrite

	g   []float32   // the rounded gradient of one chunk of a tensor
	rng [4]rand.PCG // stochastic rounding's streams, by role
	// seeds holds each tensor's stream seeds by role, derived from
	// seedsOf (Seed when they were derived): deriving them formats and
	// hashes a name, too slow to do on every update.
	seeds   [][4]uint64
	seedsOf uint64
	job     adamJob // the float32 update of one tensor, split across cores
}

// adamJob is Adam's float32 update of one tensor, a compute.Ranger: kept in
// the Adam, it splits across cores without allocating.
type adamJob struct {
	p, g, m, v                []float32
	inv, b1, b2, lr, sc2, eps float32
	ww                        nn.WeightWrite
}

func (j *adamJob) Range(lo, hi int) {
	// Chunks of adamWriteChunk values: the five slices of one stay in a
	// core's L2 for the WeightWrite's rounding, which costs a few hundred
	// nanoseconds a call besides its values.
	for c := lo; c < hi; c += adamWriteChunk {
		e := min(c+adamWriteChunk, hi)
		adamKernel(j.p[c:e], j.g[c:e], j.m[c:e], j.v[c:e], j.inv, j.b1, j.b2, j.lr, j.sc2, j.eps)
		j.ww.Written(c, e)
	}
}

// ParamFormats are the formats of the optimiser's side of one parameter
// tensor, as nn.LayerFormats names them: the gradient Adam sees (after
// loss scaling is undone), the two moments after each update, and the
// stored weights (the master copy) after each update. QPyTorch's OptimLP
// rounds the same four.
type ParamFormats struct {
	Grad, Moment1, Moment2, Master nn.Quantizer
}

// ParamFormatsOf returns the optimiser formats of a layer's parameters.
func ParamFormatsOf(lf nn.LayerFormats) ParamFormats {
	return ParamFormats{Grad: lf.Grad, Moment1: lf.Moment1, Moment2: lf.Moment2, Master: lf.Master}
}

// NewAdam returns Adam for parameters of the given sizes with the usual
// GAN settings of DCGAN: learning rate 2e-4, β1 0.5, β2 0.999, ε 1e-8.
func NewAdam(sizes []int) *Adam {
	a := &Adam{LR: 2e-4, Beta1: 0.5, Beta2: 0.999, Eps: 1e-8}
	for _, n := range sizes {
		a.M = append(a.M, make([]float32, n))
		a.V = append(a.V, make([]float32, n))
	}
	return a
}

// Step applies one update to params from grads, which are the true
// gradients times gradScale (loss scaling): they are divided by it first.
// It panics if the lengths do not match the sizes Adam was built for.
func (a *Adam) Step(params, grads [][]float32, gradScale float64) {
	if len(params) != len(a.M) || len(grads) != len(a.M) {
		panic(fmt.Sprintf("gan: adam: %d parameters and %d gradients for %d tensors", len(params), len(grads), len(a.M)))
	}
	if a.Formats != nil && len(a.Formats) != len(a.M) {
		panic(fmt.Sprintf("gan: adam: %d formats for %d tensors", len(a.Formats), len(a.M)))
	}
	a.T++
	inv := float32(1 / gradScale)
	b1, b2 := float32(a.Beta1), float32(a.Beta2)
	// Bias corrections folded into the step size, as PyTorch does.
	c1 := 1 - math.Pow(a.Beta1, float64(a.T))
	c2 := 1 - math.Pow(a.Beta2, float64(a.T))
	lr := float32(a.LR / c1)
	sc2 := float32(math.Sqrt(c2))
	eps := float32(a.Eps)
	for i, p := range params {
		g, m, v := grads[i], a.M[i], a.V[i]
		if len(g) != len(p) || len(m) != len(p) {
			panic(fmt.Sprintf("gan: adam: tensor %d has %d values, gradient %d, state %d", i, len(p), len(g), len(m)))
		}
		if a.Formats == nil || a.Formats[i] == (ParamFormats{}) {
			a.job = adamJob{p, g, m, v, inv, b1, b2, lr, sc2, eps, a.write(i)}
			compute.ForRanges(len(p), adamParallelMin, &a.job)
			a.job = adamJob{} // keep no tensors alive
			continue
		}
		// The same arithmetic in three passes, with each role rounded
		// between them, a cache-sized chunk at a time. Each role's
		// stochastic stream runs through the tensor in order, so the
		// chunking does not change the bits.
		f := &a.Formats[i]
		roles := [4]nn.Quantizer{f.Grad, f.Moment1, f.Moment2, f.Master}
		seeds := a.roleSeeds(i)
		for r, rf := range roles {
			if rf.Format != nil && rf.Rounding == quant.Stochastic {
				a.rng[r].Seed(seeds[r], uint64(a.T))
			}
		}
		a.g = grow(a.g, min(len(g), adamChunk))
		for lo := 0; lo < len(p); lo += adamChunk {
			hi := min(lo+adamChunk, len(p))
			gc, mc, vc, pc := a.g[:hi-lo], m[lo:hi], v[lo:hi], p[lo:hi]
			scaleKernel(gc, g[lo:hi], inv)
			a.round(gc, roles[0], 0)
			momentsKernel(mc, vc, gc, b1, b2)
			a.round(mc, roles[1], 1)
			a.round(vc, roles[2], 2)
			applyKernel(pc, mc, vc, lr, sc2, eps)
			a.round(pc, roles[3], 3)
			a.write(i).Written(lo, hi)
		}
	}
}

// write returns tensor i's WeightWrite (the zero one without writes).
func (a *Adam) write(i int) nn.WeightWrite {
	if i >= len(a.writes) {
		return nn.WeightWrite{}
	}
	return a.writes[i]
}

// roleSeeds returns the seeds of tensor i's streams by role, deriving
// every tensor's from Seed on first use and whenever Seed changes.
func (a *Adam) roleSeeds(i int) *[4]uint64 {
	if len(a.seeds) != len(a.M) || a.seedsOf != a.Seed {
		a.seeds, a.seedsOf = make([][4]uint64, len(a.M)), a.Seed
		for t := range a.seeds {
			for r := range a.seeds[t] {
				a.seeds[t][r] = seedFor(a.Seed, fmt.Sprintf("adam tensor %d role %d", t, r))
			}
		}
	}
	return &a.seeds[i]
}

// adamChunk is the number of values of a tensor the rounded update
// processes at a time: four float32 slices of it fit in a core's L2.
const adamChunk = 4096

// adamWriteChunk is the number of values of a tensor the float32 update
// processes, then reports to its WeightWrite, at a time.
const adamWriteChunk = 16384

// adamParallelMin is the fewest values of a tensor worth a goroutine of
// the unrounded update (element-wise, so the split does not change the
// bits).
const adamParallelMin = 1 << 15

// round rounds x in place to rf, drawing stochastic rounding's bits from
// role's stream (seeded by Step from the tensor, the role and the
// update).
func (a *Adam) round(x []float32, rf nn.Quantizer, role int) {
	if rf.Format == nil {
		return
	}
	compute.Round(x, x, rf.Format, rf.Rounding, &a.rng[role])
}

// grow returns a slice of length n, reusing buf's storage when it can.
func grow(buf []float32, n int) []float32 {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]float32, n)
}
