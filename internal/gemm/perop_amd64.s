//go:build amd64 && !purego && !openblas

#include "textflag.h"

// The row kernels of perOpRowGo (perop_kernel.go) on 64 lanes: one chain
// of dependent sum lookups per lane, the chains in vector registers. A
// gathered lookup of table[i] (i < 2^16) reads the aligned 32-bit word
// holding byte i, at 4·(i>>2), and shifts byte i&3 down: a word at an
// unaligned offset could straddle two cache lines, which makes a gather
// several times slower.
//
// Registers: DI out, SI blk, R8 ar, R9 nz, CX terms left, R10 prod,
// R11 sum, AX the term's offset in blk (64 per term). A gather merges
// into its destination: one that is not a chain's sum is zeroed first,
// or it would wait for the previous gather into the same register.

#define ARGS \
	MOVQ out+0(FP), DI; \
	MOVQ blk+8(FP), SI; \
	MOVQ ar+16(FP), R8; \
	MOVQ nz+24(FP), R9; \
	MOVQ nnz+32(FP), CX; \
	MOVQ prod+40(FP), R10; \
	MOVQ sum+48(FP), R11

// LOOK512 sets D = T[I] for the 16 byte indices I into table T, with
// 0xff in Z31 and 24 in Z29; it clobbers I, SH and K.
#define LOOK512(T, I, SH, K, D) \
	VPSLLD $3, I, SH; \
	VPANDD Z29, SH, SH; \
	VPSRLD $2, I, I; \
	KXNORW K0, K0, K; \
	VPXORD D, D, D; \
	VPGATHERDD (T)(I*4), K, D; \
	VPSRLVD SH, D, D; \
	VPANDD Z31, D, D

// PROD512 sets P to the 16 product indices prod[a<<8 | col] of the
// columns at off(SI)(AX), with a<<8 broadcast in Z30; it clobbers I, SH
// and K.
#define PROD512(off, I, SH, K, P) \
	VPMOVZXBD off(SI)(AX*1), I; \
	VPORD Z30, I, I; \
	LOOK512(R10, I, SH, K, P)

// SUM512 sets S = sum[S<<8 | P]; it clobbers I, SH and K.
#define SUM512(S, P, I, SH, K) \
	VPSLLD $8, S, I; \
	VPORD P, I, I; \
	LOOK512(R11, I, SH, K, S)

// func perOpRowAVX512(out *uint32, blk *uint8, ar *uint8, nz *int32, nnz int, prod, sum *uint8)
// Products and sums gathered (AVX-512 F).
TEXT ·perOpRowAVX512(SB), NOSPLIT, $0-56
	ARGS
	MOVL $0xff, AX
	VPBROADCASTD AX, Z31
	MOVL $24, AX
	VPBROADCASTD AX, Z29
	MOVBLZX (R8), BX
	SHLL $8, BX
	VPBROADCASTD BX, Z30
	XORQ AX, AX
	PROD512(0, Z4, Z24, K1, Z0)
	PROD512(16, Z5, Z25, K2, Z1)
	PROD512(32, Z6, Z26, K3, Z2)
	PROD512(48, Z7, Z27, K4, Z3)
	TESTQ CX, CX
	JZ   done512

loop512:
	MOVLQSX (R9), AX
	MOVBLZX (R8)(AX*1), BX
	SHLL $8, BX
	VPBROADCASTD BX, Z30
	SHLQ $6, AX
	PROD512(0, Z4, Z24, K1, Z8)
	PROD512(16, Z5, Z25, K2, Z9)
	PROD512(32, Z6, Z26, K3, Z10)
	PROD512(48, Z7, Z27, K4, Z11)
	SUM512(Z0, Z8, Z12, Z24, K5)
	SUM512(Z1, Z9, Z13, Z25, K6)
	SUM512(Z2, Z10, Z14, Z26, K7)
	SUM512(Z3, Z11, Z15, Z27, K1)
	ADDQ $4, R9
	DECQ CX
	JNZ  loop512

done512:
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z1, 64(DI)
	VMOVDQU32 Z2, 128(DI)
	VMOVDQU32 Z3, 192(DI)
	VZEROUPPER
	RET

