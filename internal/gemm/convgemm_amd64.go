//go:build amd64 && !purego && !openblas

package gemm

//go:noescape
func convKernelAVX512(k int, a *float32, b *float32, offs *int, c *float32, ldc int, load bool, bias *float32)

// tapKernel returns the micro-kernel that reads step l of B at b +
// offs[l], for the driver's kernel, or nil where there is none (then
// ConvForward packs every panel).
func tapKernel[T Float](d *driver[T]) func(k int, a *T, b *T, offs *int, c *T, ldc int, load bool, bias *T) {
	if d.name != "avx512" || d.mr != mrAVX512 || d.nr != nrAVX512 {
		return nil
	}
	f, _ := any(convKernelAVX512).(func(int, *T, *T, *int, *T, int, bool, *T))
	return f
}

//go:noescape
func convKernelMaskAVX512(k int, a *float32, b *float32, base int, offs *int, masks *uint32, c *float32, ldc int, load bool, bias *float32)

// maskKernel returns tapKernel's kernel for the panels at the border,
// which reads step l at b + base + offs[l] under masks[l]
// (convKernelMaskAVX512), or nil.
func maskKernel[T Float](d *driver[T]) func(k int, a *T, b *T, base int, offs *int, masks *uint32, c *T, ldc int, load bool, bias *T) {
	if tapKernel(d) == nil {
		return nil
	}
	f, _ := any(convKernelMaskAVX512).(func(int, *T, *T, int, *int, *uint32, *T, int, bool, *T))
	return f
}
