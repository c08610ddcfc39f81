//go:build amd64 && !purego

#include "textflag.h"

// Block kernels on 8 lanes (AVX2); see block_kernel_amd64.go.

// Offsets of the fields of mxCols (block_kernel.go): blockChunk uint32s each.
#define C_MINNORM 0
#define C_MAGIC 4096
#define C_MAXBITS 8192
#define C_NAN 12288

// ABSMAX8 sets ACC to the lane-wise unsigned maximum of ACC and |X| (float32
// bits), where lanes of X at or above 0x7f800000 (±Inf, NaN) count as 0
// unless KEEP is all ones. Y14 holds 0x7fffffff, Y13 0x7f800000 and Y12
// KEEP; T and M are clobbered.
#define ABSMAX8(X, ACC, T, M) \
	VPAND Y14, X, T; \
	VPCMPGTD T, Y13, M; \
	VPOR Y12, M, M; \
	VPAND M, T, T; \
	VPMAXUD T, ACC, ACC

// SETUPMAX loads the constants of ABSMAX8; the bool at finite+off(FP)
// decides KEEP (all ones when finite is false).
#define SETUPMAX(off) \
	MOVL $0x7fffffff, R11; \
	VMOVQ R11, X14; \
	VPBROADCASTD X14, Y14; \
	MOVL $0x7f800000, R11; \
	VMOVQ R11, X13; \
	VPBROADCASTD X13, Y13; \
	VPCMPEQD Y12, Y12, Y12; \
	MOVBLZX off(FP), R11; \
	TESTQ R11, R11; \
	JZ 2(PC); \
	VPXOR Y12, Y12, Y12

// BMAX32X8 sets A to the lane-wise maximum of |x| over the 32 values at
// off(SI), every lane counting (Y14 0x7fffffff); Y8 and Y9 are clobbered.
// absMaxBlocksAVX2 reduces eight such accumulators at once: 128-bit
// halves, then pairs of lanes, then lanes, leaving block j's maximum in
// lane 4(j%2)+j/2, which maxPerm8 puts back in lane j.
#define BMAX32X8(off, A) \
	VPAND off(SI), Y14, A; \
	VPAND off+32(SI), Y14, Y8; \
	VPAND off+64(SI), Y14, Y9; \
	VPMAXUD Y8, A, A; \
	VPAND off+96(SI), Y14, Y8; \
	VPMAXUD Y9, Y8, Y8; \
	VPMAXUD Y8, A, A

DATA maxPerm8<>+0(SB)/4, $0
DATA maxPerm8<>+4(SB)/4, $4
DATA maxPerm8<>+8(SB)/4, $1
DATA maxPerm8<>+12(SB)/4, $5
DATA maxPerm8<>+16(SB)/4, $2
DATA maxPerm8<>+20(SB)/4, $6
DATA maxPerm8<>+24(SB)/4, $3
DATA maxPerm8<>+28(SB)/4, $7
GLOBL maxPerm8<>(SB), RODATA|NOPTR, $32

// func absMaxBlocksAVX2(amax *uint32, src *float32, nb, k int, finite bool)
TEXT ·absMaxBlocksAVX2(SB), NOSPLIT, $0-33
	MOVQ amax+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), R8
	MOVQ k+24(FP), R9
	SETUPMAX(finite+32)
	MOVBLZX finite+32(FP), R12
	SHRQ $3, R9
	// Blocks of 32 with every value counting go eight at a time.
	TESTQ R12, R12
	JNZ  maxblocks
	CMPQ R9, $4
	JNE  maxblocks
	VMOVDQU maxPerm8<>(SB), Y10

maxgroup:
	CMPQ R8, $8
	JB   maxblocks
	BMAX32X8(0, Y0)
	BMAX32X8(128, Y1)
	BMAX32X8(256, Y2)
	BMAX32X8(384, Y3)
	BMAX32X8(512, Y4)
	BMAX32X8(640, Y5)
	BMAX32X8(768, Y6)
	BMAX32X8(896, Y7)
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
	VPERMD Y0, Y10, Y0
	VMOVDQU Y0, (DI)
	ADDQ $1024, SI
	ADDQ $32, DI
	SUBQ $8, R8
	JMP  maxgroup

maxblocks:
	TESTQ R8, R8
	JZ   maxdone

maxblock:
	VPXOR Y0, Y0, Y0
	MOVQ R9, R10
	TESTQ R12, R12
	JNZ  maxvec

