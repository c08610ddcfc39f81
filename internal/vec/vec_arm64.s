//go:build arm64 && !purego

#include "textflag.h"

// NEON instructions the Go assembler has no mnemonic for, on 4 lanes of
// 32 bits, registers by number, sources first as in the Go syntax:
// Vd = Vn op Vm. The first source is the left operand of the Go
// expression each line mirrors, so that a NaN of either propagates as
// in the Go kernel (the first operand's NaN wins when both are NaN).
#define FADD(m, n, d) WORD $(0x4E20D400 | (m)<<16 | (n)<<5 | (d)) // Vn + Vm
#define FSUB(m, n, d) WORD $(0x4EA0D400 | (m)<<16 | (n)<<5 | (d)) // Vn - Vm
#define FMUL(m, n, d) WORD $(0x6E20DC00 | (m)<<16 | (n)<<5 | (d)) // Vn * Vm
#define FDIV(m, n, d) WORD $(0x6E20FC00 | (m)<<16 | (n)<<5 | (d)) // Vn / Vm
#define FSQRT(n, d) WORD $(0x6EA1F800 | (n)<<5 | (d))             // √Vn
#define CMHI(m, n, d) WORD $(0x6EA03400 | (m)<<16 | (n)<<5 | (d)) // Vn > Vm unsigned: all ones
#define CMHS(m, n, d) WORD $(0x6EA03C00 | (m)<<16 | (n)<<5 | (d)) // Vn >= Vm unsigned
#define BSL(m, n, d) WORD $(0x6E601C00 | (m)<<16 | (n)<<5 | (d))  // Vd&Vn | ^Vd&Vm
#define ADDV(n, d) WORD $(0x4EB1B800 | (n)<<5 | (d))              // Sd = sum of Vn's lanes

// Every kernel runs n values, n a positive multiple of 4.

// func adamNEON(p, grad, m, v *float32, n int, inv, b1, c1, b2, c2, lr, sc2, eps float32)
TEXT ·adamNEON(SB), NOSPLIT, $0-72
	MOVD  p+0(FP), R0
	MOVD  grad+8(FP), R1
	MOVD  m+16(FP), R2
	MOVD  v+24(FP), R3
	MOVD  n+32(FP), R4
	MOVWU inv+40(FP), R9
	VDUP  R9, V20.S4
	MOVWU b1+44(FP), R9
	VDUP  R9, V21.S4
	MOVWU c1+48(FP), R9
	VDUP  R9, V22.S4
	MOVWU b2+52(FP), R9
	VDUP  R9, V23.S4
	MOVWU c2+56(FP), R9
	VDUP  R9, V24.S4
	MOVWU lr+60(FP), R9
	VDUP  R9, V25.S4
	MOVWU sc2+64(FP), R9
	VDUP  R9, V26.S4
	MOVWU eps+68(FP), R9
	VDUP  R9, V27.S4

adamloop:
	VLD1.P 16(R1), [V1.S4]  // g
	VLD1   (R2), [V2.S4]    // m
	VLD1   (R3), [V3.S4]    // v
	VLD1   (R0), [V0.S4]    // p
	FMUL(20, 1, 1)          // gj = g * inv
	FMUL(2, 21, 2)          // b1 * m
	FMUL(1, 22, 4)          // c1 * gj
	FADD(4, 2, 2)           // mj
	FMUL(3, 23, 3)          // b2 * v
	FMUL(1, 24, 5)          // c2 * gj
	FMUL(1, 5, 5)           // · gj
	FADD(5, 3, 3)           // vj
	VST1.P [V2.S4], 16(R2)
	VST1.P [V3.S4], 16(R3)
	FSQRT(3, 6)             // √vj
	FDIV(26, 6, 6)          // / sc2
	FADD(27, 6, 6)          // + eps
	FMUL(2, 25, 7)          // lr * mj
	FDIV(6, 7, 7)
	FSUB(7, 0, 0)           // p -= …
	VST1.P [V0.S4], 16(R0)
	SUBS   $4, R4
	BNE    adamloop
	RET

// func scaleNEON(dst, x *float32, n int, a float32)
TEXT ·scaleNEON(SB), NOSPLIT, $0-28
	MOVD  dst+0(FP), R0
	MOVD  x+8(FP), R1
	MOVD  n+16(FP), R4
	MOVWU a+24(FP), R9
	VDUP  R9, V20.S4

scaleloop:
	VLD1.P 16(R1), [V1.S4]
	FMUL(20, 1, 1)
	VST1.P [V1.S4], 16(R0)
	SUBS   $4, R4
	BNE    scaleloop
	RET

// func momentsNEON(m, v, grad *float32, n int, b1, c1, b2, c2 float32)
TEXT ·momentsNEON(SB), NOSPLIT, $0-48
	MOVD  m+0(FP), R2
	MOVD  v+8(FP), R3
	MOVD  grad+16(FP), R1
	MOVD  n+24(FP), R4
	MOVWU b1+32(FP), R9
	VDUP  R9, V21.S4
	MOVWU c1+36(FP), R9
	VDUP  R9, V22.S4
	MOVWU b2+40(FP), R9
	VDUP  R9, V23.S4
	MOVWU c2+44(FP), R9
	VDUP  R9, V24.S4

