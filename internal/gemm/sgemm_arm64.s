//go:build arm64 && !purego && !openblas

#include "textflag.h"

// FMLA and FMUL by element, which the Go assembler lacks: Vd += Vn·Vm.S[i]
// and Vd = Vn·Vm.S[i], 4 lanes of float32, registers by number.
#define FMLAE(m, i, n, d) WORD $(0x4F801000 | ((i)&1)<<21 | (m)<<16 | ((i)>>1)<<11 | (n)<<5 | (d))
#define FMULE(m, i, n, d) WORD $(0x4F809000 | ((i)&1)<<21 | (m)<<16 | ((i)>>1)<<11 | (n)<<5 | (d))

// func sgemmKernelNEON(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, load bool)
//
// The kernel contract of sgemm_kernel.go on an 8×12 tile. Row i of the
// tile is V(3i), V(3i+1), V(3i+2); each step loads 8 values of a into
// V24-V25 and 12 of b into V26-V28, and adds a[i]·b to row i with FMLA
// by element: acc = fma(a[i], b[j], acc), one chain per element in the
// order of the steps.
TEXT ·sgemmKernelNEON(SB), NOSPLIT, $0-65
	MOVD k+0(FP), R0
	MOVD a+8(FP), R1
	MOVD as+16(FP), R2
	MOVD b+24(FP), R3
	MOVD bs+32(FP), R4
	MOVD c+40(FP), R5
	MOVD ldc+48(FP), R6
	LSL  $2, R2
	LSL  $2, R4
	LSL  $2, R6
	MOVBU load+64(FP), R7
	CBZ  R7, zero
	MOVD R5, R8
	VLD1 (R8), [V0.S4, V1.S4, V2.S4]
	ADD  R6, R8
	VLD1 (R8), [V3.S4, V4.S4, V5.S4]
	ADD  R6, R8
	VLD1 (R8), [V6.S4, V7.S4, V8.S4]
	ADD  R6, R8
	VLD1 (R8), [V9.S4, V10.S4, V11.S4]
	ADD  R6, R8
	VLD1 (R8), [V12.S4, V13.S4, V14.S4]
	ADD  R6, R8
	VLD1 (R8), [V15.S4, V16.S4, V17.S4]
	ADD  R6, R8
	VLD1 (R8), [V18.S4, V19.S4, V20.S4]
	ADD  R6, R8
	VLD1 (R8), [V21.S4, V22.S4, V23.S4]
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
	VLD1.P (R1)(R2), [V24.S4, V25.S4]
	VLD1.P (R3)(R4), [V26.S4, V27.S4, V28.S4]
	FMLAE(24, 0, 26, 0)
	FMLAE(24, 0, 27, 1)
	FMLAE(24, 0, 28, 2)
	FMLAE(24, 1, 26, 3)
	FMLAE(24, 1, 27, 4)
	FMLAE(24, 1, 28, 5)
	FMLAE(24, 2, 26, 6)
	FMLAE(24, 2, 27, 7)
	FMLAE(24, 2, 28, 8)
	FMLAE(24, 3, 26, 9)
	FMLAE(24, 3, 27, 10)
	FMLAE(24, 3, 28, 11)
	FMLAE(25, 0, 26, 12)
	FMLAE(25, 0, 27, 13)
	FMLAE(25, 0, 28, 14)
	FMLAE(25, 1, 26, 15)
	FMLAE(25, 1, 27, 16)
	FMLAE(25, 1, 28, 17)
	FMLAE(25, 2, 26, 18)
	FMLAE(25, 2, 27, 19)
	FMLAE(25, 2, 28, 20)
	FMLAE(25, 3, 26, 21)
	FMLAE(25, 3, 27, 22)
	FMLAE(25, 3, 28, 23)
	SUBS $1, R0
	BNE  loop