maxvecall: // finite false: every lane counts, ±Inf and NaN too
	VPAND (SI), Y14, Y1
	VPMAXUD Y1, Y0, Y0
	ADDQ $32, SI
	DECQ R10
	JNZ  maxvecall
	JMP  maxreduce

maxvec:
	VMOVDQU (SI), Y1
	ABSMAX8(Y1, Y0, Y2, Y3)
	ADDQ $32, SI
	DECQ R10
	JNZ  maxvec

maxreduce:
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, (DI)
	ADDQ $4, DI
	DECQ R8
	JNZ  maxblock

maxdone:
	VZEROUPPER
	RET

// func absMaxColsAVX2(am *uint32, src *float32, n int, finite bool)
TEXT ·absMaxColsAVX2(SB), NOSPLIT, $0-25
	MOVQ am+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SETUPMAX(finite+24)
	SHRQ $3, CX
	JZ   colsmaxdone
	MOVBLZX finite+24(FP), R12
	TESTQ R12, R12
	JNZ  colsmax

colsmaxall: // finite false: every lane counts, ±Inf and NaN too
	VPAND (SI), Y14, Y1
	VPMAXUD (DI), Y1, Y0
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  colsmaxall
	JMP  colsmaxdone

colsmax:
	VMOVDQU (SI), Y1
	VMOVDQU (DI), Y0
	ABSMAX8(Y1, Y0, Y2, Y3)
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  colsmax

colsmaxdone:
	VZEROUPPER
	RET

// MXROUND8 rounds the 8 float32s in X as mxConsts.round does, into R:
// a = |x| bits, s = sign; normal path r = (a + half-1 + (a>>d)&1) &^
// (2^d - 1); below the smallest normal (a < minNorm) (a + magic) - magic
// in float32; r = min(r, maxBits); r | s | nan. Constants: X15 the shift
// d, Y14 0x7fffffff, Y13 1, Y12 half-1, Y11 the kept bits; per block or
// column MINNORM, MAGIC, MAXBITS, NAN (registers or memory operands).
// Y1, Y2, Y3, Y5 and Y6 are clobbered.
#define MXROUND8(X, R, MINNORM, MAGIC, MAXBITS, NAN) \
	VPAND Y14, X, Y1; \
	VPXOR Y1, X, Y2; \
	VPSRLD X15, Y1, Y3; \
	VPAND Y13, Y3, Y3; \
	VPADDD Y12, Y1, R; \
	VPADDD Y3, R, R; \
	VPAND Y11, R, R; \
	VADDPS MAGIC, Y1, Y5; \
	VSUBPS MAGIC, Y5, Y5; \
	VMOVDQU MINNORM, Y6; \
	VPCMPGTD Y1, Y6, Y6; \
	VPBLENDVB Y6, Y5, R, R; \
	VPMINUD MAXBITS, R, R; \
	VPOR Y2, R, R; \
	VPOR NAN, R, R

// MXFAST8 is MXROUND8 in fewer operations, for a block or column whose
// maxBits has an exponent byte below 255-d (mxFastLimit): both paths in
// one float addition. The quantum of |x| on the block's grid is that of
// its binade clamped to [minNorm's, maxBits'], so with magic = that
// binade's power of two times 2^d, (|x| + magic) - magic rounds |x| to
// nearest even on the grid below minNorm as MXROUND8 does and above it
// as MXROUND8's integer rounding does; a magnitude beyond maxBits' binade
// (±Inf and NaN included) gets maxBits + 2^d·ulp as its magic and rounds
// to at least maxBits, which the clamp then gives, as MXROUND8 does.
// Constants: Y14 0x7fffffff; EXPM 0x7f800000 and D d<<23 (registers or
// memory operands), MINNORM and MAXBITS (MAXBITS a register). Y1, Y2
// and Y3 are clobbered; NaN blocks are not handled (nan is not or-ed in).
#define MXFAST8(X, R, EXPM, D, MINNORM, MAXBITS) \
	VPAND Y14, X, Y1; \
	VPXOR Y1, X, Y2; \
	VPAND EXPM, X, Y3; \
	VPMAXUD MINNORM, Y3, Y3; \
	VPMINUD MAXBITS, Y3, Y3; \
	VPADDD D, Y3, Y3; \
	VADDPS Y3, Y1, R; \
	VSUBPS Y3, R, R; \
	VPMINUD MAXBITS, R, R; \
	VPOR Y2, R, R

