//go:build amd64 && !purego

#include "textflag.h"

// The N:M weight mask kernels of sparse_kernel.go, AVX-512 F. A chunk is
// 16 values; the last chunk of a call is cut with a lane mask (K1), whose
// lanes off the end are neither loaded nor stored.

// TAIL sets K1 to the lanes of the chunk at R11 that lie before R12
// (all 16, or the 1..15 left), or jumps to done if none is left.
#define TAIL(body, done) \
	MOVQ   R12, CX; \
	SUBQ   R11, CX; \
	JLE    done; \
	KXNORW K1, K1, K1; \
	CMPQ   CX, $16; \
	JAE    body; \
	MOVL   $1, AX; \
	SHLL   CX, AX; \
	DECL   AX; \
	KMOVW  AX, K1

// KEYS sets Z8 to |Z0|'s bits and Z1 to the keys of Z0's values: |w|'s
// bits plus one, 0 for NaN (which scores as −∞).
#define KEYS \
	VPANDD  Z20, Z0, Z8; \
	VPCMPUD $6, Z21, Z8, K2; \
	VPADDD  Z22, Z8, Z1; \
	VPXORD  Z1, Z1, K2, Z1

// ROT1 sets the ranks Z2 to 1 where the value a rotation (lanes idx, tie
// lanes tie) brings beats the lane's own, 0 elsewhere; ROT adds that.
#define ROT1(idx, tie) \
	VPERMD      Z1, idx, Z4; \
	VPSUBD      tie, Z1, Z5; \
	VPCMPGTD    Z5, Z4, K4; \
	VMOVDQA32.Z Z22, K4, Z2

#define ROT(idx, tie) \
	VPERMD   Z1, idx, Z4; \
	VPSUBD   tie, Z1, Z5; \
	VPCMPGTD Z5, Z4, K4; \
	VPADDD   Z22, Z2, K4, Z2

// STORE16 stores the 16 values of a whole chunk at R11: y (the kept
// values, +0 elsewhere), keep, and counts the kept ones not ±0 in R13.
#define STORE16 \
	VPCMPD      $1, Z24, Z2, K5; \
	VMOVDQU32.Z Z0, K5, Z6; \
	VMOVDQU32   Z6, (R8)(R11*4); \
	VPTESTMD    Z8, Z8, K5, K6; \
	KMOVW       K6, AX; \
	POPCNTL     AX, AX; \
	ADDQ        AX, R13; \
	VMOVDQA32.Z Z22, K5, Z7; \
	VPMOVDB     Z7, X7; \
	VMOVDQU     X7, (DI)(R11*1); \
	ADDQ        $16, R11

// func maskAbsAVX512(keep *bool, y, w *float32, n int, t *maskTable) (nonzero int)
//
// A value's key is |w|'s bits plus one (0 for NaN, which scores as −∞;
// −1 for the lanes off the end, below every value); its rank is the
// number of values of its block that beat it: a larger key, or an equal
// key at a lower index (the table's tie lanes compare with key − 1).
// Values of rank < N are kept. R13 counts the kept values that are not
// ±0. Whole chunks of blocks of 2 and 4 (one and three rotations) keep
// the table in registers; the others, and the last, cut chunk, loop
// over it.
TEXT ·maskAbsAVX512(SB), NOSPLIT, $0-48
	MOVQ keep+0(FP), DI
	MOVQ y+8(FP), R8
	MOVQ w+16(FP), SI
	MOVQ n+24(FP), R12
	MOVQ t+32(FP), R9

	MOVL         $0x7fffffff, AX
	VPBROADCASTD AX, Z20            // |x| mask
	MOVL         $0x7f800000, AX
	VPBROADCASTD AX, Z21            // +Inf
	MOVL         $1, AX
	VPBROADCASTD AX, Z22            // 1
	VPTERNLOGD   $0xff, Z23, Z23, Z23 // −1
	VPBROADCASTD 1920(R9), Z24      // N
	MOVL         1924(R9), BX       // rotations
	VMOVDQU32    0(R9), Z10
	VMOVDQU32    64(R9), Z11
	VMOVDQU32    128(R9), Z12
	VMOVDQU32    192(R9), Z13
	VMOVDQU32    256(R9), Z14
	VMOVDQU32    320(R9), Z15
	XORQ         R11, R11
	XORQ         R13, R13
	MOVQ         R12, R14
	ANDQ         $~15, R14          // end of the whole chunks
	CMPL         BX, $1
	JEQ          loop2
	CMPL         BX, $3
	JEQ          loop4

loopany:
	CMPQ      R11, R14
	JAE       tail
	VMOVDQU32 (SI)(R11*4), Z0
	KEYS
	ROT1(Z10, Z11)
	LEAQ      128(R9), R10
	LEAL      -1(BX), DX

