//go:build amd64 && !purego

#include "textflag.h"

// The kernels compute roundPositGo (posit_kernel.go) lane by lane, from the
// constants in a positSlice:
//	0 sOff, 4 es, 8 c1, 12 c2, 16 dMax, 20 off,
//	24 lo, 28 loTie, 32 hi, 36 hiTie, 40 minB, 44 lowB, 48 highB, 52 maxB,
//	56 fastLo, 60 fastSpan.
// Lanes that need the slow path get the input unchanged, and their indices
// (relative to src) are stored at idx.

DATA absMask<>+0(SB)/4, $0x7fffffff
DATA absMask<>+4(SB)/4, $0x7fffffff
DATA absMask<>+8(SB)/4, $0x7fffffff
DATA absMask<>+12(SB)/4, $0x7fffffff
DATA absMask<>+16(SB)/4, $0x7fffffff
DATA absMask<>+20(SB)/4, $0x7fffffff
DATA absMask<>+24(SB)/4, $0x7fffffff
DATA absMask<>+28(SB)/4, $0x7fffffff
GLOBL absMask<>(SB), RODATA|NOPTR, $32

DATA signMask<>+0(SB)/4, $0x80000000
DATA signMask<>+4(SB)/4, $0x80000000
DATA signMask<>+8(SB)/4, $0x80000000
DATA signMask<>+12(SB)/4, $0x80000000
DATA signMask<>+16(SB)/4, $0x80000000
DATA signMask<>+20(SB)/4, $0x80000000
DATA signMask<>+24(SB)/4, $0x80000000
DATA signMask<>+28(SB)/4, $0x80000000
GLOBL signMask<>(SB), RODATA|NOPTR, $32

// a+0x7f800000 > -16777217 (signed) iff a-minNormal >= normRange (unsigned).
DATA normBias<>+0(SB)/4, $0x7f800000
DATA normBias<>+4(SB)/4, $0x7f800000
DATA normBias<>+8(SB)/4, $0x7f800000
DATA normBias<>+12(SB)/4, $0x7f800000
DATA normBias<>+16(SB)/4, $0x7f800000
DATA normBias<>+20(SB)/4, $0x7f800000
DATA normBias<>+24(SB)/4, $0x7f800000
DATA normBias<>+28(SB)/4, $0x7f800000
GLOBL normBias<>(SB), RODATA|NOPTR, $32

DATA normLimit<>+0(SB)/4, $0xfeffffff
DATA normLimit<>+4(SB)/4, $0xfeffffff
DATA normLimit<>+8(SB)/4, $0xfeffffff
DATA normLimit<>+12(SB)/4, $0xfeffffff
DATA normLimit<>+16(SB)/4, $0xfeffffff
DATA normLimit<>+20(SB)/4, $0xfeffffff
DATA normLimit<>+24(SB)/4, $0xfeffffff
DATA normLimit<>+28(SB)/4, $0xfeffffff
GLOBL normLimit<>(SB), RODATA|NOPTR, $32

DATA lanes<>+0(SB)/4, $0
DATA lanes<>+4(SB)/4, $1
DATA lanes<>+8(SB)/4, $2
DATA lanes<>+12(SB)/4, $3
DATA lanes<>+16(SB)/4, $4
DATA lanes<>+20(SB)/4, $5
DATA lanes<>+24(SB)/4, $6
DATA lanes<>+28(SB)/4, $7
DATA lanes<>+32(SB)/4, $8
DATA lanes<>+36(SB)/4, $9
DATA lanes<>+40(SB)/4, $10
DATA lanes<>+44(SB)/4, $11
DATA lanes<>+48(SB)/4, $12
DATA lanes<>+52(SB)/4, $13
DATA lanes<>+56(SB)/4, $14
DATA lanes<>+60(SB)/4, $15
GLOBL lanes<>(SB), RODATA|NOPTR, $64

// 0x7f7fffff: a > it (signed) iff a is Inf or NaN.
DATA maxFinite<>+0(SB)/4, $0x7f7fffff
DATA maxFinite<>+4(SB)/4, $0x7f7fffff
DATA maxFinite<>+8(SB)/4, $0x7f7fffff
DATA maxFinite<>+12(SB)/4, $0x7f7fffff
DATA maxFinite<>+16(SB)/4, $0x7f7fffff
DATA maxFinite<>+20(SB)/4, $0x7f7fffff
DATA maxFinite<>+24(SB)/4, $0x7f7fffff
DATA maxFinite<>+28(SB)/4, $0x7f7fffff
GLOBL maxFinite<>(SB), RODATA|NOPTR, $32