DATA expMask<>+0(SB)/4, $0x7f800000
DATA expMask<>+4(SB)/4, $0x7f800000
DATA expMask<>+8(SB)/4, $0x7f800000
DATA expMask<>+12(SB)/4, $0x7f800000
DATA expMask<>+16(SB)/4, $0x7f800000
DATA expMask<>+20(SB)/4, $0x7f800000
DATA expMask<>+24(SB)/4, $0x7f800000
DATA expMask<>+28(SB)/4, $0x7f800000
GLOBL expMask<>(SB), RODATA|NOPTR, $32

// SETUPROUND loads MXROUND8's constants for the shift in dr+off(FP).
#define SETUPROUND(off) \
	MOVL dr+off(FP), CX; \
	VMOVQ CX, X15; \
	MOVL $0x7fffffff, R11; \
	VMOVQ R11, X14; \
	VPBROADCASTD X14, Y14; \
	MOVL $1, R11; \
	VMOVQ R11, X13; \
	VPBROADCASTD X13, Y13; \
	MOVL $1, R11; \
	SHLL CX, R11; \
	MOVL R11, R12; \
	SUBL $1, R12; \
	NOTL R12; \
	VMOVQ R12, X11; \
	VPBROADCASTD X11, Y11; \
	SHRL $1, R11; \
	SUBL $1, R11; \
	VMOVQ R11, X12; \
	VPBROADCASTD X12, Y12

// func mxRoundBlocksAVX2(dst, src *float32, nb, k int, cc *mxCols, dr uint32)
TEXT ·mxRoundBlocksAVX2(SB), NOSPLIT, $0-44
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), R8
	MOVQ k+24(FP), R9
	MOVQ cc+32(FP), AX
	SETUPROUND(40)
	SHRQ $3, R9
	TESTQ R8, R8
	JZ   blocksdone

	// R13: d<<23 (MXFAST8's D); BX: the bound on maxBits of MXFAST8.
	MOVL CX, R13
	SHLL $23, R13
	MOVL $255, BX
	SUBL CX, BX
	SHLL $23, BX

block:
	VPBROADCASTD C_MINNORM(AX), Y10
	VPBROADCASTD C_MAXBITS(AX), Y8
	MOVQ R9, R10
	MOVL C_NAN(AX), R12
	TESTL R12, R12
	JNZ  blockslow
	CMPL C_MAXBITS(AX), BX
	JAE  blockslow
	VMOVD R13, X9
	VPBROADCASTD X9, Y9

blockfast:
	VMOVDQU (SI), Y0
	MXFAST8(Y0, Y4, expMask<>(SB), Y9, Y10, Y8)
	VMOVDQU Y4, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ R10
	JNZ  blockfast
	JMP  blocknext

blockslow:
	VPBROADCASTD C_MAGIC(AX), Y9
	VPBROADCASTD C_NAN(AX), Y7

blockvec:
	VMOVDQU (SI), Y0
	MXROUND8(Y0, Y4, Y10, Y9, Y8, Y7)
	VMOVDQU Y4, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ R10
	JNZ  blockvec

blocknext:
	ADDQ $4, AX
	DECQ R8
	JNZ  block

blocksdone:
	VZEROUPPER
	RET


// func mxRoundColsAVX2(dst, src *float32, n int, cc *mxCols, dr uint32)
TEXT ·mxRoundColsAVX2(SB), NOSPLIT, $0-36
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ cc+24(FP), AX
	SETUPROUND(32)
	// Y10 0x7f800000, Y9 d<<23 (MXFAST8's EXPM and D), Y7 the bound on
	// maxBits of MXFAST8.
	MOVL $0x7f800000, R11
	VMOVD R11, X10
	VPBROADCASTD X10, Y10
	MOVL CX, R11
	SHLL $23, R11
	VMOVD R11, X9
	VPBROADCASTD X9, Y9
	MOVL $255, R11
	SUBL CX, R11
	SHLL $23, R11
	VMOVD R11, X7
	VPBROADCASTD X7, Y7
	SHRQ $3, R8
	JZ   colsdone

cols:
	VMOVDQU (SI), Y0
	VMOVDQU C_MAXBITS(AX), Y8
	VPMAXUD Y7, Y8, Y1 // maxBits >= the bound (unsigned: maxBits may wrap)
	VPCMPEQD Y8, Y1, Y1
	VPTEST Y1, Y1
	JNZ  colsslow
	MXFAST8(Y0, Y4, Y10, Y9, C_MINNORM(AX), Y8)
	VPOR C_NAN(AX), Y4, Y4
	JMP  colsstore

colsslow:
	MXROUND8(Y0, Y4, C_MINNORM(AX), C_MAGIC(AX), Y8, C_NAN(AX))

