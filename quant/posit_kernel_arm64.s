//go:build arm64 && !purego

#include "textflag.h"

// The kernels compute roundPositGo and roundPositStochGo
// (posit_kernel.go) lane by lane, 4 lanes at a time, from the constants
// in a positSlice (positKernel is its first 24 bytes):
//	0 sOff, 4 es, 8 c1, 12 c2, 16 dMax, 20 off,
//	24 lo, 28 loTie, 32 hi, 36 hiTie, 40 minB, 44 lowB, 48 highB, 52 maxB.
// Lanes that need the slow path get the input unchanged, and their indices
// (relative to src) are stored at idx.

// NEON instructions the Go assembler has no mnemonic for, on 4 lanes of
// 32 bits, registers by number, sources first as in the Go syntax:
// Vd = Vn op Vm.
#define CMHI(m, n, d) WORD $(0x6EA03400 | (m)<<16 | (n)<<5 | (d)) // Vn > Vm unsigned: all ones
#define CMHS(m, n, d) WORD $(0x6EA03C00 | (m)<<16 | (n)<<5 | (d)) // Vn >= Vm unsigned
#define USHL(m, n, d) WORD $(0x6EA04400 | (m)<<16 | (n)<<5 | (d)) // Vn << Vm, >> where Vm < 0
#define SSHL(m, n, d) WORD $(0x4EA04400 | (m)<<16 | (n)<<5 | (d)) // the same, arithmetic
#define SMAX(m, n, d) WORD $(0x4EA06400 | (m)<<16 | (n)<<5 | (d))
#define BIC(m, n, d) WORD $(0x4E601C00 | (m)<<16 | (n)<<5 | (d))  // Vn &^ Vm
#define NEG(n, d) WORD $(0x6EA0B800 | (n)<<5 | (d))

// SPLAT sets V to 4 copies of the word at off(R3).
#define SPLAT(off, V) \
	ADD   $off, R3, R9; \
	VLD1R (R9), [V.S4]

// DROP sets V3 to drop = max(k+c1, c2-k, 0) of the lanes of a (V1),
// k = ((a>>23) + sOff) >> es, and V4 to low = 1<<(drop&31) - 1. It
// clobbers V5.
#define DROP \
	VUSHR $23, V1.S4, V3.S4; \
	VADD  V16.S4, V3.S4, V3.S4; \
	SSHL(17, 3, 3); \
	VADD  V18.S4, V3.S4, V5.S4; \
	VSUB  V3.S4, V19.S4, V3.S4; \
	SMAX(5, 3, 3); \
	SMAX(13, 3, 3); \
	VAND  V15.B16, V3.B16, V4.B16; \
	USHL(4, 12, 4); \
	VSUB  V12.S4, V4.S4, V4.S4

// RECORD stores at idx[R6] the index R7+j of each lane j of V6 that is
// all ones, counting in R6; R10 and R11 are scratch. Lanes are stored
// regardless and counted only if set, so no branch depends on them.
#define RECORD \
	VMOV  V6.S[0], R10; \
	MOVW  R7, (R5)(R6<<2); \
	CMPW  $0, R10; \
	CINC  NE, R6, R6; \
	ADD   $1, R7, R11; \
	VMOV  V6.S[1], R10; \
	MOVW  R11, (R5)(R6<<2); \
	CMPW  $0, R10; \
	CINC  NE, R6, R6; \
	ADD   $2, R7, R11; \
	VMOV  V6.S[2], R10; \
	MOVW  R11, (R5)(R6<<2); \
	CMPW  $0, R10; \
	CINC  NE, R6, R6; \
	ADD   $3, R7, R11; \
	VMOV  V6.S[3], R10; \
	MOVW  R11, (R5)(R6<<2); \
	CMPW  $0, R10; \
	CINC  NE, R6, R6

// COMMON loads the constants both kernels use: V16 sOff, V17 -es, V18
// c1, V19 c2, V20 off, V29 0x7fffffff, V30 the smallest normal, V31 the
// span of normals, V12 1, V13 0, V15 31.
#define COMMON \
	SPLAT(0, V16); \
	SPLAT(4, V17); \
	NEG(17, 17); \
	SPLAT(8, V18); \
	SPLAT(12, V19); \
	SPLAT(20, V20); \
	MOVW  $0x7fffffff, R9; \
	VDUP  R9, V29.S4; \
	MOVW  $0x00800000, R9; \
	VDUP  R9, V30.S4; \
	MOVW  $(254<<23), R9; \
	VDUP  R9, V31.S4; \
	MOVW  $1, R9; \
	VDUP  R9, V12.S4; \
	VEOR  V13.B16, V13.B16, V13.B16; \
	MOVW  $31, R9; \
	VDUP  R9, V15.S4