rotany:
	VMOVDQU32 (R10), Z3
	ROT(Z3, 64(R10))
	ADDQ      $128, R10
	DECL      DX
	JNZ       rotany
	STORE16
	JMP       loopany

loop2:
	CMPQ      R11, R14
	JAE       tail
	VMOVDQU32 (SI)(R11*4), Z0
	KEYS
	ROT1(Z10, Z11)
	STORE16
	JMP       loop2

loop4:
	CMPQ      R11, R14
	JAE       tail
	VMOVDQU32 (SI)(R11*4), Z0
	KEYS
	ROT1(Z10, Z11)
	ROT(Z12, Z13)
	ROT(Z14, Z15)
	STORE16
	JMP       loop4

	// The cut chunk: lanes K1 hold values, the others key −1.
tail:
	MOVQ        R12, CX
	SUBQ        R11, CX
	JLE         done
	MOVL        $1, AX
	SHLL        CX, AX
	DECL        AX
	KMOVW       AX, K1
	VMOVDQU32.Z (SI)(R11*4), K1, Z0
	KEYS
	KNOTW       K1, K3
	VMOVDQA32   Z23, K3, Z1
	VPXORD      Z2, Z2, Z2
	MOVQ        R9, R10
	MOVL        BX, DX

rottail:
	VMOVDQU32 (R10), Z3
	ROT(Z3, 64(R10))
	ADDQ      $128, R10
	DECL      DX
	JNZ       rottail

	VPCMPD      $1, Z24, Z2, K1, K5
	VMOVDQU32.Z Z0, K5, Z6
	VMOVDQU32   Z6, K1, (R8)(R11*4)
	VPTESTMD    Z8, Z8, K5, K6
	KMOVW       K6, AX
	POPCNTL     AX, AX
	ADDQ        AX, R13
	VMOVDQA32.Z Z22, K5, Z7
	VPMOVDB     Z7, K1, (DI)(R11*1)

done:
	VZEROUPPER
	MOVQ R13, nonzero+40(FP)
	RET

// func applyMaskAVX512(dst, src *float32, keep *bool, n int)
TEXT ·applyMaskAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ keep+16(FP), R8
	MOVQ n+24(FP), R12
	XORQ R11, R11

applyloop:
	TAIL(applybody, applydone)

applybody:
	VPMOVZXBD.Z (R8)(R11*1), K1, Z1
	VPTESTMD    Z1, Z1, K1, K2
	VMOVDQU32.Z (SI)(R11*4), K2, Z0
	VMOVDQU32   Z0, K1, (DI)(R11*4)
	ADDQ        $16, R11
	JMP         applyloop

applydone:
	VZEROUPPER
	RET

// The AVX2 kernels: a chunk of 16 values is two 8-lane halves, lo and
// hi; the Go side pads the last, cut chunk, so n is a multiple of 16
// (of 8 for applyMaskAVX2).

// KEYS8 sets abs to |w|'s bits and key to the keys of w: |w|'s bits plus
// one, 0 for NaN.
#define KEYS8(w, abs, key) \
	VPAND    Y12, w, abs; \
	VPADDD   Y14, abs, key; \
	VPCMPGTD Y13, abs, Y10; \
	VPANDN   key, Y10, key

// ROT8 adds −1 to the ranks rank of a half (keys key) where the value the
// rotation's lanes at idx bring beats the lane's own (tie lanes at tie).
// Blocks of up to 8 stay within a half, so the half's own keys suffice.
#define ROT8(key, idx, tie, rank) \
	VMOVDQU  idx, Y8; \
	VPERMD   key, Y8, Y8; \
	VPSUBD   tie, key, Y9; \
	VPCMPGTD Y9, Y8, Y8; \
	VPADDD   Y8, rank, rank

// ROT16 is ROT8 for blocks of 16: the value comes from the half that bit
// 3 of its lane index names.
#define ROT16(key, idx, tie, rank) \
	VMOVDQU   idx, Y8; \
	VPERMD    Y4, Y8, Y9; \
	VPERMD    Y5, Y8, Y11; \
	VPSLLD    $28, Y8, Y8; \
	VBLENDVPS Y8, Y11, Y9, Y9; \
	VPSUBD    tie, key, Y8; \
	VPCMPGTD  Y8, Y9, Y9; \
	VPADDD    Y9, rank, rank

// ROTS is ROT8 for blocks of 2 and 4, both halves: they lie within the
// 128-bit lanes, so the rotation is an in-lane shuffle (imm), and the
// tie lanes of the low half serve the high one.
#define ROTS(imm, tie) \
	VPSHUFD  imm, Y4, Y8; \
	VPSUBD   tie, Y4, Y9; \
	VPCMPGTD Y9, Y8, Y8; \
	VPADDD   Y8, Y6, Y6; \
	VPSHUFD  imm, Y5, Y10; \
	VPSUBD   tie, Y5, Y11; \
	VPCMPGTD Y11, Y10, Y10; \
	VPADDD   Y10, Y7, Y7