colsstore:
	VMOVDQU Y4, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, AX
	DECQ R8
	JNZ  cols

colsdone:
	VZEROUPPER
	RET

// POSITSCALE8 sets R = V·F for the 8 float32s in V as toElem (Y12 zero)
// or fromElem (Y12 all ones) does for block posits: a product that
// underflows to 0 from a nonzero finite V becomes the smallest float32 of
// V's sign and, for fromElem, one that overflows to ±Inf the largest.
// Y15 holds 0x7fffffff, Y14 0x7f800000, Y13 1, Y11 0x7f7fffff, Y10 zero.
// Y1, Y2, Y3, Y5 and Y6 are clobbered.
#define POSITSCALE8(V, F, R) \
	VMULPS F, V, R; \
	VPAND Y15, R, Y1; \
	VPAND Y15, V, Y2; \
	VPXOR Y2, V, Y3; \
	VPCMPEQD Y10, Y1, Y5; \
	VPCMPGTD Y11, Y1, Y6; \
	VPAND Y12, Y6, Y6; \
	VPOR Y5, Y6, Y6; \
	VPCMPEQD Y10, Y2, Y1; \
	VPANDN Y6, Y1, Y6; \
	VPCMPGTD Y14, Y2, Y1; \
	VPANDN Y6, Y1, Y6; \
	VPBLENDVB Y5, Y13, Y11, Y1; \
	VPOR Y3, Y1, Y1; \
	VPBLENDVB Y6, Y1, R, R

#define SETUPPOSIT(off) \
	MOVL $0x7fffffff, R11; \
	VMOVQ R11, X15; \
	VPBROADCASTD X15, Y15; \
	MOVL $0x7f800000, R11; \
	VMOVQ R11, X14; \
	VPBROADCASTD X14, Y14; \
	MOVL $1, R11; \
	VMOVQ R11, X13; \
	VPBROADCASTD X13, Y13; \
	MOVL $0x7f7fffff, R11; \
	VMOVQ R11, X11; \
	VPBROADCASTD X11, Y11; \
	VPXOR Y10, Y10, Y10; \
	VPXOR Y12, Y12, Y12; \
	MOVBLZX off(FP), R11; \
	TESTQ R11, R11; \
	JZ 2(PC); \
	VPCMPEQD Y12, Y12, Y12

// func positScaleBlocksAVX2(dst, src *float32, nb, k int, f *float32, out bool)
TEXT ·positScaleBlocksAVX2(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), R8
	MOVQ k+24(FP), R9
	MOVQ f+32(FP), AX
	SETUPPOSIT(out+40)
	SHRQ $3, R9
	TESTQ R8, R8
	JZ   psdone

psblock:
	VBROADCASTSS (AX), Y9
	MOVQ R9, R10

psvec:
	VMOVUPS (SI), Y0
	POSITSCALE8(Y0, Y9, Y4)
	VMOVUPS Y4, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ R10
	JNZ  psvec
	ADDQ $4, AX
	DECQ R8
	JNZ  psblock

psdone:
	VZEROUPPER
	RET

// func positScaleColsAVX2(dst, src *float32, n int, f *float32, out bool)
TEXT ·positScaleColsAVX2(SB), NOSPLIT, $0-33
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ f+24(FP), AX
	SETUPPOSIT(out+32)
	SHRQ $3, R8
	JZ   pcdone

pcvec:
	VMOVUPS (SI), Y0
	VMOVUPS (AX), Y9
	POSITSCALE8(Y0, Y9, Y4)
	VMOVUPS Y4, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, AX
	DECQ R8
	JNZ  pcvec

pcdone:
	VZEROUPPER
	RET

// The same kernels on 16 lanes (AVX-512), with mask registers for the
// blends.

// ABSMAX16 sets ACC to the lane-wise unsigned maximum of ACC and |X| (float32
// bits), leaving out lanes of X at or above 0x7f800000 (±Inf, NaN) unless
// K7 is all ones. Z30 holds 0x7fffffff and Z29 0x7f800000; T and K1 are
// clobbered.
#define ABSMAX16(X, ACC, T) \
	VPANDD Z30, X, T; \
	VPCMPGTD T, Z29, K1; \
	KORW K7, K1, K1; \
	VPMAXUD T, ACC, K1, ACC

