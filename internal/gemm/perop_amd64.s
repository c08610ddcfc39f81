//go:build amd64 && !purego && !openblas

#include "textflag.h"

// The row kernels of perOpRowGo (perop_kernel.go) on 64 lanes: one chain
// of dependent sum lookups per lane, the lanes' chains in vector
// registers. A lookup of table[i] (i < 2^16, tables padded by 3 bytes) is
// a gather of the 32-bit words at byte offsets i, masked to their low
// byte.
//
// Registers: DI out, SI/R12/R13/R14 the four blocks of column indices,
// R8 ar, R9 nz, CX terms left, R10 prod, R11 sum, AX the term's offset.

// PROD512 sets P to the 16 product indices prod[a<<8 | col] of the block
// at B, with a<<8 broadcast in Z30 and 0xff in Z31; it clobbers I, K.
#define PROD512(B, I, K, P) \
	VPMOVZXBD (B)(AX*1), I; \
	VPORD Z30, I, I; \
	KXNORW K0, K0, K; \
	VPGATHERDD (R10)(I*1), K, P; \
	VPANDD Z31, P, P

// SUM512 sets S = sum[S<<8 | P]; it clobbers I, K.
#define SUM512(S, P, I, K) \
	VPSLLD $8, S, I; \
	VPORD P, I, I; \
	KXNORW K0, K0, K; \
	VPGATHERDD (R11)(I*1), K, S; \
	VPANDD Z31, S, S

// func perOpRowAVX512(out *uint32, blk *uint8, stride int, ar *uint8, nz *int32, nnz int, prod, sum *uint8)
TEXT ·perOpRowAVX512(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ blk+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ ar+24(FP), R8
	MOVQ nz+32(FP), R9
	MOVQ nnz+40(FP), CX
	MOVQ prod+48(FP), R10
	MOVQ sum+56(FP), R11
	LEAQ (SI)(DX*1), R12
	LEAQ (R12)(DX*1), R13
	LEAQ (R13)(DX*1), R14
	MOVL $0xff, AX
	VPBROADCASTD AX, Z31
	MOVBLZX (R8), BX
	SHLL $8, BX
	VPBROADCASTD BX, Z30
	XORQ AX, AX
	PROD512(SI, Z4, K1, Z0)
	PROD512(R12, Z5, K2, Z1)
	PROD512(R13, Z6, K3, Z2)
	PROD512(R14, Z7, K4, Z3)
	TESTQ CX, CX
	JZ   done512

loop512:
	MOVLQSX (R9), AX
	MOVBLZX (R8)(AX*1), BX
	SHLL $8, BX
	VPBROADCASTD BX, Z30
	SHLQ $4, AX
	PROD512(SI, Z4, K1, Z8)
	PROD512(R12, Z5, K2, Z9)
	PROD512(R13, Z6, K3, Z10)
	PROD512(R14, Z7, K4, Z11)
	SUM512(Z0, Z8, Z12, K5)
	SUM512(Z1, Z9, Z13, K6)
	SUM512(Z2, Z10, Z14, K7)
	SUM512(Z3, Z11, Z15, K1)
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

// PROD2 sets P to the 8 product indices of the block at B+off, with
// a<<8 broadcast in Y14 and 0xff in Y15; it clobbers Y12, Y13.
#define PROD2(B, off, P) \
	VPMOVZXBD off(B)(AX*1), Y12; \
	VPOR Y14, Y12, Y12; \
	VPCMPEQD Y13, Y13, Y13; \
	VPGATHERDD Y13, (R10)(Y12*1), P; \
	VPAND Y15, P, P

// STEP2 sets S = sum[S<<8 | prod of the block at B+off]; it clobbers
// Y8–Y13.
#define STEP2(B, off, S) \
	PROD2(B, off, Y8); \
	VPSLLD $8, S, Y9; \
	VPOR Y8, Y9, Y9; \
	VPCMPEQD Y10, Y10, Y10; \
	VPGATHERDD Y10, (R11)(Y9*1), S; \
	VPAND Y15, S, S

// func perOpRowAVX2(out *uint32, blk *uint8, stride int, ar *uint8, nz *int32, nnz int, prod, sum *uint8)
TEXT ·perOpRowAVX2(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ blk+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ ar+24(FP), R8
	MOVQ nz+32(FP), R9
	MOVQ nnz+40(FP), CX
	MOVQ prod+48(FP), R10
	MOVQ sum+56(FP), R11
	LEAQ (SI)(DX*1), R12
	LEAQ (R12)(DX*1), R13
	LEAQ (R13)(DX*1), R14
	MOVL $0xff, AX
	MOVD AX, X15
	VPBROADCASTD X15, Y15
	MOVBLZX (R8), BX
	SHLL $8, BX
	MOVD BX, X14
	VPBROADCASTD X14, Y14
	XORQ AX, AX
	PROD2(SI, 0, Y0)
	PROD2(SI, 8, Y1)
	PROD2(R12, 0, Y2)
	PROD2(R12, 8, Y3)
	PROD2(R13, 0, Y4)
	PROD2(R13, 8, Y5)
	PROD2(R14, 0, Y6)
	PROD2(R14, 8, Y7)
	TESTQ CX, CX
	JZ   done2

loop2:
	MOVLQSX (R9), AX
	MOVBLZX (R8)(AX*1), BX
	SHLL $8, BX
	MOVD BX, X14
	VPBROADCASTD X14, Y14
	SHLQ $4, AX
	STEP2(SI, 0, Y0)
	STEP2(SI, 8, Y1)
	STEP2(R12, 0, Y2)
	STEP2(R12, 8, Y3)
	STEP2(R13, 0, Y4)
	STEP2(R13, 8, Y5)
	STEP2(R14, 0, Y6)
	STEP2(R14, 8, Y7)
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
