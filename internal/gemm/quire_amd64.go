//go:build amd64 && !purego && !openblas

package gemm

import "golang.org/x/sys/cpu"

// hasQuireAVX512 selects the AVX-512 row loops of convertRange and
// combineOne. (Not under openblas: a package using cgo cannot hold Go
// assembly.)
var hasQuireAVX512 = cpu.X86.HasAVX512F

// convertRowAVX512 is convertRow for n > 0 (quire_amd64.s), with the same
// top, and the same key plus convertKeyBias wherever either is below
// keyNone.
//
//go:noescape
func convertRowAVX512(dst *float64, src *float32, n int) (top, key uint32)

//go:noescape
func combineRowAVX512(dst *float32, src *float64, n int) (emin, emax uint64)