// SETUPMAX16 loads ABSMAX16's constants; the bool at finite+off(FP)
// decides K7 (all ones when finite is false).
#define SETUPMAX16(off) \
	MOVL $0x7fffffff, R11; \
	VPBROADCASTD R11, Z30; \
	MOVL $0x7f800000, R11; \
	VPBROADCASTD R11, Z29; \
	MOVL $0xffff, R11; \
	MOVBLZX off(FP), R12; \
	TESTQ R12, R12; \
	JZ 2(PC); \
	XORL R11, R11; \
	KMOVW R11, K7

// BMAX32X16 sets A to the lane-wise maximum of |x| over the 32 values at
// off(SI), every lane counting (Z30 0x7fffffff); Z16 is clobbered.
#define BMAX32X16(off, A) \
	VPANDD off(SI), Z30, A; \
	VPANDD off+64(SI), Z30, Z16; \
	VPMAXUD Z16, A, A

// MAXPAIR16 sets X to the lane-wise maximum of two shuffles (SHUF with
// immediates LO and HI) of X and Y: one level of absMaxBlocksAVX512's
// reduction of sixteen accumulators at once (128-bit quarters, then
// pairs of quarters, then pairs of lanes, then lanes), which leaves block
// j's maximum in lane 4(j%4)+j/4; maxPerm16 puts it back in lane j.
// Z16 and Z17 are clobbered.
#define MAXPAIR16(SHUF, LO, HI, X, Y) \
	SHUF LO, Y, X, Z16; \
	SHUF HI, Y, X, Z17; \
	VPMAXUD Z17, Z16, X

DATA maxPerm16<>+0(SB)/4, $0
DATA maxPerm16<>+4(SB)/4, $4
DATA maxPerm16<>+8(SB)/4, $8
DATA maxPerm16<>+12(SB)/4, $12
DATA maxPerm16<>+16(SB)/4, $1
DATA maxPerm16<>+20(SB)/4, $5
DATA maxPerm16<>+24(SB)/4, $9
DATA maxPerm16<>+28(SB)/4, $13
DATA maxPerm16<>+32(SB)/4, $2
DATA maxPerm16<>+36(SB)/4, $6
DATA maxPerm16<>+40(SB)/4, $10
DATA maxPerm16<>+44(SB)/4, $14
DATA maxPerm16<>+48(SB)/4, $3
DATA maxPerm16<>+52(SB)/4, $7
DATA maxPerm16<>+56(SB)/4, $11
DATA maxPerm16<>+60(SB)/4, $15
GLOBL maxPerm16<>(SB), RODATA|NOPTR, $64

// func absMaxBlocksAVX512(amax *uint32, src *float32, nb, k int, finite bool)
TEXT ·absMaxBlocksAVX512(SB), NOSPLIT, $0-33
	MOVQ amax+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), R8
	MOVQ k+24(FP), R9
	SETUPMAX16(finite+32)
	SHRQ $4, R9
	// Blocks of 32 with every value counting go sixteen at a time.
	TESTQ R12, R12
	JNZ  max16blocks
	CMPQ R9, $2
	JNE  max16blocks
	VMOVDQU32 maxPerm16<>(SB), Z31

max16group:
	CMPQ R8, $16
	JB   max16blocks
	BMAX32X16(0, Z0)
	BMAX32X16(128, Z1)
	BMAX32X16(256, Z2)
	BMAX32X16(384, Z3)
	BMAX32X16(512, Z4)
	BMAX32X16(640, Z5)
	BMAX32X16(768, Z6)
	BMAX32X16(896, Z7)
	BMAX32X16(1024, Z8)
	BMAX32X16(1152, Z9)
	BMAX32X16(1280, Z10)
	BMAX32X16(1408, Z11)
	BMAX32X16(1536, Z12)
	BMAX32X16(1664, Z13)
	BMAX32X16(1792, Z14)
	BMAX32X16(1920, Z15)
	MAXPAIR16(VSHUFI32X4, $0x44, $0xee, Z0, Z1)
	MAXPAIR16(VSHUFI32X4, $0x44, $0xee, Z2, Z3)
	MAXPAIR16(VSHUFI32X4, $0x44, $0xee, Z4, Z5)
	MAXPAIR16(VSHUFI32X4, $0x44, $0xee, Z6, Z7)
	MAXPAIR16(VSHUFI32X4, $0x44, $0xee, Z8, Z9)
	MAXPAIR16(VSHUFI32X4, $0x44, $0xee, Z10, Z11)
	MAXPAIR16(VSHUFI32X4, $0x44, $0xee, Z12, Z13)
	MAXPAIR16(VSHUFI32X4, $0x44, $0xee, Z14, Z15)
	MAXPAIR16(VSHUFI32X4, $0x88, $0xdd, Z0, Z2)
	MAXPAIR16(VSHUFI32X4, $0x88, $0xdd, Z4, Z6)
	MAXPAIR16(VSHUFI32X4, $0x88, $0xdd, Z8, Z10)
	MAXPAIR16(VSHUFI32X4, $0x88, $0xdd, Z12, Z14)
	MAXPAIR16(VSHUFPS, $0x44, $0xee, Z0, Z4)
	MAXPAIR16(VSHUFPS, $0x44, $0xee, Z8, Z12)
	MAXPAIR16(VSHUFPS, $0x88, $0xdd, Z0, Z8)
	VPERMD Z0, Z31, Z0
	VMOVDQU32 Z0, (DI)
	ADDQ $2048, SI
	ADDQ $64, DI
	SUBQ $16, R8
	JMP  max16group