momentsloop:
	VLD1.P 16(R1), [V1.S4]  // gj
	VLD1   (R2), [V2.S4]
	VLD1   (R3), [V3.S4]
	FMUL(2, 21, 2)          // b1 * m
	FMUL(1, 22, 4)          // c1 * gj
	FADD(4, 2, 2)
	FMUL(3, 23, 3)          // b2 * v
	FMUL(1, 24, 5)          // c2 * gj
	FMUL(1, 5, 5)           // · gj
	FADD(5, 3, 3)
	VST1.P [V2.S4], 16(R2)
	VST1.P [V3.S4], 16(R3)
	SUBS   $4, R4
	BNE    momentsloop
	RET

// func applyNEON(p, m, v *float32, n int, lr, sc2, eps float32)
TEXT ·applyNEON(SB), NOSPLIT, $0-44
	MOVD  p+0(FP), R0
	MOVD  m+8(FP), R2
	MOVD  v+16(FP), R3
	MOVD  n+24(FP), R4
	MOVWU lr+32(FP), R9
	VDUP  R9, V25.S4
	MOVWU sc2+36(FP), R9
	VDUP  R9, V26.S4
	MOVWU eps+40(FP), R9
	VDUP  R9, V27.S4

applyloop:
	VLD1.P 16(R2), [V2.S4]
	VLD1.P 16(R3), [V3.S4]
	VLD1   (R0), [V0.S4]
	FSQRT(3, 6)
	FDIV(26, 6, 6)
	FADD(27, 6, 6)
	FMUL(2, 25, 7)          // lr * m
	FDIV(6, 7, 7)
	FSUB(7, 0, 0)
	VST1.P [V0.S4], 16(R0)
	SUBS   $4, R4
	BNE    applyloop
	RET

// POSITIVE sets V3 to all ones in the lanes of V1 whose bits are in
// [1, 0x7f800000] (x > 0, NaN excluded), as positive does: bits-1 < Inf
// unsigned. V30 holds 1s, V31 0x7f800000.
#define POSITIVE \
	VSUB V30.S4, V1.S4, V3.S4; \
	CMHI(3, 31, 3)

// CONSTS sets V30 and V31 for POSITIVE and V20 to the bits in R9.
#define CONSTS \
	VDUP R9, V20.S4;       \
	MOVW $1, R9;           \
	VDUP R9, V30.S4;       \
	MOVW $0x7f800000, R9;  \
	VDUP R9, V31.S4

// func leakyNEON(dst, x *float32, n int, alpha float32)
TEXT ·leakyNEON(SB), NOSPLIT, $0-28
	MOVD  dst+0(FP), R0
	MOVD  x+8(FP), R1
	MOVD  n+16(FP), R4
	MOVWU alpha+24(FP), R9
	CONSTS

leakyloop:
	VLD1.P 16(R1), [V1.S4]  // v
	FMUL(1, 20, 2)          // alpha * v
	POSITIVE
	BSL(2, 1, 3)
	VST1.P [V3.S4], 16(R0)
	SUBS   $4, R4
	BNE    leakyloop
	RET

// func leakyBackNEON(dst, dy, x *float32, n int, alpha float32)
TEXT ·leakyBackNEON(SB), NOSPLIT, $0-36
	MOVD  dst+0(FP), R0
	MOVD  dy+8(FP), R2
	MOVD  x+16(FP), R1
	MOVD  n+24(FP), R4
	MOVWU alpha+32(FP), R9
	CONSTS

leakybackloop:
	VLD1.P 16(R2), [V4.S4]  // d
	VLD1.P 16(R1), [V1.S4]  // x
	FMUL(4, 20, 2)          // alpha * d
	POSITIVE
	BSL(2, 4, 3)
	VST1.P [V3.S4], 16(R0)
	SUBS   $4, R4
	BNE    leakybackloop
	RET

// func countNEON(x *float32, n int, lo uint32) (ge, inf int)
// n < 1<<34: each lane counts to at most n/4 in 32 bits.
TEXT ·countNEON(SB), NOSPLIT, $0-40
	MOVD  x+0(FP), R1
	MOVD  n+8(FP), R4
	MOVWU lo+16(FP), R9
	VDUP  R9, V20.S4
	MOVW  $0x7fffffff, R9
	VDUP  R9, V21.S4
	MOVW  $0x7f800000, R9
	VDUP  R9, V31.S4
	VEOR  V4.B16, V4.B16, V4.B16
	VEOR  V5.B16, V5.B16, V5.B16

countloop:
	VLD1.P 16(R1), [V1.S4]
	VAND   V21.B16, V1.B16, V1.B16 // |x|'s bits
	CMHS(20, 1, 2)                 // >= lo: all ones, -1
	CMHS(31, 1, 3)                 // >= Inf
	VSUB   V2.S4, V4.S4, V4.S4
	VSUB   V3.S4, V5.S4, V5.S4
	SUBS   $4, R4
	BNE    countloop
	ADDV(4, 4)
	ADDV(5, 5)
	FMOVS  F4, R6
	FMOVS  F5, R7
	MOVD   R6, ge+24(FP)
	MOVD   R7, inf+32(FP)
	RET
