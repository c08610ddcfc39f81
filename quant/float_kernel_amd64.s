//go:build amd64 && !purego

#include "textflag.h"

// Offsets of the fields of floatKernel (float_kernel.go).
#define K_ABS 0
#define K_HALFM1 32
#define K_LSBONE 64
#define K_KEEP 96
#define K_MINNORM 128
#define K_MAGIC 160
#define K_FTZ 192
#define K_MAXBITS 224
#define K_OVF 256
#define K_NANKEEP 288
#define K_FNUZ 320
#define K_INF 352
#define K_LSBXOR 384
#define K_SHIFT 416

// ROUND8 rounds the 8 floats in X (a Y register) as floatKernel.round does,
// leaving the result in R. It clobbers A, S, T, U, M. Steps: a = |x| bits,
// s = sign; normal path r = (a + half-1 + kept lsb) &^ dropped bits;
// subnormal path (a + C) - C in float32, chosen where a < minNorm; flush
// to 0 where a < ftz; r > maxBits becomes ovf; FNUZ clears the sign of 0; NaN
// inputs give x & nanKeep. Y14 is zero and X15 holds the shift d.
#define ROUND8(X, A, S, T, U, M, R) \
	VPAND K_ABS(AX), X, A; \
	VPXOR A, X, S; \
	VPSRLD X15, A, T; \
	VPAND K_LSBONE(AX), T, T; \
	VPXOR K_LSBXOR(AX), T, T; \
	VPADDD K_HALFM1(AX), A, R; \
	VPADDD T, R, R; \
	VPAND K_KEEP(AX), R, R; \
	VADDPS K_MAGIC(AX), A, U; \
	VSUBPS K_MAGIC(AX), U, U; \
	VMOVDQU K_MINNORM(AX), M; \
	VPCMPGTD A, M, M; \
	VPBLENDVB M, U, R, R; \
	VMOVDQU K_FTZ(AX), M; \
	VPCMPGTD A, M, M; \
	VPANDN R, M, R; \
	VPCMPGTD K_MAXBITS(AX), R, M; \
	VPBLENDVB M, K_OVF(AX), R, R; \
	VPCMPEQD Y14, R, M; \
	VPAND K_FNUZ(AX), M, M; \
	VPANDN S, M, S; \
	VPOR S, R, R; \
	VPCMPGTD K_INF(AX), A, M; \
	VPAND K_NANKEEP(AX), X, U; \
	VPBLENDVB M, U, R, R

// func roundFloatAVX2(dst, src *float32, n int, k *floatKernel)
TEXT ·roundFloatAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ k+24(FP), AX
	VMOVQ K_SHIFT(AX), X15
	VPXOR Y14, Y14, Y14
	SHRQ $3, CX
	JZ   done
	TESTQ $1, CX
	JZ   pairs
	VMOVDQU (SI), Y0
	ROUND8(Y0, Y1, Y2, Y3, Y4, Y5, Y6)
	VMOVDQU Y6, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $1, CX
	JZ   done

pairs:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y7
	ROUND8(Y0, Y1, Y2, Y3, Y4, Y5, Y6)
	ROUND8(Y7, Y8, Y9, Y10, Y11, Y12, Y13)
	VMOVDQU Y6, (DI)
	VMOVDQU Y13, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $2, CX
	JNZ  pairs

done:
	VZEROUPPER
	RET

// ROUND16 is ROUND8 on the 16 lanes of the Z register X, with the
// constants broadcast to registers: Z16 abs, Z17 half-1, Z18 lsbOne, Z19
// keep, Z20 minNorm, Z21 magic, Z22 ftz, Z23 maxBits, Z24 ovf, Z25
// nanKeep, Z26 fnuz, Z27 inf, Z28 lsbXor; X15 the shift d. It leaves the
// result in R and clobbers A, S, T, U and K1-K5.
#define ROUND16(X, A, S, T, U, R) \
	VPANDD Z16, X, A; \
	VPXORD A, X, S; \
	VPSRLD X15, A, T; \
	VPANDD Z18, T, T; \
	VPXORD Z28, T, T; \
	VPADDD Z17, A, R; \
	VPADDD T, R, R; \
	VPANDD Z19, R, R; \
	VADDPS Z21, A, U; \
	VSUBPS Z21, U, U; \
	VPCMPGTD A, Z20, K1; \
	VMOVDQA32 U, K1, R; \
	VPCMPGTD A, Z22, K2; \
	VPXORD R, R, K2, R; \
	VPCMPGTD Z23, R, K3; \
	VMOVDQA32 Z24, K3, R; \
	VPTESTNMD R, R, K4; \
	VPANDND S, Z26, K4, S; \
	VPORD S, R, R; \
	VPCMPGTD Z27, A, K5; \
	VPANDD Z25, X, U; \
	VMOVDQA32 U, K5, R

// func roundFloatAVX512(dst, src *float32, n int, k *floatKernel)
TEXT ·roundFloatAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ k+24(FP), AX
	VMOVQ        K_SHIFT(AX), X15
	VPBROADCASTD K_ABS(AX), Z16
	VPBROADCASTD K_HALFM1(AX), Z17
	VPBROADCASTD K_LSBONE(AX), Z18
	VPBROADCASTD K_KEEP(AX), Z19
	VPBROADCASTD K_MINNORM(AX), Z20
	VPBROADCASTD K_MAGIC(AX), Z21
	VPBROADCASTD K_FTZ(AX), Z22
	VPBROADCASTD K_MAXBITS(AX), Z23
	VPBROADCASTD K_OVF(AX), Z24
	VPBROADCASTD K_NANKEEP(AX), Z25
	VPBROADCASTD K_FNUZ(AX), Z26
	VPBROADCASTD K_INF(AX), Z27
	VPBROADCASTD K_LSBXOR(AX), Z28
	SHRQ $4, CX
	JZ   done512
	TESTQ $1, CX
	JZ   pairs512
	VMOVDQU32 (SI), Z0
	ROUND16(Z0, Z1, Z2, Z3, Z4, Z6)
	VMOVDQU32 Z6, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $1, CX
	JZ   done512

pairs512:
	VMOVDQU32 (SI), Z0
	VMOVDQU32 64(SI), Z7
	ROUND16(Z0, Z1, Z2, Z3, Z4, Z6)
	ROUND16(Z7, Z8, Z9, Z10, Z11, Z13)
	VMOVDQU32 Z6, (DI)
	VMOVDQU32 Z13, 64(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $2, CX
	JNZ  pairs512

done512:
	VZEROUPPER
	RET