max16blocks:
	TESTQ R8, R8
	JZ   max16done

max16block:
	VPXORD Z0, Z0, Z0
	MOVQ R9, R10
	TESTQ R12, R12
	JNZ  max16vec

max16vecall: // finite false: every lane counts, ±Inf and NaN too
	VPANDD (SI), Z30, Z1
	VPMAXUD Z1, Z0, Z0
	ADDQ $64, SI
	DECQ R10
	JNZ  max16vecall
	JMP  max16reduce

max16vec:
	VMOVDQU32 (SI), Z1
	ABSMAX16(Z1, Z0, Z2)
	ADDQ $64, SI
	DECQ R10
	JNZ  max16vec

max16reduce:
	VEXTRACTI64X4 $1, Z0, Y1
	VPMAXUD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, (DI)
	ADDQ $4, DI
	DECQ R8
	JNZ  max16block

max16done:
	VZEROUPPER
	RET

// func absMaxColsAVX512(am *uint32, src *float32, n int, finite bool)
TEXT ·absMaxColsAVX512(SB), NOSPLIT, $0-25
	MOVQ am+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SETUPMAX16(finite+24)
	SHRQ $4, CX
	JZ   colsmax16done
	TESTQ R12, R12
	JNZ  colsmax16

colsmax16all: // finite false: every lane counts, ±Inf and NaN too
	VPANDD (SI), Z30, Z1
	VPMAXUD (DI), Z1, Z0
	VMOVDQU32 Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  colsmax16all
	JMP  colsmax16done

colsmax16:
	VMOVDQU32 (SI), Z1
	VMOVDQU32 (DI), Z0
	ABSMAX16(Z1, Z0, Z2)
	VMOVDQU32 Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  colsmax16

colsmax16done:
	VZEROUPPER
	RET

// MXROUND16 is MXROUND8 on the 16 lanes of the Z register X. Constants:
// X15 the shift d, Z30 0x7fffffff, Z29 1, Z28 half-1, Z27 the kept bits;
// MINNORM, MAGIC, MAXBITS, NAN Z registers (or memory operands but
// MINNORM). Z1, Z2, Z3, Z5 and K1 are clobbered.
#define MXROUND16(X, R, MINNORM, MAGIC, MAXBITS, NAN) \
	VPANDD Z30, X, Z1; \
	VPXORD Z1, X, Z2; \
	VPSRLD X15, Z1, Z3; \
	VPANDD Z29, Z3, Z3; \
	VPADDD Z28, Z1, R; \
	VPADDD Z3, R, R; \
	VPANDD Z27, R, R; \
	VADDPS MAGIC, Z1, Z5; \
	VSUBPS MAGIC, Z5, Z5; \
	VPCMPGTD Z1, MINNORM, K1; \
	VMOVDQA32 Z5, K1, R; \
	VPMINUD MAXBITS, R, R; \
	VPORD NAN, Z2, Z2; \
	VPORD Z2, R, R

// MXFAST16 is MXFAST8 on 16 lanes: MXROUND16 in fewer operations for a
// block or column whose maxBits has an exponent byte below 255-d. Z30
// holds 0x7fffffff, Z26 0x7f800000 and Z25 d<<23; MAXBITS is a register.
// Z1 and Z2 are clobbered; nan is not or-ed in. The last step or-s the
// sign in: r ^ x ^ |x| (imm 0x96, the three-way exclusive or).
#define MXFAST16(X, R, MINNORM, MAXBITS) \
	VPANDD Z30, X, Z1; \
	VPANDD Z26, X, Z2; \
	VPMAXUD MINNORM, Z2, Z2; \
	VPMINUD MAXBITS, Z2, Z2; \
	VPADDD Z25, Z2, Z2; \
	VADDPS Z2, Z1, R; \
	VSUBPS Z2, R, R; \
	VPMINUD MAXBITS, R, R; \
	VPTERNLOGD $0x96, Z1, X, R

