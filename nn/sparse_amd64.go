//go:build amd64 && !purego

package nn

import "github.com/positgan/positgan/quant"

// maskAbsAVX512 sets keep[0:n] to the abs mask of w[0:n] under t, blocks
// end to end from w[0] (the last one may be partial), and y[0:n] to w
// where kept and +0 elsewhere; it returns how many values of y are not
// ±0. y may be w.
//
//go:noescape
func maskAbsAVX512(keep *bool, y, w *float32, n int, t *maskTable) (nonzero int)

// applyMaskAVX512 sets dst[0:n] to src where keep, +0 elsewhere.
//
//go:noescape
func applyMaskAVX512(dst, src *float32, keep *bool, n int)

// maskAbsAVX2 is maskAbsAVX512 on 8-lane vectors, for n a multiple of 16
// (whole chunks; maskAbs32 pads the last one).
//
//go:noescape
func maskAbsAVX2(keep *bool, y, w *float32, n int, t *maskTable) (nonzero int)

// applyMaskAVX2 is applyMaskAVX512 for n a multiple of 8.
//
//go:noescape
func applyMaskAVX2(dst, src *float32, keep *bool, n int)

// sparseLevel is the level of the mask kernels that run: quant's kernel
// level (quant.CPUEnv caps it), set at start-up; tests switch it.
var sparseLevel = quant.CurrentLevel()
