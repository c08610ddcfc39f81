//go:build amd64 && !purego

#include "textflag.h"

// Band kernels of the MX rounding down columns: rows of a band, row after
// row, in one call; see block_band_amd64.go.

// Offsets of the fields of mxCols (block_kernel.go): blockChunk uint32s each.
#define C_MINNORM 0
#define C_MAXBITS 8192
#define C_NAN 12288

DATA bandIota8<>+0(SB)/4, $0
DATA bandIota8<>+4(SB)/4, $1
DATA bandIota8<>+8(SB)/4, $2
DATA bandIota8<>+12(SB)/4, $3
DATA bandIota8<>+16(SB)/4, $4
DATA bandIota8<>+20(SB)/4, $5
DATA bandIota8<>+24(SB)/4, $6
DATA bandIota8<>+28(SB)/4, $7
GLOBL bandIota8<>(SB), RODATA|NOPTR, $32

// BANDTAIL8 sets R10 = n%8, MASK to the lanes below it, and CX to the
// bytes of n's whole vectors of 8.
#define BANDTAIL8(MASK, T) \
	MOVQ CX, R10; \
	ANDQ $7, R10; \
	VMOVD R10, T; \
	VPBROADCASTD T, MASK; \
	VPCMPGTD bandIota8<>(SB), MASK, MASK; \
	ANDQ $-8, CX; \
	SHLQ $2, CX

// func absMaxBandAVX2(am *uint32, src *float32, n, rows, stride int)
TEXT ·absMaxBandAVX2(SB), NOSPLIT, $0-40
	MOVQ am+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ rows+24(FP), R8
	MOVQ stride+32(FP), R9
	SHLQ $2, R9
	MOVL $0x7fffffff, R11
	VMOVD R11, X14
	VPBROADCASTD X14, Y14
	BANDTAIL8(Y13, X13)

bmaxrow:
	XORQ AX, AX
	CMPQ AX, CX
	JAE  bmaxtail

bmaxvec:
	VPAND   (SI)(AX*1), Y14, Y0
	VPMAXUD (DI)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      bmaxvec

bmaxtail:
	TESTQ R10, R10
	JZ    bmaxnext
	VPMASKMOVD (SI)(AX*1), Y13, Y0
	VPAND      Y14, Y0, Y0
	VPMAXUD    (DI)(AX*1), Y0, Y0
	VPMASKMOVD Y0, Y13, (DI)(AX*1)

bmaxnext:
	ADDQ R9, SI
	DECQ R8
	JNZ  bmaxrow
	VZEROUPPER
	RET

// BANDROUND8 rounds the 8 float32s in Y0 into Y4 as mxConsts.round does,
// with the constants of the columns at AX in the mxCols at BX, for values
// no larger in magnitude than the maximum the constants come from (so no
// clamp of the binade at maxBits' is needed) in a column that is not a
// NaN column and whose maxBits has an exponent byte below 255-d: MXFAST8
// (block_kernel_amd64.s) without its first clamp. Y14 holds 0x7fffffff,
// Y10 0x7f800000 and Y9 d<<23; Y1, Y2 and Y3 are clobbered.
#define BANDROUND8 \
	VPAND   Y14, Y0, Y1; \
	VPXOR   Y1, Y0, Y2; \
	VPAND   Y10, Y0, Y3; \
	VPMAXUD C_MINNORM(BX)(AX*1), Y3, Y3; \
	VPADDD  Y9, Y3, Y3; \
	VADDPS  Y3, Y1, Y4; \
	VSUBPS  Y3, Y4, Y4; \
	VPMINUD C_MAXBITS(BX)(AX*1), Y4, Y4; \
	VPOR    Y2, Y4, Y4

// BANDCHECK8 or-s into Y6 the lanes of the 8 columns at AX whose
// constants BANDROUND8 cannot take (maxBits at or above Y7, a NaN
// column), masked by MASK. Y0 and Y1 are clobbered.
#define BANDCHECK8(MASK) \
	VMOVDQU  C_MAXBITS(BX)(AX*1), Y0; \
	VPMAXUD  Y7, Y0, Y1; \
	VPCMPEQD Y0, Y1, Y1; \
	VPOR     C_NAN(BX)(AX*1), Y1, Y1; \
	VPAND    MASK, Y1, Y1; \
	VPOR     Y1, Y6, Y6

