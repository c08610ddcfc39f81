package compute_test

import (
	"runtime"
	"testing"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/internal/allocs"
	"github.com/positgan/positgan/quant"
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

// The fused roundings allocate nothing once warm either, on planes
// smaller and larger than their run of rounding (a 14×14 DCGAN plane and
// a 128×128 image-to-image one), on one core and on two.
func TestFusedRoundAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	q := compute.NewRounder(quant.MustParse("posit(8,1)"), quant.Nearest, nil)
	for _, h := range []int{14, 128} {
		const n, c = 4, 8
		g, err := compute.ConvGeom(c, h, h, 4, 4, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		gp := compute.Padded(g)
		src := make([]float32, n*c*h*h)
		for i := range src {
			src[i] = float32(i%13) - 6.5
		}
		dst := make([]float32, n*gp.C*gp.H*gp.W)
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			if a := allocs.PerRun(20, func() { compute.PadImagesRound(q, dst, src, n, g) }); a != 0 {
				t.Errorf("%d×%d planes, %d cores: PadImagesRound: %v allocations a call", h, h, procs, a)
			}
		}
	}
}
