//go:build amd64 && !purego && !openblas

package gemm

//go:noescape
func convKernelAVX512(k int, a *float32, b *float32, offs *int, c *float32, ldc int, load bool, bias *float32)

//go:noescape
func convKernelAVX2(k int, a *float32, b *float32, offs *int, c *float32, ldc int, load bool, bias *float32)

// tapKernel returns the micro-kernel that reads step l of B at b +
// offs[l], for the driver's kernel, or nil where there is none (then
// ConvForward packs every panel). Each has its driver's tile and FMA
// order, so that a panel read in place gives the packed path's bits.
func tapKernel[T Float](d *driver[T]) func(k int, a *T, b *T, offs *int, c *T, ldc int, load bool, bias *T) {
	var f any
	switch {
	case d.name == "avx512" && d.mr == mrAVX512 && d.nr == nrAVX512:
		f = convKernelAVX512
	case d.name == "avx2" && d.mr == mrAVX2 && d.nr == nrAVX2:
		f = convKernelAVX2
	default:
		return nil
	}
	k, _ := f.(func(int, *T, *T, *int, *T, int, bool, *T))
	return k
}

//go:noescape
func convKernelMaskAVX512(k int, a *float32, b *float32, base int, offs *int, masks *uint32, c *float32, ldc int, load bool, bias *float32)

//go:noescape
func convKernelMaskAVX2(k int, a *float32, b *float32, base int, offs *int, masks *uint32, c *float32, ldc int, load bool, bias *float32)

// maskKernel returns tapKernel's kernel for the panels at the border,
// which reads step l at b + base + offs[l] under masks[l]
// (convKernelMaskAVX512, convKernelMaskAVX2), or nil.
func maskKernel[T Float](d *driver[T]) func(k int, a *T, b *T, base int, offs *int, masks *uint32, c *T, ldc int, load bool, bias *T) {
	if tapKernel(d) == nil {
		return nil
	}
	var f any = convKernelMaskAVX512
	if d.name == "avx2" {
		f = convKernelMaskAVX2
	}
	k, _ := f.(func(int, *T, *T, int, *int, *uint32, *T, int, bool, *T))
	return k
}
