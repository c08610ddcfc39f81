//go:build amd64 && !purego && !openblas

package gemm

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The vector row kernels (perop_amd64.s) look up the sums, and the
// products too unless the CPU has AVX-512 VBMI byte permutes, with 32-bit
// gathers: 16 lanes (AVX-512) or 8 (AVX2) per instruction, eight chains in
// flight.
var (
	hasPerOpAVX2   = cpu.X86.HasAVX2
	hasPerOpAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX2
	hasPerOpVBMI   = hasPerOpAVX512 && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI
)

//go:noescape
func perOpRow2VBMI(out *uint32, blk *uint8, ar0, ar1 *uint8, nz *int32, nnz int, prod, sum *uint8)

//go:noescape
func perOpRowAVX512(out *uint32, blk *uint8, ar *uint8, nz *int32, nnz int, prod, sum *uint8)

//go:noescape
func perOpRowAVX2(out *uint32, blk *uint8, ar *uint8, nz *int32, nnz int, prod, sum *uint8)

func perOpRowKernelVBMI(out *[2 * perOpLanes]uint32, blk []uint8, ar0, ar1 []uint8, nz []int32, t *perOpTables) {
	_, _ = blk[perOpLanes*len(ar0)-1], ar1[len(ar0)-1]
	perOpRow2VBMI(&out[0], &blk[0], &ar0[0], &ar1[0], unsafe.SliceData(nz), len(nz), &t.prod[0], &t.sum[0])
}

func perOpRowKernelAVX512(out *[2 * perOpLanes]uint32, blk []uint8, ar0, ar1 []uint8, nz []int32, t *perOpTables) {
	_, _ = blk[perOpLanes*len(ar0)-1], ar1[len(ar0)-1]
	perOpRowAVX512(&out[0], &blk[0], &ar0[0], unsafe.SliceData(nz), len(nz), &t.prod[0], &t.sum[0])
	perOpRowAVX512(&out[perOpLanes], &blk[0], &ar1[0], unsafe.SliceData(nz), len(nz), &t.prod[0], &t.sum[0])
}

func perOpRowKernelAVX2(out *[2 * perOpLanes]uint32, blk []uint8, ar0, ar1 []uint8, nz []int32, t *perOpTables) {
	_, _ = blk[perOpLanes*len(ar0)-1], ar1[len(ar0)-1]
	perOpRowAVX2(&out[0], &blk[0], &ar0[0], unsafe.SliceData(nz), len(nz), &t.prod[0], &t.sum[0])
	perOpRowAVX2(&out[perOpLanes], &blk[0], &ar1[0], unsafe.SliceData(nz), len(nz), &t.prod[0], &t.sum[0])
}

// perOpKernels lists the row kernels this machine can run, the fastest
// last; the tests run each.
func perOpKernels() []perOpKernelInfo {
	ks := []perOpKernelInfo{{"go", levelGeneric, perOpRowGo}}
	if hasPerOpAVX2 {
		ks = append(ks, perOpKernelInfo{"avx2", levelAVX2, perOpRowKernelAVX2})
	}
	if hasPerOpAVX512 {
		ks = append(ks, perOpKernelInfo{"avx512", levelAVX512, perOpRowKernelAVX512})
	}
	if hasPerOpVBMI {
		ks = append(ks, perOpKernelInfo{"avx512vbmi", levelAVX512, perOpRowKernelVBMI})
	}
	return ks
}
