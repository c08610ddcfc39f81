//go:build (!amd64 || purego) && !openblas

package gemm

// tapKernel: no kernel reads B by offsets here; ConvForward packs every
// panel.
func tapKernel[T Float](d *driver[T]) func(k int, a *T, b *T, offs *int, c *T, ldc int, load bool, bias *T) {
	return nil
}

// maskKernel: none here.
func maskKernel[T Float](d *driver[T]) func(k int, a *T, b *T, base int, offs *int, masks *uint32, c *T, ldc int, load bool, bias *T) {
	return nil
}