// SETUPFAST16 loads MXFAST16's Z26 and Z25, and Z24 and BX, the bound on
// maxBits of MXFAST16 ((255-d)<<23), for the shift d in CX.
#define SETUPFAST16 \
	MOVL $0x7f800000, R11; \
	VPBROADCASTD R11, Z26; \
	MOVL CX, R11; \
	SHLL $23, R11; \
	VPBROADCASTD R11, Z25; \
	MOVL $255, BX; \
	SUBL CX, BX; \
	SHLL $23, BX; \
	VPBROADCASTD BX, Z24

// SETUPROUND16 loads MXROUND16's constants for the shift in dr+off(FP).
#define SETUPROUND16(off) \
	MOVL dr+off(FP), CX; \
	VMOVQ CX, X15; \
	MOVL $0x7fffffff, R11; \
	VPBROADCASTD R11, Z30; \
	MOVL $1, R11; \
	VPBROADCASTD R11, Z29; \
	MOVL $1, R11; \
	SHLL CX, R11; \
	MOVL R11, R12; \
	SUBL $1, R12; \
	NOTL R12; \
	VPBROADCASTD R12, Z27; \
	SHRL $1, R11; \
	SUBL $1, R11; \
	VPBROADCASTD R11, Z28

// func mxRoundBlocksAVX512(dst, src *float32, nb, k int, cc *mxCols, dr uint32)
TEXT ·mxRoundBlocksAVX512(SB), NOSPLIT, $0-44
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nb+16(FP), R8
	MOVQ k+24(FP), R9
	MOVQ cc+32(FP), AX
	SETUPROUND16(40)
	SETUPFAST16
	SHRQ $4, R9
	TESTQ R8, R8
	JZ   blocks16done

block16:
	VPBROADCASTD C_MINNORM(AX), Z10
	VPBROADCASTD C_MAXBITS(AX), Z8
	MOVQ R9, R10
	MOVL C_NAN(AX), R12
	TESTL R12, R12
	JNZ  block16slow
	CMPL C_MAXBITS(AX), BX
	JAE  block16slow

block16fast:
	VMOVDQU32 (SI), Z0
	MXFAST16(Z0, Z4, Z10, Z8)
	VMOVDQU32 Z4, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ R10
	JNZ  block16fast
	JMP  block16next

block16slow:
	VPBROADCASTD C_MAGIC(AX), Z9
	VPBROADCASTD C_NAN(AX), Z7

block16vec:
	VMOVDQU32 (SI), Z0
	MXROUND16(Z0, Z4, Z10, Z9, Z8, Z7)
	VMOVDQU32 Z4, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ R10
	JNZ  block16vec

block16next:
	ADDQ $4, AX
	DECQ R8
	JNZ  block16

blocks16done:
	VZEROUPPER
	RET

// func mxRoundColsAVX512(dst, src *float32, n int, cc *mxCols, dr uint32)
TEXT ·mxRoundColsAVX512(SB), NOSPLIT, $0-36
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ cc+24(FP), AX
	SETUPROUND16(32)
	SETUPFAST16
	SHRQ $4, R8
	JZ   cols16done

cols16:
	VMOVDQU32 (SI), Z0
	VMOVDQU32 C_MAXBITS(AX), Z8
	VPCMPUD   $5, Z24, Z8, K2 // maxBits >= the bound
	KORTESTW  K2, K2
	JNZ       cols16slow
	MXFAST16(Z0, Z4, C_MINNORM(AX), Z8)
	VPORD     C_NAN(AX), Z4, Z4
	JMP       cols16store

cols16slow:
	VMOVDQU32 C_MINNORM(AX), Z10
	MXROUND16(Z0, Z4, Z10, C_MAGIC(AX), Z8, C_NAN(AX))

cols16store:
	VMOVDQU32 Z4, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, AX
	DECQ R8
	JNZ  cols16

cols16done:
	VZEROUPPER
	RET

// Offsets of the fields of mxParams (block_kernel.go).
#define P_ELO 0
#define P_EHI 4
#define P_CMN 8
#define P_CMG 12
#define P_CMB 16