// PRODVBMI sets Z8–Z11 to the 64 product indices prod[a<<8 | col] of
// the columns at (SI)(AX), as 32-bit words, with BX pointing at row a of
// prod: two 128-byte table lookups (VPERMI2B) chosen by the index's top
// bit. It clobbers Z4–Z7, Z16, Z17 and K1.
#define PRODVBMI \
	VMOVDQU8 (SI)(AX*1), Z4; \
	VMOVDQU64 (BX), Z16; \
	VMOVDQU64 128(BX), Z17; \
	VMOVDQA64 Z4, Z5; \
	VPERMI2B 64(BX), Z16, Z5; \
	VMOVDQA64 Z4, Z6; \
	VPERMI2B 192(BX), Z17, Z6; \
	VPMOVB2M Z4, K1; \
	VPBLENDMB Z6, Z5, K1, Z7; \
	VPMOVZXBD X7, Z8; \
	VEXTRACTI32X4 $1, Z7, X5; \
	VPMOVZXBD X5, Z9; \
	VEXTRACTI32X4 $2, Z7, X6; \
	VPMOVZXBD X6, Z10; \
	VEXTRACTI32X4 $3, Z7, X4; \
	VPMOVZXBD X4, Z11

// func perOpRowVBMI(out *uint32, blk *uint8, ar *uint8, nz *int32, nnz int, prod, sum *uint8)
// Products by byte permutes (AVX-512 VBMI), sums gathered.
TEXT ·perOpRowVBMI(SB), NOSPLIT, $0-56
	ARGS
	MOVL $0xff, AX
	VPBROADCASTD AX, Z31
	MOVL $24, AX
	VPBROADCASTD AX, Z29
	MOVBLZX (R8), BX
	SHLQ $8, BX
	ADDQ R10, BX
	XORQ AX, AX
	PRODVBMI
	VMOVDQA64 Z8, Z0
	VMOVDQA64 Z9, Z1
	VMOVDQA64 Z10, Z2
	VMOVDQA64 Z11, Z3
	TESTQ CX, CX
	JZ   donevbmi

loopvbmi:
	MOVLQSX (R9), AX
	MOVBLZX (R8)(AX*1), BX
	SHLQ $8, BX
	ADDQ R10, BX
	SHLQ $6, AX
	PRODVBMI
	SUM512(Z0, Z8, Z12, Z24, K2)
	SUM512(Z1, Z9, Z13, Z25, K3)
	SUM512(Z2, Z10, Z14, Z26, K4)
	SUM512(Z3, Z11, Z15, Z27, K5)
	ADDQ $4, R9
	DECQ CX
	JNZ  loopvbmi

donevbmi:
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z1, 64(DI)
	VMOVDQU32 Z2, 128(DI)
	VMOVDQU32 Z3, 192(DI)
	VZEROUPPER
	RET

// LOOK2 sets D = T[I] for the 8 byte indices I into table T, as LOOK512
// does, with 0xff in Y15 and 24 in Y11; it clobbers I, Y12 and Y13.
#define LOOK2(T, I, D) \
	VPSLLD $3, I, Y12; \
	VPAND Y11, Y12, Y12; \
	VPSRLD $2, I, I; \
	VPCMPEQD Y13, Y13, Y13; \
	VPXOR D, D, D; \
	VPGATHERDD Y13, (T)(I*4), D; \
	VPSRLVD Y12, D, D; \
	VPAND Y15, D, D

// PROD2 sets P to the 8 product indices of the columns at off(SI)(AX),
// with a<<8 broadcast in Y14; it clobbers Y9, Y12 and Y13.
#define PROD2(off, P) \
	VPMOVZXBD off(SI)(AX*1), Y9; \
	VPOR Y14, Y9, Y9; \
	LOOK2(R10, Y9, P)

// STEP2 sets S = sum[S<<8 | product of the columns at off(SI)(AX)]; it
// clobbers Y8–Y10, Y12 and Y13.
#define STEP2(off, S) \
	PROD2(off, Y8); \
	VPSLLD $8, S, Y10; \
	VPOR Y8, Y10, Y10; \
	LOOK2(R11, Y10, S)

// func perOpRowAVX2(out *uint32, blk *uint8, ar *uint8, nz *int32, nnz int, prod, sum *uint8)
// Products and sums gathered, eight chains of 8 lanes (AVX2).
TEXT ·perOpRowAVX2(SB), NOSPLIT, $0-56
	ARGS
	MOVL $0xff, AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	MOVL $24, AX
	VMOVD AX, X11
	VPBROADCASTD X11, Y11
	MOVBLZX (R8), BX
	SHLL $8, BX
	VMOVD BX, X14
	VPBROADCASTD X14, Y14
	XORQ AX, AX
	PROD2(0, Y0)
	PROD2(8, Y1)
	PROD2(16, Y2)
	PROD2(24, Y3)
	PROD2(32, Y4)
	PROD2(40, Y5)
	PROD2(48, Y6)
	PROD2(56, Y7)
	TESTQ CX, CX
	JZ   done2