store:
	FMOVS alpha+56(FP), F29
	FMOVS beta+60(FP), F30
	FCMPS $(0.0), F30
	BNE   withbeta
	// c = alpha·acc
	FMULE(29, 0, 0, 0)
	FMULE(29, 0, 1, 1)
	FMULE(29, 0, 2, 2)
	VST1 [V0.S4, V1.S4, V2.S4], (R5)
	ADD  R6, R5
	FMULE(29, 0, 3, 3)
	FMULE(29, 0, 4, 4)
	FMULE(29, 0, 5, 5)
	VST1 [V3.S4, V4.S4, V5.S4], (R5)
	ADD  R6, R5
	FMULE(29, 0, 6, 6)
	FMULE(29, 0, 7, 7)
	FMULE(29, 0, 8, 8)
	VST1 [V6.S4, V7.S4, V8.S4], (R5)
	ADD  R6, R5
	FMULE(29, 0, 9, 9)
	FMULE(29, 0, 10, 10)
	FMULE(29, 0, 11, 11)
	VST1 [V9.S4, V10.S4, V11.S4], (R5)
	ADD  R6, R5
	FMULE(29, 0, 12, 12)
	FMULE(29, 0, 13, 13)
	FMULE(29, 0, 14, 14)
	VST1 [V12.S4, V13.S4, V14.S4], (R5)
	ADD  R6, R5
	FMULE(29, 0, 15, 15)
	FMULE(29, 0, 16, 16)
	FMULE(29, 0, 17, 17)
	VST1 [V15.S4, V16.S4, V17.S4], (R5)
	ADD  R6, R5
	FMULE(29, 0, 18, 18)
	FMULE(29, 0, 19, 19)
	FMULE(29, 0, 20, 20)
	VST1 [V18.S4, V19.S4, V20.S4], (R5)
	ADD  R6, R5
	FMULE(29, 0, 21, 21)
	FMULE(29, 0, 22, 22)
	FMULE(29, 0, 23, 23)
	VST1 [V21.S4, V22.S4, V23.S4], (R5)
	RET

withbeta:
	// c = fma(alpha, acc, beta·c)
	VLD1 (R5), [V24.S4, V25.S4, V26.S4]
	FMULE(30, 0, 24, 24)
	FMULE(30, 0, 25, 25)
	FMULE(30, 0, 26, 26)
	FMLAE(29, 0, 0, 24)
	FMLAE(29, 0, 1, 25)
	FMLAE(29, 0, 2, 26)
	VST1 [V24.S4, V25.S4, V26.S4], (R5)
	ADD  R6, R5
	VLD1 (R5), [V24.S4, V25.S4, V26.S4]
	FMULE(30, 0, 24, 24)
	FMULE(30, 0, 25, 25)
	FMULE(30, 0, 26, 26)
	FMLAE(29, 0, 3, 24)
	FMLAE(29, 0, 4, 25)
	FMLAE(29, 0, 5, 26)
	VST1 [V24.S4, V25.S4, V26.S4], (R5)
	ADD  R6, R5
	VLD1 (R5), [V24.S4, V25.S4, V26.S4]
	FMULE(30, 0, 24, 24)
	FMULE(30, 0, 25, 25)
	FMULE(30, 0, 26, 26)
	FMLAE(29, 0, 6, 24)
	FMLAE(29, 0, 7, 25)
	FMLAE(29, 0, 8, 26)
	VST1 [V24.S4, V25.S4, V26.S4], (R5)
	ADD  R6, R5
	VLD1 (R5), [V24.S4, V25.S4, V26.S4]
	FMULE(30, 0, 24, 24)
	FMULE(30, 0, 25, 25)
	FMULE(30, 0, 26, 26)
	FMLAE(29, 0, 9, 24)
	FMLAE(29, 0, 10, 25)
	FMLAE(29, 0, 11, 26)
	VST1 [V24.S4, V25.S4, V26.S4], (R5)
	ADD  R6, R5
	VLD1 (R5), [V24.S4, V25.S4, V26.S4]
	FMULE(30, 0, 24, 24)
	FMULE(30, 0, 25, 25)
	FMULE(30, 0, 26, 26)
	FMLAE(29, 0, 12, 24)
	FMLAE(29, 0, 13, 25)
	FMLAE(29, 0, 14, 26)
	VST1 [V24.S4, V25.S4, V26.S4], (R5)
	ADD  R6, R5
	VLD1 (R5), [V24.S4, V25.S4, V26.S4]
	FMULE(30, 0, 24, 24)
	FMULE(30, 0, 25, 25)
	FMULE(30, 0, 26, 26)
	FMLAE(29, 0, 15, 24)
	FMLAE(29, 0, 16, 25)
	FMLAE(29, 0, 17, 26)
	VST1 [V24.S4, V25.S4, V26.S4], (R5)
	ADD  R6, R5
	VLD1 (R5), [V24.S4, V25.S4, V26.S4]
	FMULE(30, 0, 24, 24)
	FMULE(30, 0, 25, 25)
	FMULE(30, 0, 26, 26)
	FMLAE(29, 0, 18, 24)
	FMLAE(29, 0, 19, 25)
	FMLAE(29, 0, 20, 26)
	VST1 [V24.S4, V25.S4, V26.S4], (R5)
	ADD  R6, R5
	VLD1 (R5), [V24.S4, V25.S4, V26.S4]
	FMULE(30, 0, 24, 24)
	FMULE(30, 0, 25, 25)
	FMULE(30, 0, 26, 26)
	FMLAE(29, 0, 21, 24)
	FMLAE(29, 0, 22, 25)
	FMLAE(29, 0, 23, 26)
	VST1 [V24.S4, V25.S4, V26.S4], (R5)
	RET