// POSIT_FAST8 rounds the 8 float32s in X (a Y register) by the regular
// region's rule where they all lie in the fast span, in place, clobbering
// T and U: the sign bit rides along in v = x+off, as no carry or borrow
// reaches it there; k = (E+sOff)>>es, computed as (x<<1 + sOff<<24) >>
// (24+es), arithmetic: x<<1 is E<<24 plus the mantissa below bit 24,
// which the shift drops, and the fast span keeps E+sOff in a signed byte;
// drop = max(k+c1, c2-k) (never negative where this path runs), low =
// 1<<drop - 1, half = (low + v>>drop&1)>>1, r = (v+half)&^low - off. T
// holds x<<1 on entry; the frame holds sOff<<24 at 256(SP) and 24+es at
// 288(SP), 8 times each.
#define POSIT_FAST8(X, T, U) \
	VPADDD  256(SP), T, T; \
	VPSRAVD 288(SP), T, T; \
	VPADDD  Y13, T, U;     \
	VPSUBD  T, Y12, T;     \
	VPMAXSD U, T, T;       \
	VPADDD  Y10, X, X;     \
	VPSRLVD T, X, U;       \
	VPAND   Y9, U, U;      \
	VPSLLVD T, Y9, T;      \
	VPSUBD  Y9, T, T;      \
	VPADDD  T, U, U;       \
	VPSRLD  $1, U, U;      \
	VPADDD  U, X, X;       \
	VPANDN  X, T, X;       \
	VPSUBD  Y10, X, X

// func roundPositAVX2(dst, src *float32, n int, c *positSlice, idx *int32) int
//
// All the magnitudes compared are below 2^31, so signed compares serve.
// The fast span is tested on y = x<<1 (|x| doubled, the sign shifted
// out): fastLo <= |x| < fastLo+fastSpan iff y-2·fastLo <= 2·fastSpan-1,
// unsigned, iff min(y-2·fastLo, 2·fastSpan-1) == y-2·fastLo. Pairs of
// vectors in the span take the short path together. The constants of the
// other regions are broadcast to the frame: loTie 0, hiTie 32, minB 64,
// lowB 96, highB 128, maxB 160, lo 192, hi 224.
TEXT ·roundPositAVX2(SB), NOSPLIT, $320-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), R8
	MOVQ idx+32(FP), R9
	XORQ R10, R10 // indices stored
	XORQ R11, R11 // element

	VPBROADCASTD 0(R8), Y15  // sOff
	VMOVD        4(R8), X14  // es
	VPBROADCASTD 8(R8), Y13  // c1
	VPBROADCASTD 12(R8), Y12 // c2
	VPBROADCASTD 20(R8), Y10 // off
	VPBROADCASTD 28(R8), Y0
	VMOVDQU      Y0, 0(SP)   // loTie
	VPBROADCASTD 36(R8), Y0
	VMOVDQU      Y0, 32(SP)  // hiTie
	VPBROADCASTD 40(R8), Y0
	VMOVDQU      Y0, 64(SP)  // minB
	VPBROADCASTD 44(R8), Y0
	VMOVDQU      Y0, 96(SP)  // lowB
	VPBROADCASTD 48(R8), Y0
	VMOVDQU      Y0, 128(SP) // highB
	VPBROADCASTD 52(R8), Y0
	VMOVDQU      Y0, 160(SP) // maxB
	VPBROADCASTD 24(R8), Y0
	VMOVDQU      Y0, 192(SP) // lo
	VPBROADCASTD 32(R8), Y0
	VMOVDQU      Y0, 224(SP) // hi
	MOVL         0(R8), AX
	SHLL         $24, AX
	VMOVD        AX, X0
	VPBROADCASTD X0, Y0
	VMOVDQU      Y0, 256(SP) // sOff<<24
	MOVL         4(R8), AX
	ADDL         $24, AX
	VMOVD        AX, X0
	VPBROADCASTD X0, Y0
	VMOVDQU      Y0, 288(SP) // 24+es

	// Y8 = 2·fastLo, Y7 = 2·fastSpan-1; without a fast span, or where
	// drop may be negative (c2 < -1: posits of more than 24 bits), 1 and
	// 0, which no even y passes.
	MOVL  56(R8), AX
	MOVL  60(R8), DX
	MOVL  12(R8), BX
	TESTL DX, DX
	JZ    avx2nofast
	CMPL  BX, $-1
	JLT   avx2nofast
	SHLL  $1, AX
	SHLL  $1, DX
	DECL  DX
	JMP   avx2fastset

avx2nofast:
	MOVL $1, AX
	XORL DX, DX

avx2fastset:
	VMOVD         AX, X0
	VPBROADCASTD X0, Y8
	VMOVD         DX, X0
	VPBROADCASTD X0, Y7
	MOVL         $1, AX
	VMOVD         AX, X9
	VPBROADCASTD X9, Y9 // 1

