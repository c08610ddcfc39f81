//go:build arm64 && !purego && !openblas

#include "textflag.h"

// FMLA and FMUL by element on 2 lanes of float64, which the Go assembler
// lacks: Vd += Vn·Vm.D[i] and Vd = Vn·Vm.D[i], registers by number.
#define FMLAED(m, i, n, d) WORD $(0x4FC01000 | (m)<<16 | (i)<<11 | (n)<<5 | (d))
#define FMULED(m, i, n, d) WORD $(0x4FC09000 | (m)<<16 | (i)<<11 | (n)<<5 | (d))

// func dgemmKernelNEON(k int, a *float64, as int, b *float64, bs int, c *float64, ldc int, alpha, beta float64, load bool)
//
// The kernel contract of sgemm_kernel.go on an 8×6 tile of float64. Row
// i of the tile is V(3i), V(3i+1), V(3i+2); each step loads 8 values of
// a into V24-V27 and 6 of b into V28-V30, and adds a[i]·b to row i with
// FMLA by element: one chain of FMAs per element in the order of the
// steps, as kernelGo.
TEXT ·dgemmKernelNEON(SB), NOSPLIT, $0-73
	MOVD k+0(FP), R0
	MOVD a+8(FP), R1
	MOVD as+16(FP), R2
	MOVD b+24(FP), R3
	MOVD bs+32(FP), R4
	MOVD c+40(FP), R5
	MOVD ldc+48(FP), R6
	LSL  $3, R2
	LSL  $3, R4
	LSL  $3, R6
	MOVBU load+72(FP), R7
	CBZ  R7, zero
	MOVD R5, R8
	VLD1 (R8), [V0.D2, V1.D2, V2.D2]
	ADD  R6, R8
	VLD1 (R8), [V3.D2, V4.D2, V5.D2]
	ADD  R6, R8
	VLD1 (R8), [V6.D2, V7.D2, V8.D2]
	ADD  R6, R8
	VLD1 (R8), [V9.D2, V10.D2, V11.D2]
	ADD  R6, R8
	VLD1 (R8), [V12.D2, V13.D2, V14.D2]
	ADD  R6, R8
	VLD1 (R8), [V15.D2, V16.D2, V17.D2]
	ADD  R6, R8
	VLD1 (R8), [V18.D2, V19.D2, V20.D2]
	ADD  R6, R8
	VLD1 (R8), [V21.D2, V22.D2, V23.D2]
	B    steps

zero:
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16

steps:
	CBZ R0, store

loop:
	VLD1.P (R1)(R2), [V24.D2, V25.D2, V26.D2, V27.D2]
	VLD1.P (R3)(R4), [V28.D2, V29.D2, V30.D2]
	FMLAED(24, 0, 28, 0)
	FMLAED(24, 0, 29, 1)
	FMLAED(24, 0, 30, 2)
	FMLAED(24, 1, 28, 3)
	FMLAED(24, 1, 29, 4)
	FMLAED(24, 1, 30, 5)
	FMLAED(25, 0, 28, 6)
	FMLAED(25, 0, 29, 7)
	FMLAED(25, 0, 30, 8)
	FMLAED(25, 1, 28, 9)
	FMLAED(25, 1, 29, 10)
	FMLAED(25, 1, 30, 11)
	FMLAED(26, 0, 28, 12)
	FMLAED(26, 0, 29, 13)
	FMLAED(26, 0, 30, 14)
	FMLAED(26, 1, 28, 15)
	FMLAED(26, 1, 29, 16)
	FMLAED(26, 1, 30, 17)
	FMLAED(27, 0, 28, 18)
	FMLAED(27, 0, 29, 19)
	FMLAED(27, 0, 30, 20)
	FMLAED(27, 1, 28, 21)
	FMLAED(27, 1, 29, 22)
	FMLAED(27, 1, 30, 23)
	SUBS $1, R0
	BNE  loop

