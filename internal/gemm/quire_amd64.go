//go:build amd64 && !purego && !openblas

package gemm

// hasQuireAVX512 and hasQuireAVX2 (level_amd64.go) select the vector row
// loops of convertRange and combineOne. (Not under openblas: a package
// using cgo cannot hold Go assembly.)

// convertRowAVX512 is convertRow for n > 0 (quire_amd64.s), with the same
// top, and the same key plus convertKeyBias wherever either is below
// keyNone.
//
//go:noescape
func convertRowAVX512(dst *float64, src *float32, n int) (top, key uint32)

//go:noescape
func combineRowAVX512(dst *float32, src *float64, n int) (emin, emax uint64)

// convertRowAVX2 is convertRowAVX512 for n a positive multiple of 8.
//
//go:noescape
func convertRowAVX2(dst *float64, src *float32, n int) (top, key uint32)

// combineRowAVX2 is combineRowAVX512 for n a positive multiple of 4,
// except that it returns emin 2048 (not 2^64-1) where no value is
// nonzero, and may differ where a value is outside float32's normal
// range (combineOne then rounds the row from float64).
//
//go:noescape
func combineRowAVX2(dst *float32, src *float64, n int) (emin, emax uint64)