avx2pair:
	LEAQ    16(R11), AX
	CMPQ    AX, CX
	JA      avx2single
	VMOVDQU (SI)(R11*4), Y0
	VMOVDQU 32(SI)(R11*4), Y3
	VPSLLD  $1, Y0, Y1
	VPSLLD  $1, Y3, Y4
	VPSUBD  Y8, Y1, Y2
	VPSUBD  Y8, Y4, Y6
	VPMINUD Y7, Y2, Y11
	VPMINUD Y7, Y6, Y5
	VPXOR   Y2, Y11, Y11
	VPXOR   Y6, Y5, Y5
	VPOR    Y5, Y11, Y11
	VPTEST  Y11, Y11
	JNZ     avx2single
	POSIT_FAST8(Y0, Y1, Y2)
	POSIT_FAST8(Y3, Y4, Y6)
	VMOVDQU Y0, (DI)(R11*4)
	VMOVDQU Y3, 32(DI)(R11*4)
	ADDQ    $16, R11
	JMP     avx2pair

avx2single:
	CMPQ    R11, CX
	JAE     avx2done
	VMOVDQU (SI)(R11*4), Y0
	VPSLLD  $1, Y0, Y1
	VPSUBD  Y8, Y1, Y2
	VPMINUD Y7, Y2, Y11
	VPXOR   Y2, Y11, Y11
	VPTEST  Y11, Y11
	JNZ     avx2general
	POSIT_FAST8(Y0, Y1, Y2)
	VMOVDQU Y0, (DI)(R11*4)
	ADDQ    $8, R11
	JMP     avx2pair

avx2general:
	// The regular region's rule on a = |x|, then the other regions.
	VPXOR   Y5, Y5, Y5            // 0
	VPAND   absMask<>(SB), Y0, Y1 // a
	VPSRLD  $23, Y1, Y2
	VPADDD  Y15, Y2, Y2 // s
	VPSRAD  X14, Y2, Y2 // k
	VPADDD  Y13, Y2, Y3
	VPSUBD  Y2, Y12, Y2
	VPMAXSD Y3, Y2, Y2
	VPMAXSD Y5, Y2, Y2  // drop
	VPADDD  Y10, Y1, Y6 // v = a+off
	VPSRLVD Y2, Y6, Y3
	VPAND   Y9, Y3, Y3  // lsb
	VPSLLVD Y2, Y9, Y2
	VPSUBD  Y9, Y2, Y2  // low
	VPSRLD  $1, Y2, Y4
	VPADDD  Y4, Y3, Y3
	VPAND   Y2, Y3, Y3  // half
	VPADDD  Y3, Y6, Y6
	VPANDN  Y6, Y2, Y6
	VPSUBD  Y10, Y6, Y6 // r

	// Skip (Y4) if a or r is not a normal float32.
	VPADDD   normBias<>(SB), Y1, Y3
	VPCMPGTD normLimit<>(SB), Y3, Y4
	VPADDD   normBias<>(SB), Y6, Y3
	VPCMPGTD normLimit<>(SB), Y3, Y3
	VPOR     Y3, Y4, Y4

	// a < lo: minB, or lowB from loTie up; never skipped.
	VMOVDQU   192(SP), Y2
	VPCMPGTD  Y1, Y2, Y2
	VMOVDQU   0(SP), Y3
	VPCMPGTD  Y1, Y3, Y3
	VMOVDQU   96(SP), Y11
	VPBLENDVB Y3, 64(SP), Y11, Y11
	VPBLENDVB Y2, Y11, Y6, Y6
	VPANDN    Y4, Y2, Y4

	// a >= hi: highB, or maxB from hiTie up; skipped if not finite.
	VMOVDQU   224(SP), Y2
	VPCMPGTD  Y1, Y2, Y2
	VMOVDQU   32(SP), Y3
	VPCMPGTD  Y1, Y3, Y3
	VMOVDQU   160(SP), Y11
	VPBLENDVB Y3, 128(SP), Y11, Y11
	VPBLENDVB Y2, Y6, Y11, Y6
	VPAND     Y2, Y4, Y4
	VPCMPGTD  maxFinite<>(SB), Y1, Y3
	VPOR      Y3, Y4, Y4

	// ±0 gives +0; the rest take the sign of x.
	VPCMPEQD  Y1, Y5, Y3
	VPANDN    Y6, Y3, Y6
	VPAND     signMask<>(SB), Y0, Y2
	VPANDN    Y2, Y3, Y2
	VPOR      Y2, Y6, Y6
	VPBLENDVB Y4, Y0, Y6, Y6 // skipped lanes: x
	VMOVDQU   Y6, (DI)(R11*4)
	VMOVMSKPS Y4, AX
	TESTL     AX, AX
	JNZ       avx2skip

