package nn

import (
	"runtime"
	"testing"

	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/allocs"
)

// The norm kernels allocate nothing once warm, on one core and split
// across two (their work here is enough to split): they run several times
// in every training step. (compute's TestKernelAllocs checks the
// convolutions' layout kernels.)
func TestKernelAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const n, c, inner = 8, 16, 1024
	size := n * c * inner
	shape := []int{n, c, inner}
	vals := func(k int) []float32 {
		s := make([]float32, k)
		for i := range s {
			s[i] = float32(i%7) - 3
		}
		return s
	}
	x, dy, y, dx := dense(tensor.Float32, shape, vals(size)), dense(tensor.Float32, shape, vals(size)),
		dense(tensor.Float32, shape, vals(size)), dense(tensor.Float32, shape, vals(size))
	gamma, beta := dense(tensor.Float32, []int{c}, vals(c)), dense(tensor.Float32, []int{c}, vals(c))
	dg := dense(tensor.Float32, []int{c}, vals(c))
	training := true
	bn := &BatchNorm{C: c, Momentum: 0.1, mode: &training,
		RunningMean: dense(tensor.Float32, []int{c}, vals(c)),
		RunningVar:  dense(tensor.Float32, []int{c}, vals(c))}
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		for _, st := range []*normState{
			{name: "batch norm", n: n, c: c, inner: inner, eps: 1e-5, bn: bn},
			{name: "instance norm", n: n, c: c, inner: inner, eps: 1e-5, perSample: true},
		} {
			norm := func() {
				normForward[float32](st, x, gamma, beta, y)
				normBackAffine[float32](st, dy, x, dg, true)
				normBackX[float32](st, dy, gamma, x, dx)
			}
			if a := allocs.PerRun(20, norm); a != 0 {
				t.Errorf("%d cores, %s: %v allocations a run", procs, st.name, a)
			}
		}
	}
}
