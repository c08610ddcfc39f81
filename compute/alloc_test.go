package compute_test

import (
	"runtime"
	"testing"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/internal/allocs"
)

// The convolutions' layout kernels, which split their images across the
// cores, allocate nothing once warm, on one core and on two (their work
// here is enough to split), called through the Backend: they run several
// times in every training step.
func TestKernelAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const n, c, inner = 8, 16, 1024
	vals := func(k int) []float32 {
		s := make([]float32, k)
		for i := range s {
			s[i] = float32(i%7) - 3
		}
		return s
	}
	cols, imgs, bias := vals(n*c*inner), vals(n*c*inner), vals(c)
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		if a := allocs.PerRun(20, func() { compute.MatrixToImages(imgs, cols, bias, n, c, inner) }); a != 0 {
			t.Errorf("%d cores: MatrixToImages: %v allocations a call", procs, a)
		}
		if a := allocs.PerRun(20, func() { compute.ImagesToMatrix(cols, imgs, n, c, inner) }); a != 0 {
			t.Errorf("%d cores: ImagesToMatrix: %v allocations a call", procs, a)
		}
	}
}