// func mxConstsAVX2(am *uint32, n int, cc *mxCols, p *mxParams) int
//
// The maxima are below 2^31, so signed compares serve.
TEXT ·mxConstsAVX2(SB), NOSPLIT, $0-40
	MOVQ am+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ cc+16(FP), DI
	MOVQ p+24(FP), R8
	XORQ AX, AX
	MOVL P_ELO(R8), R11
	DECL R11
	VMOVD R11, X15
	VPBROADCASTD X15, Y15 // eLo-1
	MOVL P_EHI(R8), R11
	INCL R11
	VMOVD R11, X14
	VPBROADCASTD X14, Y14 // eHi+1
	VPBROADCASTD P_CMN(R8), Y13
	VPBROADCASTD P_CMG(R8), Y12
	VPBROADCASTD P_CMB(R8), Y11
	MOVL $0x7f7fffff, R11
	VMOVD R11, X10
	VPBROADCASTD X10, Y10
	MOVL $0x7fc00000, R11
	VMOVD R11, X9
	VPBROADCASTD X9, Y9

consts8:
	CMPQ AX, CX
	JAE  consts8done
	VMOVDQU  (SI)(AX*4), Y0
	VPCMPGTD Y10, Y0, Y1 // NaN block
	VPSRLD   $23, Y0, Y2 // E
	VPCMPGTD Y15, Y2, Y3
	VPCMPGTD Y2, Y14, Y4
	VPAND    Y4, Y3, Y3  // E in [eLo, eHi]
	VPOR     Y1, Y3, Y4
	VMOVMSKPS Y4, R11
	CMPL     R11, $0xff
	JNE      consts8done
	VPADDD   Y13, Y2, Y4
	VPSLLD   $23, Y4, Y4
	VPAND    Y3, Y4, Y4
	VMOVDQU  Y4, C_MINNORM(DI)(AX*4)
	VPADDD   Y12, Y2, Y4
	VPSLLD   $23, Y4, Y4
	VPAND    Y3, Y4, Y4
	VMOVDQU  Y4, C_MAGIC(DI)(AX*4)
	VPSLLD   $23, Y2, Y4
	VPADDD   Y11, Y4, Y4
	VPAND    Y3, Y4, Y4
	VMOVDQU  Y4, C_MAXBITS(DI)(AX*4)
	VPAND    Y9, Y1, Y4
	VMOVDQU  Y4, C_NAN(DI)(AX*4)
	ADDQ     $8, AX
	JMP      consts8

consts8done:
	VZEROUPPER
	MOVQ AX, ret+32(FP)
	RET

// func mxConstsAVX512(am *uint32, n int, cc *mxCols, p *mxParams) int
TEXT ·mxConstsAVX512(SB), NOSPLIT, $0-40
	MOVQ am+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ cc+16(FP), DI
	MOVQ p+24(FP), R8
	XORQ AX, AX
	VPBROADCASTD P_ELO(R8), Z15
	VPBROADCASTD P_EHI(R8), Z14
	VPBROADCASTD P_CMN(R8), Z13
	VPBROADCASTD P_CMG(R8), Z12
	VPBROADCASTD P_CMB(R8), Z11
	MOVL $0x7f800000, R11
	VPBROADCASTD R11, Z10
	MOVL $0x7fc00000, R11
	VPBROADCASTD R11, Z9

consts16:
	CMPQ AX, CX
	JAE  consts16done
	VMOVDQU32 (SI)(AX*4), Z0
	VPCMPUD   $5, Z10, Z0, K1     // NaN block
	VPSRLD    $23, Z0, Z2         // E
	VPCMPUD   $5, Z15, Z2, K2
	VPCMPUD   $2, Z14, Z2, K2, K2 // E in [eLo, eHi]
	KORW      K1, K2, K3
	KORTESTW  K3, K3
	JCC       consts16done
	VPADDD.Z  Z13, Z2, K2, Z4
	VPSLLD    $23, Z4, Z4
	VMOVDQU32 Z4, C_MINNORM(DI)(AX*4)
	VPADDD.Z  Z12, Z2, K2, Z4
	VPSLLD    $23, Z4, Z4
	VMOVDQU32 Z4, C_MAGIC(DI)(AX*4)
	VPSLLD    $23, Z2, Z4
	VPADDD.Z  Z11, Z4, K2, Z4
	VMOVDQU32 Z4, C_MAXBITS(DI)(AX*4)
	VMOVDQA32.Z Z9, K1, Z4
	VMOVDQU32 Z4, C_NAN(DI)(AX*4)
	ADDQ      $16, AX
	JMP       consts16

consts16done:
	VZEROUPPER
	MOVQ AX, ret+32(FP)
	RET