avx2next:
	ADDQ $8, R11
	JMP  avx2pair

avx2skip:
	BSFL AX, DX
	ADDL R11, DX
	MOVL DX, (R9)(R10*4)
	INCQ R10
	LEAL -1(AX), DX
	ANDL DX, AX
	JNZ  avx2skip
	JMP  avx2next

avx2done:
	VZEROUPPER
	MOVQ R10, ret+40(FP)
	RET

// POSIT_ROUND_Z rounds the magnitudes a in Z1 to r in Z6 by the regular
// region's rule, clobbering Z2-Z4: k = (E+sOff)>>es, drop = max(k+c1,
// c2-k, 0), v = a+off, low = 1<<drop - 1, half = (low>>1 + v>>drop&1) &
// low, r = (v+half)&^low - off.
#define POSIT_ROUND_Z \
	VPSRLD  $23, Z1, Z2; \
	VPADDD  Z15, Z2, Z2; \
	VPSRAD  X14, Z2, Z2; \
	VPADDD  Z13, Z2, Z3; \
	VPSUBD  Z2, Z12, Z2; \
	VPMAXSD Z3, Z2, Z2;  \
	VPMAXSD Z5, Z2, Z2;  \
	VPADDD  Z10, Z1, Z6; \
	VPSRLVD Z2, Z6, Z3;  \
	VPANDD  Z9, Z3, Z3;  \
	VPSLLVD Z2, Z9, Z2;  \
	VPSUBD  Z9, Z2, Z2;  \
	VPSRLD  $1, Z2, Z4;  \
	VPADDD  Z4, Z3, Z3;  \
	VPANDD  Z2, Z3, Z3;  \
	VPADDD  Z3, Z6, Z6;  \
	VPANDND Z6, Z2, Z6;  \
	VPSUBD  Z10, Z6, Z6

// POSIT_FAST_Z is POSIT_FAST8 on the 16 lanes of a Z register, with
// sOff<<24 in Z18 and 24+es at 0(SP).
#define POSIT_FAST_Z(X, T, U) \
	VPADDD  Z18, T, T;   \
	VPSRAVD 0(SP), T, T; \
	VPADDD  Z13, T, U;   \
	VPSUBD  T, Z12, T;   \
	VPMAXSD U, T, T;     \
	VPADDD  Z10, X, X;   \
	VPSRLVD T, X, U;     \
	VPANDD  Z9, U, U;    \
	VPSLLVD T, Z9, T;    \
	VPSUBD  Z9, T, T;    \
	VPADDD  T, U, U;     \
	VPSRLD  $1, U, U;    \
	VPADDD  U, X, X;     \
	VPANDND X, T, X;     \
	VPSUBD  Z10, X, X

// func roundPositAVX512(dst, src *float32, n int, c *positSlice, idx *int32) int
TEXT ·roundPositAVX512(SB), NOSPLIT, $64-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), R8
	MOVQ idx+32(FP), R9
	XORQ R10, R10
	XORQ R11, R11

	VPBROADCASTD 0(R8), Z15  // sOff
	VMOVD        4(R8), X14  // es
	VPBROADCASTD 8(R8), Z13  // c1
	VPBROADCASTD 12(R8), Z12 // c2
	VPBROADCASTD 20(R8), Z10 // off
	VPBROADCASTD 24(R8), Z24 // lo
	VPBROADCASTD 28(R8), Z25 // loTie
	VPBROADCASTD 32(R8), Z28 // hi
	VPBROADCASTD 36(R8), Z29 // hiTie
	VPBROADCASTD 40(R8), Z26 // minB
	VPBROADCASTD 44(R8), Z27 // lowB
	VPBROADCASTD 48(R8), Z30 // highB
	VPBROADCASTD 52(R8), Z31 // maxB
	MOVL         $1, AX
	VPBROADCASTD AX, Z9      // 1
	VPXORD       Z5, Z5, Z5  // 0
	MOVL         $0x7fffffff, AX
	VPBROADCASTD AX, Z20     // |x| mask
	MOVL         $0x00800000, AX
	VPBROADCASTD AX, Z21     // smallest normal
	MOVL         $0x7f000000, AX
	VPBROADCASTD AX, Z22     // normal range
	MOVL         $0x7f800000, AX
	VPBROADCASTD AX, Z19     // +Inf
	MOVL         0(R8), AX
	SHLL         $24, AX
	VPBROADCASTD AX, Z18     // sOff<<24
	MOVL         4(R8), AX
	ADDL         $24, AX
	VPBROADCASTD AX, Z0
	VMOVDQU32    Z0, 0(SP)   // 24+es
	VMOVDQU32    lanes<>(SB), Z23

	// Z16 = 2·fastLo, Z17 = 2·fastSpan-1, as in roundPositAVX2.
	MOVL  56(R8), AX
	MOVL  60(R8), DX
	MOVL  12(R8), BX
	TESTL DX, DX
	JZ    avx512nofast
	CMPL  BX, $-1
	JLT   avx512nofast
	SHLL  $1, AX
	SHLL  $1, DX
	DECL  DX
	JMP   avx512fastset