// func roundPositNEON(dst, src *float32, n int, c *positSlice, idx *int32) int
//
// By roundPositGo's cases: a = |x| bits below lo rounds to minB or lowB
// (0 stays 0, without its sign), at or above hi to highB or maxB (Inf and
// NaN take the slow path), and between them by positKernel.round, whose
// inputs or results outside float32's normals take the slow path.
TEXT ·roundPositNEON(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	MOVD c+24(FP), R3
	MOVD idx+32(FP), R5
	MOVD $0, R6 // count
	MOVD $0, R7 // index of lane 0
	COMMON
	SPLAT(24, V21) // lo
	SPLAT(28, V22) // loTie
	SPLAT(32, V23) // hi
	SPLAT(36, V24) // hiTie
	SPLAT(40, V25) // minB
	SPLAT(44, V26) // lowB
	SPLAT(48, V27) // highB
	SPLAT(52, V28) // maxB
	MOVW  $0x7f800000, R9
	VDUP  R9, V14.S4
	CBZ   R2, done

loop:
	VLD1.P 16(R1), [V0.S4]
	VAND   V29.B16, V0.B16, V1.B16 // a
	VEOR   V1.B16, V0.B16, V2.B16  // sign
	DROP
	VADD   V20.S4, V1.S4, V5.S4    // v = a + off
	NEG(3, 6)
	USHL(6, 5, 6)                  // v >> drop
	VAND   V12.B16, V6.B16, V6.B16
	VUSHR  $1, V4.S4, V7.S4
	VADD   V7.S4, V6.S4, V6.S4
	VAND   V4.B16, V6.B16, V6.B16  // half
	VADD   V6.S4, V5.S4, V5.S4
	BIC(4, 5, 5)
	VSUB   V20.S4, V5.S4, V5.S4    // r
	VSUB   V30.S4, V1.S4, V6.S4
	CMHS(31, 6, 6)                 // a not normal
	VSUB   V30.S4, V5.S4, V7.S4
	CMHS(31, 7, 7)                 // r not normal
	VORR   V7.B16, V6.B16, V6.B16  // slow, between lo and hi
	CMHS(22, 1, 7)                 // a >= loTie
	VBSL   V25.B16, V26.B16, V7.B16
	CMHI(1, 21, 8)                 // a < lo
	VBIT   V8.B16, V7.B16, V5.B16
	BIC(8, 6, 6)
	CMHS(23, 1, 9)                 // a >= hi
	BIC(8, 9, 9)
	CMHS(24, 1, 10)                // a >= hiTie
	VBSL   V27.B16, V28.B16, V10.B16
	VBIT   V9.B16, V10.B16, V5.B16
	BIC(9, 6, 6)
	CMHS(14, 1, 10)                // Inf or NaN
	VAND   V9.B16, V10.B16, V10.B16
	VORR   V10.B16, V6.B16, V6.B16 // slow
	VORR   V2.B16, V5.B16, V5.B16
	VCMEQ  V13.S4, V1.S4, V10.S4
	BIC(10, 5, 5)                  // ±0 gives +0
	VBIT   V6.B16, V0.B16, V5.B16
	VST1.P [V5.S4], 16(R0)
	VMOV   V6.D[0], R10
	VMOV   V6.D[1], R11
	ORR    R10, R11, R10
	CBZ    R10, next
	RECORD

next:
	ADD  $4, R7
	SUBS $4, R2
	BHI  loop

done:
	MOVD R6, ret+40(FP)
	RET

// func roundPositStochNEON(dst, src *float32, n int, kp *positKernel, u *uint32, idx *int32) int
//
// As roundPositStochGo: r = (a + off + u&low) &^ low - off, where
// drop <= 23 and a and r are normal float32s; elsewhere the slow path.
TEXT ·roundPositStochNEON(SB), NOSPLIT, $0-56
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	MOVD kp+24(FP), R3
	MOVD u+32(FP), R4
	MOVD idx+40(FP), R5
	MOVD $0, R6
	MOVD $0, R7
	COMMON
	MOVW $23, R9
	VDUP R9, V14.S4
	CBZ  R2, sdone

sloop:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R4), [V8.S4]
	VAND   V29.B16, V0.B16, V1.B16 // a
	VEOR   V1.B16, V0.B16, V2.B16  // sign
	DROP
	VAND   V4.B16, V8.B16, V8.B16  // u & low
	VADD   V20.S4, V1.S4, V5.S4
	VADD   V8.S4, V5.S4, V5.S4
	BIC(4, 5, 5)
	VSUB   V20.S4, V5.S4, V5.S4    // r
	CMHI(14, 3, 6)                 // drop > 23
	VSUB   V30.S4, V1.S4, V7.S4
	CMHS(31, 7, 7)                 // a not normal
	VORR   V7.B16, V6.B16, V6.B16
	VSUB   V30.S4, V5.S4, V7.S4
	CMHS(31, 7, 7)                 // r not normal
	VORR   V7.B16, V6.B16, V6.B16  // slow
	VORR   V2.B16, V5.B16, V5.B16
	VBIT   V6.B16, V0.B16, V5.B16
	VST1.P [V5.S4], 16(R0)
	VMOV   V6.D[0], R10
	VMOV   V6.D[1], R11
	ORR    R10, R11, R10
	CBZ    R10, snext
	RECORD

snext:
	ADD  $4, R7
	SUBS $4, R2
	BHI  sloop

sdone:
	MOVD R6, ret+48(FP)
	RET