// func mxRoundBandAVX2(dst, src *float32, n, rows, stride int, cc *mxCols, dr uint32) bool
TEXT ·mxRoundBandAVX2(SB), NOSPLIT, $0-57
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ rows+24(FP), R8
	MOVQ stride+32(FP), R9
	SHLQ $2, R9
	MOVQ cc+40(FP), BX
	MOVL dr+48(FP), DX
	MOVL $0x7fffffff, R11
	VMOVD R11, X14
	VPBROADCASTD X14, Y14
	MOVL $0x7f800000, R11
	VMOVD R11, X10
	VPBROADCASTD X10, Y10
	MOVL DX, R11
	SHLL $23, R11
	VMOVD R11, X9
	VPBROADCASTD X9, Y9
	MOVL $255, R11
	SUBL DX, R11
	SHLL $23, R11
	VMOVD R11, X7
	VPBROADCASTD X7, Y7
	VPCMPEQD Y12, Y12, Y12 // all lanes
	BANDTAIL8(Y13, X13)

	// Every column must take BANDROUND8.
	VPXOR Y6, Y6, Y6
	XORQ  AX, AX
	CMPQ  AX, CX
	JAE   bcheck8tail

bcheck8:
	BANDCHECK8(Y12)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   bcheck8

bcheck8tail:
	TESTQ R10, R10
	JZ    bcheck8done
	BANDCHECK8(Y13)

bcheck8done:
	VPTEST Y6, Y6
	JNZ    bround8no

bround8row:
	XORQ AX, AX
	CMPQ AX, CX
	JAE  bround8tail

bround8vec:
	VMOVDQU (SI)(AX*1), Y0
	BANDROUND8
	VMOVDQU Y4, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      bround8vec

bround8tail:
	TESTQ R10, R10
	JZ    bround8next
	VPMASKMOVD (SI)(AX*1), Y13, Y0
	BANDROUND8
	VPMASKMOVD Y4, Y13, (DI)(AX*1)

bround8next:
	ADDQ R9, SI
	ADDQ R9, DI
	DECQ R8
	JNZ  bround8row
	VZEROUPPER
	MOVB $1, ret+56(FP)
	RET

bround8no:
	VZEROUPPER
	MOVB $0, ret+56(FP)
	RET

// The same on 16 lanes (AVX-512), tails under a mask register.

// BANDTAIL16 sets R10 = n%16, K2 to the lanes below it, and CX to the
// bytes of n's whole vectors of 16 (it uses CX's low byte for the shift).
#define BANDTAIL16 \
	MOVQ CX, R10; \
	ANDQ $15, R10; \
	ANDQ $-16, CX; \
	SHLQ $2, CX; \
	MOVQ CX, R12; \
	MOVQ R10, CX; \
	MOVL $1, R11; \
	SHLL CX, R11; \
	DECL R11; \
	KMOVW R11, K2; \
	MOVQ R12, CX

// func absMaxBandAVX512(am *uint32, src *float32, n, rows, stride int)
TEXT ·absMaxBandAVX512(SB), NOSPLIT, $0-40
	MOVQ am+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ rows+24(FP), R8
	MOVQ stride+32(FP), R9
	SHLQ $2, R9
	MOVL $0x7fffffff, R11
	VPBROADCASTD R11, Z30
	BANDTAIL16

bmax16row:
	XORQ AX, AX
	CMPQ AX, CX
	JAE  bmax16tail

bmax16vec:
	VPANDD    (SI)(AX*1), Z30, Z0
	VPMAXUD   (DI)(AX*1), Z0, Z0
	VMOVDQU32 Z0, (DI)(AX*1)
	ADDQ      $64, AX
	CMPQ      AX, CX
	JB        bmax16vec

bmax16tail:
	TESTQ R10, R10
	JZ    bmax16next
	VMOVDQU32.Z (SI)(AX*1), K2, Z0
	VPANDD      Z30, Z0, Z0
	VPMAXUD     (DI)(AX*1), Z0, Z0
	VMOVDQU32   Z0, K2, (DI)(AX*1)

bmax16next:
	ADDQ R9, SI
	DECQ R8
	JNZ  bmax16row
	VZEROUPPER
	RET