store:
	FMOVD alpha+56(FP), F31
	FMOVD beta+64(FP), F24
	FCMPD $(0.0), F24
	BNE   withbeta
	// c = alpha·acc
	FMULED(31, 0, 0, 0)
	FMULED(31, 0, 1, 1)
	FMULED(31, 0, 2, 2)
	VST1 [V0.D2, V1.D2, V2.D2], (R5)
	ADD  R6, R5
	FMULED(31, 0, 3, 3)
	FMULED(31, 0, 4, 4)
	FMULED(31, 0, 5, 5)
	VST1 [V3.D2, V4.D2, V5.D2], (R5)
	ADD  R6, R5
	FMULED(31, 0, 6, 6)
	FMULED(31, 0, 7, 7)
	FMULED(31, 0, 8, 8)
	VST1 [V6.D2, V7.D2, V8.D2], (R5)
	ADD  R6, R5
	FMULED(31, 0, 9, 9)
	FMULED(31, 0, 10, 10)
	FMULED(31, 0, 11, 11)
	VST1 [V9.D2, V10.D2, V11.D2], (R5)
	ADD  R6, R5
	FMULED(31, 0, 12, 12)
	FMULED(31, 0, 13, 13)
	FMULED(31, 0, 14, 14)
	VST1 [V12.D2, V13.D2, V14.D2], (R5)
	ADD  R6, R5
	FMULED(31, 0, 15, 15)
	FMULED(31, 0, 16, 16)
	FMULED(31, 0, 17, 17)
	VST1 [V15.D2, V16.D2, V17.D2], (R5)
	ADD  R6, R5
	FMULED(31, 0, 18, 18)
	FMULED(31, 0, 19, 19)
	FMULED(31, 0, 20, 20)
	VST1 [V18.D2, V19.D2, V20.D2], (R5)
	ADD  R6, R5
	FMULED(31, 0, 21, 21)
	FMULED(31, 0, 22, 22)
	FMULED(31, 0, 23, 23)
	VST1 [V21.D2, V22.D2, V23.D2], (R5)
	RET

withbeta:
	// c = fma(alpha, acc, beta·c)
	VLD1 (R5), [V25.D2, V26.D2, V27.D2]
	FMULED(24, 0, 25, 25)
	FMULED(24, 0, 26, 26)
	FMULED(24, 0, 27, 27)
	FMLAED(31, 0, 0, 25)
	FMLAED(31, 0, 1, 26)
	FMLAED(31, 0, 2, 27)
	VST1 [V25.D2, V26.D2, V27.D2], (R5)
	ADD  R6, R5
	VLD1 (R5), [V25.D2, V26.D2, V27.D2]
	FMULED(24, 0, 25, 25)
	FMULED(24, 0, 26, 26)
	FMULED(24, 0, 27, 27)
	FMLAED(31, 0, 3, 25)
	FMLAED(31, 0, 4, 26)
	FMLAED(31, 0, 5, 27)
	VST1 [V25.D2, V26.D2, V27.D2], (R5)
	ADD  R6, R5
	VLD1 (R5), [V25.D2, V26.D2, V27.D2]
	FMULED(24, 0, 25, 25)
	FMULED(24, 0, 26, 26)
	FMULED(24, 0, 27, 27)
	FMLAED(31, 0, 6, 25)
	FMLAED(31, 0, 7, 26)
	FMLAED(31, 0, 8, 27)
	VST1 [V25.D2, V26.D2, V27.D2], (R5)
	ADD  R6, R5
	VLD1 (R5), [V25.D2, V26.D2, V27.D2]
	FMULED(24, 0, 25, 25)
	FMULED(24, 0, 26, 26)
	FMULED(24, 0, 27, 27)
	FMLAED(31, 0, 9, 25)
	FMLAED(31, 0, 10, 26)
	FMLAED(31, 0, 11, 27)
	VST1 [V25.D2, V26.D2, V27.D2], (R5)
	ADD  R6, R5
	VLD1 (R5), [V25.D2, V26.D2, V27.D2]
	FMULED(24, 0, 25, 25)
	FMULED(24, 0, 26, 26)
	FMULED(24, 0, 27, 27)
	FMLAED(31, 0, 12, 25)
	FMLAED(31, 0, 13, 26)
	FMLAED(31, 0, 14, 27)
	VST1 [V25.D2, V26.D2, V27.D2], (R5)
	ADD  R6, R5
	VLD1 (R5), [V25.D2, V26.D2, V27.D2]
	FMULED(24, 0, 25, 25)
	FMULED(24, 0, 26, 26)
	FMULED(24, 0, 27, 27)
	FMLAED(31, 0, 15, 25)
	FMLAED(31, 0, 16, 26)
	FMLAED(31, 0, 17, 27)
	VST1 [V25.D2, V26.D2, V27.D2], (R5)
	ADD  R6, R5
	VLD1 (R5), [V25.D2, V26.D2, V27.D2]
	FMULED(24, 0, 25, 25)
	FMULED(24, 0, 26, 26)
	FMULED(24, 0, 27, 27)
	FMLAED(31, 0, 18, 25)
	FMLAED(31, 0, 19, 26)
	FMLAED(31, 0, 20, 27)
	VST1 [V25.D2, V26.D2, V27.D2], (R5)
	ADD  R6, R5
	VLD1 (R5), [V25.D2, V26.D2, V27.D2]
	FMULED(24, 0, 25, 25)
	FMULED(24, 0, 26, 26)
	FMULED(24, 0, 27, 27)
	FMLAED(31, 0, 21, 25)
	FMLAED(31, 0, 22, 26)
	FMLAED(31, 0, 23, 27)
	VST1 [V25.D2, V26.D2, V27.D2], (R5)
	RET
