//go:build (!amd64 && !arm64) || purego

package quant

func roundFloatSlice(dst, src []float32, k *floatKernel) { k.roundSliceGo(dst, src) }