// BANDROUND16 is BANDROUND8 on 16 lanes, Z0 into Z4: Z30 holds
// 0x7fffffff, Z26 0x7f800000 and Z25 d<<23; Z1 and Z2 are clobbered. The
// last step or-s the sign in: r ^ x ^ |x| (imm 0x96, the three-way
// exclusive or).
#define BANDROUND16 \
	VPANDD  Z30, Z0, Z1; \
	VPANDD  Z26, Z0, Z2; \
	VPMAXUD C_MINNORM(BX)(AX*1), Z2, Z2; \
	VPADDD  Z25, Z2, Z2; \
	VADDPS  Z2, Z1, Z4; \
	VSUBPS  Z2, Z4, Z4; \
	VPMINUD C_MAXBITS(BX)(AX*1), Z4, Z4; \
	VPTERNLOGD $0x96, Z1, Z0, Z4

// BANDCHECK16 sets K3 to the lanes of the 16 columns at AX, masked by
// MASK, whose constants BANDROUND16 cannot take (maxBits at or above Z24,
// a NaN column), and jumps to bround16no if there is one. K4 is clobbered.
#define BANDCHECK16(MASK) \
	VPCMPUD   $2, C_MAXBITS(BX)(AX*1), Z24, MASK, K3; \
	VPTESTMD  C_NAN(BX)(AX*1), Z31, MASK, K4; \
	KORTESTW  K3, K4; \
	JNZ       bround16no

// func mxRoundBandAVX512(dst, src *float32, n, rows, stride int, cc *mxCols, dr uint32) bool
TEXT ·mxRoundBandAVX512(SB), NOSPLIT, $0-57
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ rows+24(FP), R8
	MOVQ stride+32(FP), R9
	SHLQ $2, R9
	MOVQ cc+40(FP), BX
	MOVL dr+48(FP), DX
	MOVL $0x7fffffff, R11
	VPBROADCASTD R11, Z30
	MOVL $0x7f800000, R11
	VPBROADCASTD R11, Z26
	MOVL DX, R11
	SHLL $23, R11
	VPBROADCASTD R11, Z25
	MOVL $255, R11
	SUBL DX, R11
	SHLL $23, R11
	VPBROADCASTD R11, Z24
	VPTERNLOGD $0xff, Z31, Z31, Z31 // all ones
	MOVL $0xffff, R11
	KMOVW R11, K1
	BANDTAIL16

	// Every column must take BANDROUND16.
	XORQ AX, AX
	CMPQ AX, CX
	JAE  bcheck16tail

bcheck16:
	BANDCHECK16(K1)
	ADDQ $64, AX
	CMPQ AX, CX
	JB   bcheck16

bcheck16tail:
	TESTQ R10, R10
	JZ    bround16row
	BANDCHECK16(K2)

bround16row:
	XORQ AX, AX
	CMPQ AX, CX
	JAE  bround16tail

bround16vec:
	VMOVDQU32 (SI)(AX*1), Z0
	BANDROUND16
	VMOVDQU32 Z4, (DI)(AX*1)
	ADDQ      $64, AX
	CMPQ      AX, CX
	JB        bround16vec

bround16tail:
	TESTQ R10, R10
	JZ    bround16next
	VMOVDQU32.Z (SI)(AX*1), K2, Z0
	BANDROUND16
	VMOVDQU32   Z4, K2, (DI)(AX*1)

bround16next:
	ADDQ R9, SI
	ADDQ R9, DI
	DECQ R8
	JNZ  bround16row
	VZEROUPPER
	MOVB $1, ret+56(FP)
	RET

bround16no:
	VZEROUPPER
	MOVB $0, ret+56(FP)
	RET

// Offsets of the fields of mxRowParams (block_band.go).
#define R_LO1 0
#define R_HI1 4
#define R_CMN 8
#define R_CMB 12
#define R_D 16

DATA rowPerm8<>+0(SB)/4, $0
DATA rowPerm8<>+4(SB)/4, $4
DATA rowPerm8<>+8(SB)/4, $1
DATA rowPerm8<>+12(SB)/4, $5
DATA rowPerm8<>+16(SB)/4, $2
DATA rowPerm8<>+20(SB)/4, $6
DATA rowPerm8<>+24(SB)/4, $3
DATA rowPerm8<>+28(SB)/4, $7
GLOBL rowPerm8<>(SB), RODATA|NOPTR, $32

