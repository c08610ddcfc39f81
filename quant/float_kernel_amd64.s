//go:build amd64 && !purego

#include "textflag.h"

// wideRun512 is how many blocks roundFloatAVX512 takes off the add
// span after a miss (zeros among the values; in the FLOAT16 span the
// wide span's subnormal results no longer miss): on σ 0.02 weights in
// one core's cache (2026-11-27, min of 5, before FLOAT16), 2 gave 0.27 ns
// a value in fp8-ibm-fwd and kept 0.14 in fp8-ibm-bwd, where 8 and 32
// lost to the dearer FASTSUB16 on blocks that would have taken the fast
// path.
#define wideRun512 2

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
#define K_FASTLO2 424
#define K_FASTSPAN2 428
#define K_WIDELO2 436
#define K_WIDESPAN2 468
#define K_ADDLO2 500
#define K_ADDSPAN2 504
#define K_ADDEMIN 508
#define K_ADDBIAS 512

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

// FLOAT8 rounds the 8 floats in X in place where they all lie in the add
// span (floatKernel.addLo2): x + M - M in float32, M = 2^(max(E, emin)+d)
// with the sign of x, E the exponent byte of x. T and U are clobbered.
// Y8 0x7f800000, Y9 addEmin, Y10 addBias, Y11 0x7fffffff.
#define FLOAT8(X, T, U) \
	VPAND   Y8, X, T;  \
	VPMAXSD Y9, T, T;  \
	VPADDD  Y10, T, T; \
	VPANDN  X, Y11, U; \
	VPOR    U, T, T;   \
	VADDPS  T, X, X;   \
	VSUBPS  T, X, X

// INSPAN8 sets M to zero iff all 8 lanes of X lie in the add span:
// y-addLo2 <= addSpan2, unsigned, y = x<<1 (Y13 addLo2, Y12 addSpan2).
// T is clobbered.
#define INSPAN8(X, T, M) \
	VPSLLD  $1, X, T;  \
	VPSUBD  Y13, T, T; \
	VPMINUD Y12, T, M; \
	VPXOR   T, M, M

// func roundFloatAVX2(dst, src *float32, n int, k *floatKernel)
//
// Pairs of vectors whose lanes all lie in the add span take FLOAT8; the
// rest FLOAT8 or ROUND8 a vector at a time (below).
TEXT ·roundFloatAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ k+24(FP), AX
	VMOVQ K_SHIFT(AX), X15
	VPXOR Y14, Y14, Y14
	VPBROADCASTD K_ADDLO2(AX), Y13
	VPBROADCASTD K_ADDSPAN2(AX), Y12
	VMOVDQU      K_ABS(AX), Y11
	VPBROADCASTD K_ADDBIAS(AX), Y10
	VPBROADCASTD K_ADDEMIN(AX), Y9
	VMOVDQU      K_INF(AX), Y8
	XORQ R12, R12 // vectors left to round one at a time
	SHRQ $3, CX
	JZ   done

loop:
	TESTQ R12, R12
	JNZ   slowmode
	CMPQ  CX, $2
	JB    single
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	INSPAN8(Y0, Y2, Y4)
	INSPAN8(Y1, Y3, Y5)
	VPOR    Y5, Y4, Y4
	VPTEST  Y4, Y4
	JNZ     miss
	FLOAT8(Y0, Y2, Y4)
	FLOAT8(Y1, Y3, Y5)
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $2, CX
	JNZ  loop
	JMP  done

single:
	VMOVDQU (SI), Y0
	INSPAN8(Y0, Y2, Y4)
	VPTEST  Y4, Y4
	JNZ     miss
	FLOAT8(Y0, Y2, Y4)
	VMOVDQU Y0, (DI)
	JMP     next

miss:
	// Data outside the span (zeros, values that round to zero, specials):
	// the next 32 vectors take FLOAT8 or ROUND8 one at a time, before
	// pairs are tried again, so that mixed data does not pay a
	// mispredicted pair per vector.
	MOVQ $32, R12

slowmode:
	DECQ    R12
	VMOVDQU (SI), Y0
	INSPAN8(Y0, Y2, Y4)
	VPTEST  Y4, Y4
	JNZ     slowround
	FLOAT8(Y0, Y2, Y4)
	VMOVDQU Y0, (DI)
	JMP     next

slowround:
	ROUND8(Y0, Y1, Y2, Y3, Y4, Y5, Y6)
	VMOVDQU Y6, (DI)

