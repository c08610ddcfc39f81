//go:build amd64 && !purego && !openblas

#include "textflag.h"

// The row kernels of perOpRowGo (perop_kernel.go) on 64 lanes: one chain
// of dependent sum lookups per lane, the chains in vector registers. A
// gathered lookup of table[i] reads the 32-bit word at byte offset i (the
// tables are padded by 3 bytes) and uses its low byte: a chain's sum
// keeps the three bytes above, and the next index, s<<8 | p, masks them
// off. A gather merges into its destination: one that is not a chain's
// sum is zeroed first, or it would wait for the previous gather into the
// same register.
//
// Registers: DI out, SI blk, R8 ar (ar0), R9 nz, CX terms left, R10 prod,
// R11 sum, AX the term's offset in blk (64 per term).

#define ARGS1 \
	MOVQ out+0(FP), DI; \
	MOVQ blk+8(FP), SI; \
	MOVQ ar+16(FP), R8; \
	MOVQ nz+24(FP), R9; \
	MOVQ nnz+32(FP), CX; \
	MOVQ prod+40(FP), R10; \
	MOVQ sum+48(FP), R11

// CONSTS512 sets Z31 = 0xff and Z29 = 0xff00 in every lane.
#define CONSTS512 \
	MOVL $0xff, AX; \
	VPBROADCASTD AX, Z31; \
	MOVL $0xff00, AX; \
	VPBROADCASTD AX, Z29

// PROD512 sets P to the 16 product indices prod[a<<8 | col] of the
// columns at off(SI)(AX), with a<<8 broadcast in Z30; it clobbers I, K.
#define PROD512(off, I, K, P) \
	VPMOVZXBD off(SI)(AX*1), I; \
	VPORD Z30, I, I; \
	KXNORW K0, K0, K; \
	VPXORD P, P, P; \
	VPGATHERDD (R10)(I*1), K, P; \
	VPANDD Z31, P, P

// SUM512 sets S = sum[(S<<8 & 0xff00) | P] (ternary logic 0xEC: I&Z29 | P);
// it clobbers I and K.
#define SUM512(S, P, I, K) \
	VPSLLD $8, S, I; \
	VPTERNLOGD $0xEC, Z29, P, I; \
	KXNORW K0, K0, K; \
	VPGATHERDD (R11)(I*1), K, S

// FIRST512 starts the chain S at the product P.
#define FIRST512(P, S) \
	VMOVDQA64 P, S

// OUT512 stores the sum index of chain S (its low byte) at off(DI).
#define OUT512(S, off) \
	VPANDD Z31, S, S; \
	VMOVDQU32 S, off(DI)

// func perOpRowAVX512(out *uint32, blk *uint8, ar *uint8, nz *int32, nnz int, prod *uint8, sum *uint8)
// Products and sums gathered (AVX-512 F).
TEXT ·perOpRowAVX512(SB), NOSPLIT, $0-56
	ARGS1
	CONSTS512
	MOVBLZX (R8), BX
	SHLL $8, BX
	VPBROADCASTD BX, Z30
	XORQ AX, AX
	PROD512(0, Z4, K1, Z8)
	PROD512(16, Z5, K2, Z9)
	PROD512(32, Z6, K3, Z10)
	PROD512(48, Z7, K4, Z11)
	FIRST512(Z8, Z0)
	FIRST512(Z9, Z1)
	FIRST512(Z10, Z2)
	FIRST512(Z11, Z3)
	TESTQ CX, CX
	JZ   done512

loop512:
	MOVLQSX (R9), AX
	MOVBLZX (R8)(AX*1), BX
	SHLL $8, BX
	VPBROADCASTD BX, Z30
	SHLQ $6, AX
	PROD512(0, Z4, K1, Z8)
	PROD512(16, Z5, K2, Z9)
	PROD512(32, Z6, K3, Z10)
	PROD512(48, Z7, K4, Z11)
	SUM512(Z0, Z8, Z12, K5)
	SUM512(Z1, Z9, Z13, K6)
	SUM512(Z2, Z10, Z14, K7)
	SUM512(Z3, Z11, Z15, K1)
	ADDQ $4, R9
	DECQ CX
	JNZ  loop512

done512:
	OUT512(Z0, 0)
	OUT512(Z1, 64)
	OUT512(Z2, 128)
	OUT512(Z3, 192)
	VZEROUPPER
	RET

// PRODVBMI sets Z8–Z11 to the 64 product indices prod[a<<8 | col], as
// 32-bit words, for the column indices in Z4 (their top bits in K1) and
// BX pointing at row a of prod: two 128-byte table lookups (VPERMI2B)
// chosen by the index's top bit. It clobbers Z5–Z7, Z16 and Z17.
#define PRODVBMI \
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