// RMAX32X8 sets A to the lane-wise maximum of |x| over the 32 values at
// off(SI) (Y14 0x7fffffff); Y8 and Y9 are clobbered.
#define RMAX32X8(off, A) \
	VPAND off(SI), Y14, A; \
	VPAND off+32(SI), Y14, Y8; \
	VPAND off+64(SI), Y14, Y9; \
	VPMAXUD Y8, A, A; \
	VPAND off+96(SI), Y14, Y8; \
	VPMAXUD Y9, Y8, Y8; \
	VPMAXUD Y8, A, A

// RROUND8 rounds the 8 float32s at off(SI) into off(DI) with the block
// constants Y10 (minNorm) and Y11 (maxBits), as BANDROUND8 does; Y14
// holds 0x7fffffff, Y13 0x7f800000, Y12 d<<23. Y0-Y4 are clobbered.
#define RROUND8(off) \
	VMOVDQU off(SI), Y0; \
	VPAND   Y14, Y0, Y1; \
	VPXOR   Y1, Y0, Y2; \
	VPAND   Y13, Y0, Y3; \
	VPMAXUD Y10, Y3, Y3; \
	VPADDD  Y12, Y3, Y3; \
	VADDPS  Y3, Y1, Y4; \
	VSUBPS  Y3, Y4, Y4; \
	VPMINUD Y11, Y4, Y4; \
	VPOR    Y2, Y4, Y4; \
	VMOVDQU Y4, off(DI)

// func mxRowAVX2(dst, src *float32, nb int, p *mxRowParams, tmp *uint32) int
//
// Groups of eight blocks of 32: their maxima as absMaxBlocksAVX2 finds
// them, their constants as mxConstsAVX2 computes them (kept at tmp), and
// the rounding of RROUND8, while every block of the group has its
// exponent byte in [lo1+1, hi1-1] (constants valid, no NaN block, maxBits
// below MXFAST8's bound); it returns how many blocks it rounded.
TEXT ·mxRowAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), R8
	MOVQ p+24(FP), DX
	MOVQ tmp+32(FP), BX
	XORQ AX, AX
	MOVL $0x7fffffff, R11
	VMOVD R11, X14
	VPBROADCASTD X14, Y14
	MOVL $0x7f800000, R11
	VMOVD R11, X13
	VPBROADCASTD X13, Y13
	MOVL R_D(DX), R11
	SHLL $23, R11
	VMOVD R11, X12
	VPBROADCASTD X12, Y12
	VMOVDQU rowPerm8<>(SB), Y15

rowgroup:
	CMPQ R8, $8
	JB   rowdone
	RMAX32X8(0, Y0)
	RMAX32X8(128, Y1)
	RMAX32X8(256, Y2)
	RMAX32X8(384, Y3)
	RMAX32X8(512, Y4)
	RMAX32X8(640, Y5)
	RMAX32X8(768, Y6)
	RMAX32X8(896, Y7)
	VPERM2I128 $0x20, Y1, Y0, Y8
	VPERM2I128 $0x31, Y1, Y0, Y9
	VPMAXUD Y9, Y8, Y0
	VPERM2I128 $0x20, Y3, Y2, Y8
	VPERM2I128 $0x31, Y3, Y2, Y9
	VPMAXUD Y9, Y8, Y2
	VPERM2I128 $0x20, Y5, Y4, Y8
	VPERM2I128 $0x31, Y5, Y4, Y9
	VPMAXUD Y9, Y8, Y4
	VPERM2I128 $0x20, Y7, Y6, Y8
	VPERM2I128 $0x31, Y7, Y6, Y9
	VPMAXUD Y9, Y8, Y6
	VSHUFPS $0x44, Y2, Y0, Y8
	VSHUFPS $0xee, Y2, Y0, Y9
	VPMAXUD Y9, Y8, Y0
	VSHUFPS $0x44, Y6, Y4, Y8
	VSHUFPS $0xee, Y6, Y4, Y9
	VPMAXUD Y9, Y8, Y4
	VSHUFPS $0x88, Y4, Y0, Y8
	VSHUFPS $0xdd, Y4, Y0, Y9
	VPMAXUD Y9, Y8, Y0
	VPERMD Y0, Y15, Y0

	// The constants, if every block takes the fast rounding (the maxima
	// are below 2^31, so signed compares serve).
	VPSRLD $23, Y0, Y1 // E
	VPBROADCASTD R_LO1(DX), Y2
	VPCMPGTD Y2, Y1, Y3
	VPBROADCASTD R_HI1(DX), Y2
	VPCMPGTD Y1, Y2, Y4
	VPAND Y4, Y3, Y3
	VMOVMSKPS Y3, R11
	CMPL R11, $0xff
	JNE  rowdone
	VPBROADCASTD R_CMN(DX), Y2
	VPADDD Y2, Y1, Y3
	VPSLLD $23, Y3, Y3
	VMOVDQU Y3, (BX) // minNorm
	VPSLLD $23, Y1, Y4
	VPBROADCASTD R_CMB(DX), Y2
	VPADDD Y2, Y4, Y4
	VMOVDQU Y4, 32(BX) // maxBits

	MOVQ $0, CX