loop2:
	MOVLQSX (R9), AX
	MOVBLZX (R8)(AX*1), BX
	SHLL $8, BX
	VMOVD BX, X14
	VPBROADCASTD X14, Y14
	SHLQ $6, AX
	STEP2(0, Y0)
	STEP2(8, Y1)
	STEP2(16, Y2)
	STEP2(24, Y3)
	STEP2(32, Y4)
	STEP2(40, Y5)
	STEP2(48, Y6)
	STEP2(56, Y7)
	ADDQ $4, R9
	DECQ CX
	JNZ  loop2

done2:
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	VZEROUPPER
	RET

// PROD2VBMI is PRODVBMI for the row at BX, with the columns' indices
// already in Z4.
#define PROD2VBMI \
	VMOVDQU64 (BX), Z16; \
	VMOVDQU64 128(BX), Z17; \
	VMOVDQA64 Z4, Z5; \
	VPERMI2B 64(BX), Z16, Z5; \
	VMOVDQA64 Z4, Z6; \
	VPERMI2B 192(BX), Z17, Z6; \
	VPBLENDMB Z6, Z5, K1, Z7; \
	VPMOVZXBD X7, Z8; \
	VEXTRACTI32X4 $1, Z7, X5; \
	VPMOVZXBD X5, Z9; \
	VEXTRACTI32X4 $2, Z7, X6; \
	VPMOVZXBD X6, Z10; \
	VEXTRACTI32X4 $3, Z7, X7; \
	VPMOVZXBD X7, Z11

// func perOpRow2VBMI(out *uint32, blk *uint8, ar0, ar1 *uint8, nz *int32, nnz int, prod, sum *uint8)
// perOpRowVBMI on two rows (ar0 in R8, ar1 in DX), eight chains: Z0–Z3
// and Z18–Z21.
TEXT ·perOpRow2VBMI(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ blk+8(FP), SI
	MOVQ ar0+16(FP), R8
	MOVQ ar1+24(FP), DX
	MOVQ nz+32(FP), R9
	MOVQ nnz+40(FP), CX
	MOVQ prod+48(FP), R10
	MOVQ sum+56(FP), R11
	MOVL $0xff, AX
	VPBROADCASTD AX, Z31
	MOVL $24, AX
	VPBROADCASTD AX, Z29
	XORQ AX, AX
	VMOVDQU8 (SI), Z4
	VPMOVB2M Z4, K1
	MOVBLZX (R8), BX
	SHLQ $8, BX
	ADDQ R10, BX
	PROD2VBMI
	VMOVDQA64 Z8, Z0
	VMOVDQA64 Z9, Z1
	VMOVDQA64 Z10, Z2
	VMOVDQA64 Z11, Z3
	MOVBLZX (DX), BX
	SHLQ $8, BX
	ADDQ R10, BX
	PROD2VBMI
	VMOVDQA64 Z8, Z18
	VMOVDQA64 Z9, Z19
	VMOVDQA64 Z10, Z20
	VMOVDQA64 Z11, Z21
	TESTQ CX, CX
	JZ   done2vbmi

loop2vbmi:
	MOVLQSX (R9), AX
	MOVBLZX (R8)(AX*1), BX
	SHLQ $8, BX
	ADDQ R10, BX
	MOVBLZX (DX)(AX*1), R12
	SHLQ $8, R12
	ADDQ R10, R12
	SHLQ $6, AX
	VMOVDQU8 (SI)(AX*1), Z4
	VPMOVB2M Z4, K1
	PROD2VBMI
	SUM512(Z0, Z8, Z12, Z24, K2)
	SUM512(Z1, Z9, Z13, Z25, K3)
	SUM512(Z2, Z10, Z14, Z26, K4)
	SUM512(Z3, Z11, Z15, Z27, K5)
	MOVQ R12, BX
	PROD2VBMI
	SUM512(Z18, Z8, Z22, Z24, K6)
	SUM512(Z19, Z9, Z23, Z25, K7)
	SUM512(Z20, Z10, Z24, Z26, K2)
	SUM512(Z21, Z11, Z25, Z27, K3)
	ADDQ $4, R9
	DECQ CX
	JNZ  loop2vbmi

done2vbmi:
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z1, 64(DI)
	VMOVDQU32 Z2, 128(DI)
	VMOVDQU32 Z3, 192(DI)
	VMOVDQU32 Z18, 256(DI)
	VMOVDQU32 Z19, 320(DI)
	VMOVDQU32 Z20, 384(DI)
	VMOVDQU32 Z21, 448(DI)
	VZEROUPPER
	RET