avx512nofast:
	MOVL $1, AX
	XORL DX, DX

avx512fastset:
	VPBROADCASTD AX, Z16
	VPBROADCASTD DX, Z17

	// Pairs of blocks whose lanes all lie where a and r are surely
	// normal take a short path: POSIT_FAST_Z, the sign riding along.
avx512pair:
	LEAQ      32(R11), AX
	CMPQ      AX, CX
	JA        avx512single
	VMOVDQU32 (SI)(R11*4), Z0
	VMOVDQU32 64(SI)(R11*4), Z7
	VPSLLD    $1, Z0, Z1
	VPSLLD    $1, Z7, Z8
	VPSUBD    Z16, Z1, Z2
	VPSUBD    Z16, Z8, Z11
	VPCMPUD   $2, Z17, Z2, K1
	VPCMPUD   $2, Z17, Z11, K1, K1
	KORTESTW  K1, K1
	JCC       avx512single
	POSIT_FAST_Z(Z0, Z1, Z2)
	POSIT_FAST_Z(Z7, Z8, Z11)
	VMOVDQU32 Z0, (DI)(R11*4)
	VMOVDQU32 Z7, 64(DI)(R11*4)
	ADDQ      $32, R11
	JMP       avx512pair

avx512single:
	CMPQ      R11, CX
	JAE       avx512done
	VMOVDQU32 (SI)(R11*4), Z0
	VPSLLD    $1, Z0, Z1
	VPSUBD    Z16, Z1, Z2
	VPCMPUD   $2, Z17, Z2, K1
	KORTESTW  K1, K1
	JCC       avx512general
	POSIT_FAST_Z(Z0, Z1, Z2)
	VMOVDQU32 Z0, (DI)(R11*4)
	ADDQ      $16, R11
	JMP       avx512pair

avx512general:
	VPANDD Z20, Z0, Z1 // a
	POSIT_ROUND_Z


	// Keep (K1) if a and r are normal float32s.
	VPSUBD  Z21, Z1, Z3
	VPCMPUD $1, Z22, Z3, K1
	VPSUBD  Z21, Z6, Z3
	VPCMPUD $1, Z22, Z3, K1, K1

	// a < lo: minB, or lowB from loTie up.
	VPCMPUD   $1, Z24, Z1, K2
	VPCMPUD   $5, Z25, Z1, K3
	VPBLENDMD Z27, Z26, K3, Z3
	VMOVDQA32 Z3, K2, Z6

	// a >= hi: highB, or maxB from hiTie up.
	VPCMPUD   $5, Z28, Z1, K4
	VPCMPUD   $5, Z29, Z1, K3
	VPBLENDMD Z31, Z30, K3, Z3
	VMOVDQA32 Z3, K4, Z6

	// Keep those too, if finite.
	KORW    K2, K1, K1
	KORW    K4, K1, K1
	VPCMPUD $1, Z19, Z1, K1, K1

	// ±0 gives +0; the rest take the sign of x.
	VPTESTMD     Z1, Z1, K5
	VPTERNLOGD.Z $0xf4, Z20, Z0, K5, Z6 // r | x&^Z20
	VPBLENDMD Z6, Z0, K1, Z6 // skipped lanes: x
	VMOVDQU32 Z6, (DI)(R11*4)
	KORTESTW  K1, K1
	JCC       avx512skip     // CF clear: some lane skipped

avx512next:
	ADDQ $16, R11
	JMP  avx512pair

avx512skip:
	KNOTW        K1, K2
	VPBROADCASTD R11, Z7
	VPADDD       Z23, Z7, Z7
	VPCOMPRESSD  Z7, K2, (R9)(R10*4)
	KMOVW        K2, AX
	POPCNTL      AX, AX
	ADDQ         AX, R10
	JMP          avx512next

avx512done:
	VZEROUPPER
	MOVQ R10, ret+40(FP)
	RET