// PRODB sets Z7 to the 64 product indices prod[a<<8 | col], as bytes,
// for the column indices in Z4 (their top bits in K1) and BX pointing at
// row a of prod, as PRODVBMI does; it clobbers Z5, Z6, Z16 and Z17.
#define PRODB \
	VMOVDQU64 (BX), Z16; \
	VMOVDQU64 128(BX), Z17; \
	VMOVDQA64 Z4, Z5; \
	VPERMI2B 64(BX), Z16, Z5; \
	VMOVDQA64 Z4, Z6; \
	VPERMI2B 192(BX), Z17, Z6; \
	VPBLENDMB Z6, Z5, K1, Z7

// SUMB sets the chains S of lanes 16q..16q+15 to sum[S<<8 | p], p their
// product bytes in Z7 and C their control (perOpSumCtl<>): one byte
// permute, with the zeroing mask K7, puts each lane's index together. It
// clobbers I and K.
#define SUMB(S, C, I, K) \
	VMOVDQA64 C, I; \
	VPERMI2B.Z Z7, S, K7, I; \
	KXNORW K0, K0, K; \
	VPGATHERDD (R11)(I*1), K, S

// perOpSumCtl<> holds, for each quarter q of 16 lanes, the VPERMI2B
// control that makes the sum index s<<8 | p of lane t: byte 4t is the
// product byte 16q+t of the second table, byte 4t+1 the low byte of the
// chain's lane t in the first; bytes 4t+2 and 4t+3 are zeroed by mask.
DATA perOpSumCtl<>+0(SB)/8, $0x0000044100000040
DATA perOpSumCtl<>+8(SB)/8, $0x00000c4300000842
DATA perOpSumCtl<>+16(SB)/8, $0x0000144500001044
DATA perOpSumCtl<>+24(SB)/8, $0x00001c4700001846
DATA perOpSumCtl<>+32(SB)/8, $0x0000244900002048
DATA perOpSumCtl<>+40(SB)/8, $0x00002c4b0000284a
DATA perOpSumCtl<>+48(SB)/8, $0x0000344d0000304c
DATA perOpSumCtl<>+56(SB)/8, $0x00003c4f0000384e
DATA perOpSumCtl<>+64(SB)/8, $0x0000045100000050
DATA perOpSumCtl<>+72(SB)/8, $0x00000c5300000852
DATA perOpSumCtl<>+80(SB)/8, $0x0000145500001054
DATA perOpSumCtl<>+88(SB)/8, $0x00001c5700001856
DATA perOpSumCtl<>+96(SB)/8, $0x0000245900002058
DATA perOpSumCtl<>+104(SB)/8, $0x00002c5b0000285a
DATA perOpSumCtl<>+112(SB)/8, $0x0000345d0000305c
DATA perOpSumCtl<>+120(SB)/8, $0x00003c5f0000385e
DATA perOpSumCtl<>+128(SB)/8, $0x0000046100000060
DATA perOpSumCtl<>+136(SB)/8, $0x00000c6300000862
DATA perOpSumCtl<>+144(SB)/8, $0x0000146500001064
DATA perOpSumCtl<>+152(SB)/8, $0x00001c6700001866
DATA perOpSumCtl<>+160(SB)/8, $0x0000246900002068
DATA perOpSumCtl<>+168(SB)/8, $0x00002c6b0000286a
DATA perOpSumCtl<>+176(SB)/8, $0x0000346d0000306c
DATA perOpSumCtl<>+184(SB)/8, $0x00003c6f0000386e
DATA perOpSumCtl<>+192(SB)/8, $0x0000047100000070
DATA perOpSumCtl<>+200(SB)/8, $0x00000c7300000872
DATA perOpSumCtl<>+208(SB)/8, $0x0000147500001074
DATA perOpSumCtl<>+216(SB)/8, $0x00001c7700001876
DATA perOpSumCtl<>+224(SB)/8, $0x0000247900002078
DATA perOpSumCtl<>+232(SB)/8, $0x00002c7b0000287a
DATA perOpSumCtl<>+240(SB)/8, $0x0000347d0000307c
DATA perOpSumCtl<>+248(SB)/8, $0x00003c7f0000387e
GLOBL perOpSumCtl<>(SB), RODATA|NOPTR, $256