rowblock:
	VPBROADCASTD (BX)(CX*4), Y10
	VPBROADCASTD 32(BX)(CX*4), Y11
	RROUND8(0)
	RROUND8(32)
	RROUND8(64)
	RROUND8(96)
	ADDQ $128, SI
	ADDQ $128, DI
	INCQ CX
	CMPQ CX, $8
	JB   rowblock

	ADDQ $8, AX
	SUBQ $8, R8
	JMP  rowgroup

rowdone:
	VZEROUPPER
	MOVQ AX, ret+40(FP)
	RET

// RMAX32X16 sets A to the lane-wise maximum of |x| over the 32 values at
// off(SI) (Z30 0x7fffffff); Z16 is clobbered.
#define RMAX32X16(off, A) \
	VPANDD off(SI), Z30, A; \
	VPANDD off+64(SI), Z30, Z16; \
	VPMAXUD Z16, A, A

// RPAIR16 is one level of the reduction of sixteen accumulators
// (absMaxBlocksAVX512's MAXPAIR16). Z16 and Z17 are clobbered.
#define RPAIR16(SHUF, LO, HI, X, Y) \
	SHUF LO, Y, X, Z16; \
	SHUF HI, Y, X, Z17; \
	VPMAXUD Z17, Z16, X

DATA rowPerm16<>+0(SB)/4, $0
DATA rowPerm16<>+4(SB)/4, $4
DATA rowPerm16<>+8(SB)/4, $8
DATA rowPerm16<>+12(SB)/4, $12
DATA rowPerm16<>+16(SB)/4, $1
DATA rowPerm16<>+20(SB)/4, $5
DATA rowPerm16<>+24(SB)/4, $9
DATA rowPerm16<>+28(SB)/4, $13
DATA rowPerm16<>+32(SB)/4, $2
DATA rowPerm16<>+36(SB)/4, $6
DATA rowPerm16<>+40(SB)/4, $10
DATA rowPerm16<>+44(SB)/4, $14
DATA rowPerm16<>+48(SB)/4, $3
DATA rowPerm16<>+52(SB)/4, $7
DATA rowPerm16<>+56(SB)/4, $11
DATA rowPerm16<>+60(SB)/4, $15
GLOBL rowPerm16<>(SB), RODATA|NOPTR, $64

// RROUND16 rounds the 16 float32s at off(SI) into off(DI) with the block
// constants Z10 (minNorm) and Z11 (maxBits), as BANDROUND16 does; Z30
// holds 0x7fffffff, Z26 0x7f800000, Z25 d<<23. Z0, Z1, Z2 and Z4 are
// clobbered.
#define RROUND16(off) \
	VMOVDQU32 off(SI), Z0; \
	VPANDD  Z30, Z0, Z1; \
	VPANDD  Z26, Z0, Z2; \
	VPMAXUD Z10, Z2, Z2; \
	VPADDD  Z25, Z2, Z2; \
	VADDPS  Z2, Z1, Z4; \
	VSUBPS  Z2, Z4, Z4; \
	VPMINUD Z11, Z4, Z4; \
	VPTERNLOGD $0x96, Z1, Z0, Z4; \
	VMOVDQU32 Z4, off(DI)