// func maskAbsAVX2(keep *bool, y, w *float32, n int, t *maskTable) (nonzero int)
//
// Keys and ranks as in maskAbsAVX512, the ranks counted down from 0: a
// value is kept where its rank is above −N. Y0, Y1 hold the chunk's
// values, Y2, Y3 their |w| bits, Y4, Y5 their keys, Y6, Y7 their ranks.
TEXT ·maskAbsAVX2(SB), NOSPLIT, $0-48
	MOVQ keep+0(FP), DI
	MOVQ y+8(FP), R8
	MOVQ w+16(FP), SI
	MOVQ n+24(FP), R12
	MOVQ t+32(FP), R9

	MOVL         $0x7fffffff, AX
	VMOVD        AX, X12
	VPBROADCASTD X12, Y12        // |x| mask
	MOVL         $0x7f800000, AX
	VMOVD        AX, X13
	VPBROADCASTD X13, Y13        // +Inf
	MOVL         $1, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14        // 1
	MOVL         1920(R9), AX
	NEGL         AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15        // −N
	MOVL         1924(R9), BX    // rotations
	XORQ         R11, R11
	XORQ         R13, R13

loop8:
	CMPQ    R11, R12
	JAE     done8
	VMOVDQU (SI)(R11*4), Y0
	VMOVDQU 32(SI)(R11*4), Y1
	KEYS8(Y0, Y2, Y4)
	KEYS8(Y1, Y3, Y5)
	VPXOR   Y6, Y6, Y6
	VPXOR   Y7, Y7, Y7
	MOVQ    R9, R10
	MOVL    BX, DX
	CMPL    BX, $1
	JEQ     rot2
	CMPL    BX, $3
	JEQ     rot4
	CMPL    BX, $15
	JEQ     rot16

rot8:
	ROT8(Y4, (R10), 64(R10), Y6)
	ROT8(Y5, 32(R10), 96(R10), Y7)
	ADDQ $128, R10
	DECL DX
	JNZ  rot8
	JMP  store8

rot2:
	ROTS($0xb1, 64(R9))
	JMP store8

rot4:
	ROTS($0x39, 64(R9))
	ROTS($0x4e, 192(R9))
	ROTS($0x93, 320(R9))
	JMP store8

rot16:
	ROT16(Y4, (R10), 64(R10), Y6)
	ROT16(Y5, 32(R10), 96(R10), Y7)
	ADDQ $128, R10
	DECL DX
	JNZ  rot16

	// Y6, Y7 become the keep lanes (all ones); y is w there, +0
	// elsewhere; the kept lanes whose |w| bits are not 0 are counted;
	// keep's bytes are the lanes packed to 0 or 1.
store8:
	VPCMPGTD    Y15, Y6, Y6
	VPCMPGTD    Y15, Y7, Y7
	VPAND       Y0, Y6, Y8
	VPAND       Y1, Y7, Y9
	VMOVDQU     Y8, (R8)(R11*4)
	VMOVDQU     Y9, 32(R8)(R11*4)
	VPXOR       Y10, Y10, Y10
	VPCMPEQD    Y10, Y2, Y8
	VPANDN      Y6, Y8, Y8
	VMOVMSKPS   Y8, AX
	POPCNTL     AX, AX
	ADDQ        AX, R13
	VPCMPEQD    Y10, Y3, Y9
	VPANDN      Y7, Y9, Y9
	VMOVMSKPS   Y9, AX
	POPCNTL     AX, AX
	ADDQ        AX, R13
	VPACKSSDW   Y7, Y6, Y8
	VPERMQ      $0xd8, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPACKSSWB   X9, X8, X8
	VPABSB      X8, X8
	VMOVDQU     X8, (DI)(R11*1)
	ADDQ        $16, R11
	JMP         loop8

done8:
	VZEROUPPER
	MOVQ R13, nonzero+40(FP)
	RET

// func applyMaskAVX2(dst, src *float32, keep *bool, n int)
TEXT ·applyMaskAVX2(SB), NOSPLIT, $0-32
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  keep+16(FP), R8
	MOVQ  n+24(FP), R12
	XORQ  R11, R11
	VPXOR Y2, Y2, Y2

apply8:
	CMPQ      R11, R12
	JAE       apply8done
	VPMOVZXBD (R8)(R11*1), Y1
	VPCMPEQD  Y2, Y1, Y1
	VPANDN    (SI)(R11*4), Y1, Y0
	VMOVDQU   Y0, (DI)(R11*4)
	ADDQ      $8, R11
	JMP       apply8

apply8done:
	VZEROUPPER
	RET