// func perOpRow2VBMI(out *uint32, blk *uint8, ar0, ar1 *uint8, nz *int32, nnz int, prod *uint8, sum *uint8)
// Two rows (ar0 in R8, ar1 in DX), eight chains (Z0–Z3, Z18–Z21);
// products by byte permutes (AVX-512 VBMI), sum indices by byte permutes
// too, sums gathered.
TEXT ·perOpRow2VBMI(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ blk+8(FP), SI
	MOVQ ar0+16(FP), R8
	MOVQ ar1+24(FP), DX
	MOVQ nz+32(FP), R9
	MOVQ nnz+40(FP), CX
	MOVQ prod+48(FP), R10
	MOVQ sum+56(FP), R11
	CONSTS512
	MOVQ $0x3333333333333333, AX
	KMOVQ AX, K7
	VMOVDQU64 perOpSumCtl<>+0(SB), Z24
	VMOVDQU64 perOpSumCtl<>+64(SB), Z25
	VMOVDQU64 perOpSumCtl<>+128(SB), Z26
	VMOVDQU64 perOpSumCtl<>+192(SB), Z27
	VMOVDQU8 (SI), Z4
	VPMOVB2M Z4, K1
	MOVBLZX (R8), BX
	SHLQ $8, BX
	ADDQ R10, BX
	PRODVBMI
	FIRST512(Z8, Z0)
	FIRST512(Z9, Z1)
	FIRST512(Z10, Z2)
	FIRST512(Z11, Z3)
	MOVBLZX (DX), BX
	SHLQ $8, BX
	ADDQ R10, BX
	PRODVBMI
	FIRST512(Z8, Z18)
	FIRST512(Z9, Z19)
	FIRST512(Z10, Z20)
	FIRST512(Z11, Z21)
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
	PRODB
	SUMB(Z0, Z24, Z12, K2)
	SUMB(Z1, Z25, Z13, K3)
	SUMB(Z2, Z26, Z14, K4)
	SUMB(Z3, Z27, Z15, K5)
	MOVQ R12, BX
	PRODB
	SUMB(Z18, Z24, Z22, K6)
	SUMB(Z19, Z25, Z23, K2)
	SUMB(Z20, Z26, Z28, K3)
	SUMB(Z21, Z27, Z30, K4)
	ADDQ $4, R9
	DECQ CX
	JNZ  loop2vbmi

done2vbmi:
	OUT512(Z0, 0)
	OUT512(Z1, 64)
	OUT512(Z2, 128)
	OUT512(Z3, 192)
	OUT512(Z18, 256)
	OUT512(Z19, 320)
	OUT512(Z20, 384)
	OUT512(Z21, 448)
	VZEROUPPER
	RET

// PROD2 sets P to the 8 product indices of the columns at off(SI)(AX),
// with a<<8 broadcast in Y14 and 0xff in Y15; it clobbers Y12 and Y13.
// (No legacy SSE instruction may run here: with the upper halves of the
// registers in use, each would cost a merge, and the loop ran 6x slower.)
#define PROD2(off, P) \
	VPMOVZXBD off(SI)(AX*1), Y12; \
	VPOR Y14, Y12, Y12; \
	VPCMPEQD Y13, Y13, Y13; \
	VPXOR P, P, P; \
	VPGATHERDD Y13, (R10)(Y12*1), P; \
	VPAND Y15, P, P

// STEP2 sets S = sum[(S<<8 & 0xff00) | product of the columns at
// off(SI)(AX)], with 0xff00 in Y11; it clobbers Y8–Y10, Y12 and Y13.
#define STEP2(off, S) \
	PROD2(off, Y8); \
	VPSLLD $8, S, Y9; \
	VPAND Y11, Y9, Y9; \
	VPOR Y8, Y9, Y9; \
	VPCMPEQD Y10, Y10, Y10; \
	VPGATHERDD Y10, (R11)(Y9*1), S

// FIRST2 starts the chain S at the product of the columns at
// off(SI)(AX).
#define FIRST2(off, S) \
	PROD2(off, S)

// OUT2 stores the sum index of chain S (its low byte) at off(DI).
#define OUT2(S, off) \
	VPAND Y15, S, S; \
	VMOVDQU S, off(DI)

// func perOpRowAVX2(out *uint32, blk *uint8, ar *uint8, nz *int32, nnz int, prod *uint8, sum *uint8)
// Products and sums gathered, eight chains of 8 lanes (AVX2).
TEXT ·perOpRowAVX2(SB), NOSPLIT, $0-56
	ARGS1
	MOVL $0xff, AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	MOVL $0xff00, AX
	VMOVD AX, X11
	VPBROADCASTD X11, Y11
	MOVBLZX (R8), BX
	SHLL $8, BX
	VMOVD BX, X14
	VPBROADCASTD X14, Y14
	XORQ AX, AX
	FIRST2(0, Y0)
	FIRST2(8, Y1)
	FIRST2(16, Y2)
	FIRST2(24, Y3)
	FIRST2(32, Y4)
	FIRST2(40, Y5)
	FIRST2(48, Y6)
	FIRST2(56, Y7)
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
	OUT2(Y0, 0)
	OUT2(Y1, 32)
	OUT2(Y2, 64)
	OUT2(Y3, 96)
	OUT2(Y4, 128)
	OUT2(Y5, 160)
	OUT2(Y6, 192)
	OUT2(Y7, 224)
	VZEROUPPER
	RET
