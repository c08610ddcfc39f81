//go:build amd64 && !purego && !openblas

package gemm

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The vector row kernels (perop_amd64.s) look up the sums, and for AVX2
// the products too, with 32-bit gathers on byte tables: 16 lanes (AVX-512
// F) or 8 (AVX2) per instruction, four or eight chains in flight.
var (
	hasPerOpAVX2   = cpu.X86.HasAVX2
	hasPerOpAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX2
)

//go:noescape
func perOpRowAVX512(out *uint32, blk *uint8, stride int, ar *uint8, nz *int32, nnz int, prod, sum *uint8)

//go:noescape
func perOpRowAVX2(out *uint32, blk *uint8, stride int, ar *uint8, nz *int32, nnz int, prod, sum *uint8)

func perOpRowKernelAVX512(out *[perOpLanes]uint32, blk []uint8, stride int, ar []uint8, nz []int32, prod, sum *[perOpTable]uint8) {
	_ = blk[3*stride+16*len(ar)-1]
	perOpRowAVX512(&out[0], &blk[0], stride, &ar[0], unsafe.SliceData(nz), len(nz), &prod[0], &sum[0])
}

func perOpRowKernelAVX2(out *[perOpLanes]uint32, blk []uint8, stride int, ar []uint8, nz []int32, prod, sum *[perOpTable]uint8) {
	_ = blk[3*stride+16*len(ar)-1]
	perOpRowAVX2(&out[0], &blk[0], stride, &ar[0], unsafe.SliceData(nz), len(nz), &prod[0], &sum[0])
}

// perOpKernels lists the row kernels this machine can run, the fastest
// last; the tests run each.
func perOpKernels() []perOpKernelInfo {
	ks := []perOpKernelInfo{{"go", perOpRowGo}}
	if hasPerOpAVX2 {
		ks = append(ks, perOpKernelInfo{"avx2", perOpRowKernelAVX2})
	}
	if hasPerOpAVX512 {
		ks = append(ks, perOpKernelInfo{"avx512", perOpRowKernelAVX512})
	}
	return ks
}