// POSIT_TBL_Z is POSIT_FAST_Z with drop looked up: T holds x<<1 on entry,
// whose top byte is the binade E; low = 2^drop-1 is the table's entry E
// mod 32 (the fast span has at most 32 binades, and drop >= 1 there:
// positSlice.lowTable); then, with v = x+off, r = (v + low>>1 + lsb)
// &^ low - off, lsb the kept part's last bit (bit drop of v, tested
// against low+1 into K). Ten instructions where POSIT_FAST_Z takes
// fifteen. U, W and K are clobbered; Z9 holds 1, Z10 off.
#define POSIT_TBL_Z(X, T, U, W, K) \
	VPSRLD   $24, T, T;       \
	VPERMI2D 64(R12), Z18, T; \
	VPSRLD   $1, T, U;        \
	VPADDD   Z9, T, W;        \
	VPADDD   Z10, X, X;       \
	VPTESTMD W, X, K;         \
	VPADDD   U, X, X;         \
	VPADDD   Z9, X, K, X;     \
	VPANDND  X, T, X;         \
	VPSUBD   Z10, X, X

// func roundPositAVX512T(dst, src *float32, n int, c *positSlice, t *[32]uint32, idx *int32) int
//
// roundPositAVX512 with the fast path of POSIT_TBL_Z: t holds 2^drop-1
// by binade (positSlice.lowTable), the first half in Z18, the second
// read at 64(R12).
TEXT ·roundPositAVX512T(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), R8
	MOVQ t+32(FP), R12
	MOVQ idx+40(FP), R9
	XORQ R10, R10
	XORQ R11, R11

	VPBROADCASTD 0(R8), Z15  // sOff
	VMOVD        4(R8), X14  // es
	VPBROADCASTD 8(R8), Z13  // c1
	VPBROADCASTD 12(R8), Z12 // c2
	VPBROADCASTD 20(R8), Z10 // off
	VPBROADCASTD 24(R8), Z24 // lo
	VPBROADCASTD 28(R8), Z25 // loTie
	VPBROADCASTD 32(R8), Z28 // hi
	VPBROADCASTD 36(R8), Z29 // hiTie
	VPBROADCASTD 40(R8), Z26 // minB
	VPBROADCASTD 44(R8), Z27 // lowB
	VPBROADCASTD 48(R8), Z30 // highB
	VPBROADCASTD 52(R8), Z31 // maxB
	MOVL         $1, AX
	VPBROADCASTD AX, Z9      // 1
	VPXORD       Z5, Z5, Z5  // 0
	MOVL         $0x7fffffff, AX
	VPBROADCASTD AX, Z20     // |x| mask
	MOVL         $0x00800000, AX
	VPBROADCASTD AX, Z21     // smallest normal
	MOVL         $0x7f000000, AX
	VPBROADCASTD AX, Z22     // normal range
	MOVL         $0x7f800000, AX
	VPBROADCASTD AX, Z19     // +Inf
	VMOVDQU32    (R12), Z18  // 2^drop-1 of binades 0-15 (mod 32)
	VMOVDQU32    lanes<>(SB), Z23

	// Z16 = 2·fastLo, Z17 = 2·fastSpan-1, as in roundPositAVX2.
	MOVL  56(R8), AX
	MOVL  60(R8), DX
	MOVL  12(R8), BX
	TESTL DX, DX
	JZ    avx512tnofast
	CMPL  BX, $-1
	JLT   avx512tnofast
	SHLL  $1, AX
	SHLL  $1, DX
	DECL  DX
	JMP   avx512tfastset

avx512tnofast:
	MOVL $1, AX
	XORL DX, DX

avx512tfastset:
	VPBROADCASTD AX, Z16
	VPBROADCASTD DX, Z17

	// Pairs of blocks whose lanes all lie where a and r are surely
	// normal take a short path: POSIT_TBL_Z, the sign riding along.
avx512tpair:
	LEAQ      32(R11), AX
	CMPQ      AX, CX
	JA        avx512tsingle
	VMOVDQU32 (SI)(R11*4), Z0
	VMOVDQU32 64(SI)(R11*4), Z7
	VPSLLD    $1, Z0, Z1
	VPSLLD    $1, Z7, Z8
	VPSUBD    Z16, Z1, Z2
	VPSUBD    Z16, Z8, Z11
	VPCMPUD   $2, Z17, Z2, K1
	VPCMPUD   $2, Z17, Z11, K1, K1
	KORTESTW  K1, K1
	JCC       avx512tsingle
	POSIT_TBL_Z(Z0, Z1, Z2, Z3, K2)
	POSIT_TBL_Z(Z7, Z8, Z11, Z4, K3)
	VMOVDQU32 Z0, (DI)(R11*4)
	VMOVDQU32 Z7, 64(DI)(R11*4)
	ADDQ      $32, R11
	JMP       avx512tpair