// func mxRowAVX512(dst, src *float32, nb int, p *mxRowParams, tmp *uint32) int
TEXT ·mxRowAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), R8
	MOVQ p+24(FP), DX
	MOVQ tmp+32(FP), BX
	XORQ AX, AX
	MOVL $0x7fffffff, R11
	VPBROADCASTD R11, Z30
	MOVL $0x7f800000, R11
	VPBROADCASTD R11, Z26
	MOVL R_D(DX), R11
	SHLL $23, R11
	VPBROADCASTD R11, Z25
	VPBROADCASTD R_LO1(DX), Z24
	VPBROADCASTD R_HI1(DX), Z23
	VPBROADCASTD R_CMN(DX), Z22
	VPBROADCASTD R_CMB(DX), Z21
	VMOVDQU32 rowPerm16<>(SB), Z31

row16group:
	CMPQ R8, $16
	JB   row16done
	RMAX32X16(0, Z0)
	RMAX32X16(128, Z1)
	RMAX32X16(256, Z2)
	RMAX32X16(384, Z3)
	RMAX32X16(512, Z4)
	RMAX32X16(640, Z5)
	RMAX32X16(768, Z6)
	RMAX32X16(896, Z7)
	RMAX32X16(1024, Z8)
	RMAX32X16(1152, Z9)
	RMAX32X16(1280, Z10)
	RMAX32X16(1408, Z11)
	RMAX32X16(1536, Z12)
	RMAX32X16(1664, Z13)
	RMAX32X16(1792, Z14)
	RMAX32X16(1920, Z15)
	RPAIR16(VSHUFI32X4, $0x44, $0xee, Z0, Z1)
	RPAIR16(VSHUFI32X4, $0x44, $0xee, Z2, Z3)
	RPAIR16(VSHUFI32X4, $0x44, $0xee, Z4, Z5)
	RPAIR16(VSHUFI32X4, $0x44, $0xee, Z6, Z7)
	RPAIR16(VSHUFI32X4, $0x44, $0xee, Z8, Z9)
	RPAIR16(VSHUFI32X4, $0x44, $0xee, Z10, Z11)
	RPAIR16(VSHUFI32X4, $0x44, $0xee, Z12, Z13)
	RPAIR16(VSHUFI32X4, $0x44, $0xee, Z14, Z15)
	RPAIR16(VSHUFI32X4, $0x88, $0xdd, Z0, Z2)
	RPAIR16(VSHUFI32X4, $0x88, $0xdd, Z4, Z6)
	RPAIR16(VSHUFI32X4, $0x88, $0xdd, Z8, Z10)
	RPAIR16(VSHUFI32X4, $0x88, $0xdd, Z12, Z14)
	RPAIR16(VSHUFPS, $0x44, $0xee, Z0, Z4)
	RPAIR16(VSHUFPS, $0x44, $0xee, Z8, Z12)
	RPAIR16(VSHUFPS, $0x88, $0xdd, Z0, Z8)
	VPERMD Z0, Z31, Z0

	// The constants, if every block takes the fast rounding.
	VPSRLD   $23, Z0, Z1 // E
	VPCMPGTD Z24, Z1, K2
	VPCMPGTD Z1, Z23, K3
	KANDW    K2, K3, K3
	KORTESTW K3, K3
	JCC      row16done
	VPADDD   Z22, Z1, Z3
	VPSLLD   $23, Z3, Z3
	VMOVDQU32 Z3, (BX) // minNorm
	VPSLLD   $23, Z1, Z4
	VPADDD   Z21, Z4, Z4
	VMOVDQU32 Z4, 64(BX) // maxBits

	MOVQ $0, CX

row16block:
	VPBROADCASTD (BX)(CX*4), Z10
	VPBROADCASTD 64(BX)(CX*4), Z11
	RROUND16(0)
	RROUND16(64)
	ADDQ $128, SI
	ADDQ $128, DI
	INCQ CX
	CMPQ CX, $16
	JB   row16block

	ADDQ $16, AX
	SUBQ $16, R8
	JMP  row16group

row16done:
	VZEROUPPER
	MOVQ AX, ret+40(FP)
	RET