next:
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

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

// FLOAT16 is FLOAT8 on a Z register: Z27 0x7f800000, Z13 addEmin, Z14
// addBias, Z16 0x7fffffff; the sign goes into M by one VPTERNLOGD. T is
// clobbered.
#define FLOAT16(X, T) \
	VPANDD     Z27, X, T;       \
	VPMAXSD    Z13, T, T;       \
	VPADDD     Z14, T, T;       \
	VPTERNLOGD $0xf4, Z16, X, T; \
	VADDPS     T, X, X;         \
	VSUBPS     T, X, X

// FASTSUB16 rounds the 16 floats in the Z register X, for lanes in the wide span or
// ±0: the normal path, or the subnormal one where a < minNorm (Z20; Z21
// magic), the sign put back except on a zero of an FNUZ format (K6: the
// lanes whose sign stays whatever a is, all of them without FNUZ). Zero
// takes the normal path to 0 there, as ROUND16 gives. It clobbers A, T,
// U, K1 and K3.
#define FASTSUB16(X, A, T, U, R) \
	VPANDD Z16, X, A; \
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
	VPTESTMD A, A, K3; \
	KORW K6, K3, K3; \
	VPXORD A, X, T; \
	VPORD T, R, K3, R

// func roundFloatAVX512(dst, src *float32, n int, k *floatKernel)
//
// Pairs of blocks whose lanes all lie in the add span (Z29 addLo2, Z30
// addSpan2) take FLOAT16. After a miss the next wideRun512 blocks (this
// one included) take FASTSUB16 where all their lanes lie in the wide span
// (Z11 wideLo2, Z12 wideSpan2) or are ±0, and ROUND16 elsewhere, before
// the span is tried again: activations with zeros then mostly keep to
// the short paths.
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
	VPBROADCASTD K_ADDLO2(AX), Z29
	VPBROADCASTD K_ADDSPAN2(AX), Z30
	VPBROADCASTD K_ADDEMIN(AX), Z13
	VPBROADCASTD K_ADDBIAS(AX), Z14
	VPBROADCASTD K_WIDELO2(AX), Z11
	VPBROADCASTD K_WIDESPAN2(AX), Z12
	VPTESTNMD    Z26, Z26, K6 // lanes whose zero keeps its sign: all without FNUZ
	XORQ R12, R12
	SHRQ $4, CX
	JZ   done512

loop512:
	TESTQ R12, R12
	JNZ   slowmode512
	CMPQ  CX, $2
	JB    single512
	VMOVDQU32 (SI), Z0
	VMOVDQU32 64(SI), Z7
	VPSLLD    $1, Z0, Z2
	VPSLLD    $1, Z7, Z9
	VPSUBD    Z29, Z2, Z2
	VPSUBD    Z29, Z9, Z9
	VPCMPUD   $2, Z30, Z2, K1
	VPCMPUD   $2, Z30, Z9, K1, K1
	KORTESTW  K1, K1
	JCC       miss512
	FLOAT16(Z0, Z2)
	FLOAT16(Z7, Z9)
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z7, 64(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $2, CX
	JNZ  loop512
	JMP  done512

single512:
	VMOVDQU32 (SI), Z0
	VPSLLD    $1, Z0, Z2
	VPSUBD    Z29, Z2, Z2
	VPCMPUD   $2, Z30, Z2, K1
	KORTESTW  K1, K1
	JCC       miss512
	FLOAT16(Z0, Z2)
	VMOVDQU32 Z0, (DI)
	JMP       next512

miss512:
	MOVQ $wideRun512, R12

slowmode512:
	DECQ      R12
	VMOVDQU32 (SI), Z0
	VPSLLD    $1, Z0, Z2
	VPTESTNMD Z2, Z2, K2     // ±0
	VPSUBD    Z11, Z2, Z2
	VPCMPUD   $2, Z12, Z2, K1 // in the wide span
	KORW      K2, K1, K1
	KORTESTW  K1, K1
	JCC       round512
	FASTSUB16(Z0, Z1, Z3, Z4, Z6)
	VMOVDQU32 Z6, (DI)
	JMP       next512

round512:
	ROUND16(Z0, Z1, Z2, Z3, Z4, Z6)
	VMOVDQU32 Z6, (DI)

next512:
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop512

done512:
	VZEROUPPER
	RET