avx512tsingle:
	CMPQ      R11, CX
	JAE       avx512tdone
	VMOVDQU32 (SI)(R11*4), Z0
	VPSLLD    $1, Z0, Z1
	VPSUBD    Z16, Z1, Z2
	VPCMPUD   $2, Z17, Z2, K1
	KORTESTW  K1, K1
	JCC       avx512tgeneral
	POSIT_TBL_Z(Z0, Z1, Z2, Z3, K2)
	VMOVDQU32 Z0, (DI)(R11*4)
	ADDQ      $16, R11
	JMP       avx512tpair

avx512tgeneral:
	VPANDD Z20, Z0, Z1 // a
	POSIT_ROUND_Z


	// Keep (K1) if a and r are normal float32s.
	VPSUBD  Z21, Z1, Z3
	VPCMPUD $1, Z22, Z3, K1
	VPSUBD  Z21, Z6, Z3
	VPCMPUD $1, Z22, Z3, K1, K1

	// a < lo: minB, or lowB from loTie up.
	VPCMPUD   $1, Z24, Z1, K2
	VPCMPUD   $5, Z25, Z1, K3
	VPBLENDMD Z27, Z26, K3, Z3
	VMOVDQA32 Z3, K2, Z6

	// a >= hi: highB, or maxB from hiTie up.
	VPCMPUD   $5, Z28, Z1, K4
	VPCMPUD   $5, Z29, Z1, K3
	VPBLENDMD Z31, Z30, K3, Z3
	VMOVDQA32 Z3, K4, Z6

	// Keep those too, if finite.
	KORW    K2, K1, K1
	KORW    K4, K1, K1
	VPCMPUD $1, Z19, Z1, K1, K1

	// ±0 gives +0; the rest take the sign of x.
	VPTESTMD     Z1, Z1, K5
	VPTERNLOGD.Z $0xf4, Z20, Z0, K5, Z6 // r | x&^Z20
	VPBLENDMD Z6, Z0, K1, Z6 // skipped lanes: x
	VMOVDQU32 Z6, (DI)(R11*4)
	KORTESTW  K1, K1
	JCC       avx512tskip     // CF clear: some lane skipped

avx512tnext:
	ADDQ $16, R11
	JMP  avx512tpair

avx512tskip:
	KNOTW        K1, K2
	VPBROADCASTD R11, Z7
	VPADDD       Z23, Z7, Z7
	VPCOMPRESSD  Z7, K2, (R9)(R10*4)
	KMOVW        K2, AX
	POPCNTL      AX, AX
	ADDQ         AX, R10
	JMP          avx512tnext

avx512tdone:
	VZEROUPPER
	MOVQ R10, ret+48(FP)
	RET

// func roundPositStochAVX512(dst, src *float32, n int, kp *positKernel, u *uint32, idx *int32) int
//
// Stochastic rounding where the two posits around x share a binade (drop
// <= 23): r = (a+off + u&low)&^low - off, u a random word per lane.
TEXT ·roundPositStochAVX512(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ kp+24(FP), R8
	MOVQ u+32(FP), R12
	MOVQ idx+40(FP), R9
	XORQ R10, R10
	XORQ R11, R11

	VPBROADCASTD 0(R8), Z15  // sOff
	VMOVD        4(R8), X14  // es
	VPBROADCASTD 8(R8), Z13  // c1
	VPBROADCASTD 12(R8), Z12 // c2
	VPBROADCASTD 20(R8), Z10 // off
	MOVL         $1, AX
	VPBROADCASTD AX, Z9      // 1
	VPXORD       Z5, Z5, Z5  // 0
	MOVL         $23, AX
	VPBROADCASTD AX, Z11     // largest drop
	MOVL         $0x7fffffff, AX
	VPBROADCASTD AX, Z20     // |x| mask
	MOVL         $0x00800000, AX
	VPBROADCASTD AX, Z21     // smallest normal
	MOVL         $0x7f000000, AX
	VPBROADCASTD AX, Z22     // normal range
	VMOVDQU32    lanes<>(SB), Z23

stochloop:
	CMPQ      R11, CX
	JAE       stochdone
	VMOVDQU32 (SI)(R11*4), Z0
	VPANDD    Z20, Z0, Z1          // a
	VPSRLD    $23, Z1, Z2
	VPADDD    Z15, Z2, Z2          // s
	VPSRAD    X14, Z2, Z2          // k
	VPADDD    Z13, Z2, Z3
	VPSUBD    Z2, Z12, Z2
	VPMAXSD   Z3, Z2, Z2           // drop
	VPCMPD    $2, Z11, Z2, K1      // keep: drop <= 23
	VPMAXSD   Z5, Z2, Z2
	VPSUBD    Z21, Z1, Z3
	VPCMPUD   $1, Z22, Z3, K1, K1  // keep: a normal
	VPSLLVD   Z2, Z9, Z2
	VPSUBD    Z9, Z2, Z2           // low
	VMOVDQU32 (R12)(R11*4), Z4
	VPANDD    Z2, Z4, Z4           // u&low
	VPADDD    Z10, Z1, Z6
	VPADDD    Z4, Z6, Z6
	VPANDND   Z6, Z2, Z6
	VPSUBD    Z10, Z6, Z6          // r
	VPSUBD    Z21, Z6, Z3
	VPCMPUD   $1, Z22, Z3, K1, K1  // keep: r normal
	VPTERNLOGD $0xf4, Z20, Z0, Z6  // r | x&^Z20
	VPBLENDMD Z6, Z0, K1, Z6       // skipped lanes: x
	VMOVDQU32 Z6, (DI)(R11*4)
	KORTESTW  K1, K1
	JCC       stochskip

stochnext:
	ADDQ $16, R11
	JMP  stochloop

stochskip:
	KNOTW        K1, K2
	VPBROADCASTD R11, Z7
	VPADDD       Z23, Z7, Z7
	VPCOMPRESSD  Z7, K2, (R9)(R10*4)
	KMOVW        K2, AX
	POPCNTL      AX, AX
	ADDQ         AX, R10
	JMP          stochnext

stochdone:
	VZEROUPPER
	MOVQ R10, ret+48(FP)
	RET

// func roundPositStochAVX2(dst, src *float32, n int, kp *positKernel, u *uint32, idx *int32) int
//
// roundPositStochAVX512 on 8 lanes.
TEXT ·roundPositStochAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ kp+24(FP), R8
	MOVQ u+32(FP), R12
	MOVQ idx+40(FP), R9
	XORQ R10, R10
	XORQ R11, R11

	VPBROADCASTD 0(R8), Y15  // sOff
	VMOVD        4(R8), X14  // es
	VPBROADCASTD 8(R8), Y13  // c1
	VPBROADCASTD 12(R8), Y12 // c2
	VPBROADCASTD 20(R8), Y10 // off
	MOVL         $1, AX
	VMOVD         AX, X9
	VPBROADCASTD X9, Y9      // 1
	VPXOR        Y5, Y5, Y5  // 0
	MOVL         $23, AX
	VMOVD         AX, X11
	VPBROADCASTD X11, Y11    // largest drop
	VMOVDQU      normBias<>(SB), Y7
	VMOVDQU      normLimit<>(SB), Y8

stoch2loop:
	CMPQ     R11, CX
	JAE      stoch2done
	VMOVDQU  (SI)(R11*4), Y0
	VPAND    absMask<>(SB), Y0, Y1 // a
	VPSRLD   $23, Y1, Y2
	VPADDD   Y15, Y2, Y2           // s
	VPSRAD   X14, Y2, Y2           // k
	VPADDD   Y13, Y2, Y3
	VPSUBD   Y2, Y12, Y2
	VPMAXSD  Y3, Y2, Y2            // drop
	VPCMPGTD Y11, Y2, Y4           // skip: drop > 23
	VPMAXSD  Y5, Y2, Y2
	VPADDD   Y7, Y1, Y3
	VPCMPGTD Y8, Y3, Y3            // skip: a not normal
	VPOR     Y3, Y4, Y4
	VPSLLVD  Y2, Y9, Y2
	VPSUBD   Y9, Y2, Y2            // low
	VPAND    (R12)(R11*4), Y2, Y3  // u&low
	VPADDD   Y10, Y1, Y6
	VPADDD   Y3, Y6, Y6
	VPANDN   Y6, Y2, Y6
	VPSUBD   Y10, Y6, Y6           // r
	VPADDD   Y7, Y6, Y3
	VPCMPGTD Y8, Y3, Y3            // skip: r not normal
	VPOR     Y3, Y4, Y4
	VPAND    signMask<>(SB), Y0, Y3
	VPOR     Y3, Y6, Y6
	VPBLENDVB Y4, Y0, Y6, Y6       // skipped lanes: x
	VMOVDQU  Y6, (DI)(R11*4)
	VMOVMSKPS Y4, AX
	TESTL    AX, AX
	JNZ      stoch2skip

stoch2next:
	ADDQ $8, R11
	JMP  stoch2loop

stoch2skip:
	BSFL AX, DX
	ADDL R11, DX
	MOVL DX, (R9)(R10*4)
	INCQ R10
	LEAL -1(AX), DX
	ANDL DX, AX
	JNZ  stoch2skip
	JMP  stoch2next

stoch2done:
	VZEROUPPER
	MOVQ R10, ret+48(FP)
	RET
