//go:build amd64 && !purego && !openblas

#include "textflag.h"

// TOPKEY is the exponent part of convertRowAVX512's loop and tail: it
// folds the bits of the 16 float32s in Z0 (zeros in masked-off lanes)
// into top (Z14) and key (Z15), with 0x7fffffff, 2^23, 1 and 0 in
// Z10–Z13; it clobbers Z3–Z8.
#define TOPKEY \
	VPANDD Z10, Z0, Z3; \
	VPMAXUD Z3, Z14, Z14; \
	VPORD Z11, Z3, Z4; \
	VPSUBD Z4, Z13, Z5; \
	VPANDD Z5, Z4, Z5; \
	VCVTDQ2PS Z5, Z5; \
	VPSRLD $23, Z5, Z5; \
	VPSRLD $23, Z3, Z6; \
	VPADDD Z5, Z6, Z6; \
	VPSUBD Z12, Z3, Z7; \
	VPADDD Z11, Z3, Z8; \
	VPORD Z7, Z8, Z7; \
	VPSRLD $31, Z7, Z7; \
	VPSLLD $10, Z7, Z7; \
	VPADDD Z7, Z6, Z6; \
	VPMINUD Z6, Z15, Z15

// func convertRowAVX512(dst *float64, src *float32, n int) (top, key uint32)
// The row loop of convertRange (quire_kernel.go): dst[j] = src[j] for
// j < n, top = max b and key = min(b>>23 + 127 + tz(b|2^23) + none) over
// b = bits(src[j]) &^ sign, none = 2^10 for zeros and non-finite values.
// The +127 is convertKeyBias (quire_kernel.go): tz is read off the biased
// float32 exponent of the lowest set bit, and the key is returned with
// the bias in; convertRange takes it off.
TEXT ·convertRowAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z10
	MOVL $0x800000, AX
	VPBROADCASTD AX, Z11
	MOVL $1, AX
	VPBROADCASTD AX, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14   // top
	VPTERNLOGD $0xff, Z15, Z15, Z15 // key: all ones
	CMPQ CX, $16
	JLT tailc
loopc:
	VMOVUPS (SI), Z0
	VCVTPS2PD Y0, Z1
	VEXTRACTF64X4 $1, Z0, Y2
	VCVTPS2PD Y2, Z2
	VMOVUPD Z1, (DI)
	VMOVUPD Z2, 64(DI)
	TOPKEY
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $16, CX
	CMPQ CX, $16
	JGE loopc
tailc:
	TESTQ CX, CX
	JZ reducec
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	KSHIFTRW $8, K1, K2
	VMOVUPS.Z (SI), K1, Z0
	VCVTPS2PD Y0, Z1
	VEXTRACTF64X4 $1, Z0, Y2
	VCVTPS2PD Y2, Z2
	VMOVUPD Z1, K1, (DI)
	VMOVUPD Z2, K2, 64(DI)
	TOPKEY
reducec:
	VEXTRACTI64X4 $1, Z14, Y0
	VPMAXUD Y0, Y14, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, top+24(FP)
	VEXTRACTI64X4 $1, Z15, Y0
	VPMINUD Y0, Y15, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMINUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMINUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMINUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, key+28(FP) // with convertKeyBias in
	VZEROUPPER
	RET

// The loop and tail bodies of combineRowAVX512, on the 8 values in Z0
// (zeros in masked-off lanes): TOODD sets Y3 to them rounded to odd in
// float32, with the cut mask and its complement in Z11 and Z10; EXPS
// folds their biased exponents into emin (Z14, nonzero values only) and
// emax (Z15), with the magnitude mask in Z12. They clobber Z1, Z2, Z4
// and K1.
#define TOODD \
	VPANDQ Z10, Z0, Z1; \
	VPANDQ Z11, Z0, Z2; \
	VPADDQ Z11, Z2, Z2; \
	VPSRLQ $29, Z2, Z2; \
	VCVTPD2PS Z1, Y3; \
	VPMOVQD Z2, Y2; \
	VPOR Y2, Y3, Y3

#define EXPS \
	VPANDQ Z12, Z0, Z4; \
	VPTESTMQ Z4, Z4, K1; \
	VPSRLQ $52, Z4, Z4; \
	VPMINUQ Z4, Z14, K1, Z14; \
	VPMAXUQ Z4, Z15, Z15

// func combineRowAVX512(dst *float32, src *float64, n int) (emin, emax uint64)
// The row loop of combineOne (quire_kernel.go): dst[j] = src[j] rounded to
// odd in float32 (significand cut to 24 bits, the last bit set if anything
// was cut), and the least and greatest biased exponents of the nonzero
// src[j] (emin = 2^64-1 if there is none).
TEXT ·combineRowAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ $0x1fffffff, AX
	VPBROADCASTQ AX, Z11
	VPTERNLOGQ $0x55, Z11, Z11, Z10 // ^cut mask
	MOVQ $0x7fffffffffffffff, AX
	VPBROADCASTQ AX, Z12
	VPTERNLOGQ $0xff, Z14, Z14, Z14 // emin: all ones
	VPXORQ Z15, Z15, Z15            // emax
	CMPQ CX, $8
	JLT tailo
loopo:
	VMOVUPD (SI), Z0
	TOODD
	VMOVUPS Y3, (DI)
	EXPS
	ADDQ $64, SI
	ADDQ $32, DI
	SUBQ $8, CX
	CMPQ CX, $8
	JGE loopo
tailo:
	TESTQ CX, CX
	JZ reduceo
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K2
	VMOVUPD.Z (SI), K2, Z0
	TOODD
	VMOVUPS Z3, K2, (DI)
	EXPS
reduceo:
	VEXTRACTI64X4 $1, Z14, Y0
	VPMINUQ Z0, Z14, Z14
	VEXTRACTI128 $1, Y14, X0
	VPMINUQ Z0, Z14, Z14
	VPSHUFD $0x4e, X14, X0
	VPMINUQ Z0, Z14, Z14
	VMOVQ X14, emin+24(FP)
	VEXTRACTI64X4 $1, Z15, Y0
	VPMAXUQ Z0, Z15, Z15
	VEXTRACTI128 $1, Y15, X0
	VPMAXUQ Z0, Z15, Z15
	VPSHUFD $0x4e, X15, X0
	VPMAXUQ Z0, Z15, Z15
	VMOVQ X15, emax+32(FP)
	VZEROUPPER
	RET

// TOPKEY8 is TOPKEY on the 8 float32s in Y0, with 0x7fffffff, 2^23 and 1
// in Y10–Y12 and 0 in Y13, top in Y14 and key in Y15; it clobbers Y3–Y8.
#define TOPKEY8 \
	VPAND Y10, Y0, Y3; \
	VPMAXUD Y3, Y14, Y14; \
	VPOR Y11, Y3, Y4; \
	VPSUBD Y4, Y13, Y5; \
	VPAND Y5, Y4, Y5; \
	VCVTDQ2PS Y5, Y5; \
	VPSRLD $23, Y5, Y5; \
	VPSRLD $23, Y3, Y6; \
	VPADDD Y5, Y6, Y6; \
	VPSUBD Y12, Y3, Y7; \
	VPADDD Y11, Y3, Y8; \
	VPOR Y7, Y8, Y7; \
	VPSRLD $31, Y7, Y7; \
	VPSLLD $10, Y7, Y7; \
	VPADDD Y7, Y6, Y6; \
	VPMINUD Y6, Y15, Y15

// func convertRowAVX2(dst *float64, src *float32, n int) (top, key uint32)
// convertRowAVX512 on 8 lanes, for n a positive multiple of 8.
//
// The constants reach the vector registers by VMOVD and VMOVQ, not MOVD
// and MOVQ: those are legacy-SSE encodings, and one in this AVX code cost
// about 1.5 µs a call on the 2-core Sapphire Rapids VM (an SSE/AVX
// transition), 40 times the conversion of a 96-element row.
TEXT ·convertRowAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x7fffffff, AX
	VMOVD AX, X10
	VPBROADCASTD X10, Y10
	MOVL $0x800000, AX
	VMOVD AX, X11
	VPBROADCASTD X11, Y11
	MOVL $1, AX
	VMOVD AX, X12
	VPBROADCASTD X12, Y12
	VPXOR Y13, Y13, Y13
	VPXOR Y14, Y14, Y14     // top
	VPCMPEQD Y15, Y15, Y15  // key: all ones
loopc2:
	VMOVUPS (SI), Y0
	VCVTPS2PD X0, Y1
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD X2, Y2
	VMOVUPD Y1, (DI)
	VMOVUPD Y2, 32(DI)
	TOPKEY8
	ADDQ $32, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ loopc2
	VEXTRACTI128 $1, Y14, X0
	VPMAXUD X0, X14, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, top+24(FP)
	VEXTRACTI128 $1, Y15, X0
	VPMINUD X0, X15, X0
	VPSHUFD $0x4e, X0, X1
	VPMINUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMINUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, key+28(FP) // with convertKeyBias in
	VZEROUPPER
	RET

// func combineRowAVX2(dst *float32, src *float64, n int) (emin, emax uint64)
// combineRowAVX512 on 4 lanes, for n a positive multiple of 4, except
// that emin is 2048 where there is no nonzero value, and that values
// outside float32's normal range may round otherwise (combineOne rounds
// those rows from float64). The sticky bit is set in the float64 (bit
// 29, float32's last) before the conversion, which is then exact.
TEXT ·combineRowAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ $0x1fffffff, AX
	VMOVQ AX, X11
	VPBROADCASTQ X11, Y11 // cut mask
	MOVQ $0x20000000, AX
	VMOVQ AX, X10
	VPBROADCASTQ X10, Y10 // float32's last bit
	MOVQ $0x7fffffffffffffff, AX
	VMOVQ AX, X12
	VPBROADCASTQ X12, Y12 // magnitude mask
	MOVQ $0x800, AX
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13 // a zero's exponent for emin
	VMOVDQU Y13, Y14      // emin
	VPXOR Y15, Y15, Y15   // emax
	VPXOR Y9, Y9, Y9      // 0
loopo2:
	VMOVUPD (SI), Y0
	VPAND Y11, Y0, Y2
	VPADDQ Y11, Y2, Y2
	VPAND Y10, Y2, Y2     // sticky, at bit 29
	VPANDN Y0, Y11, Y1
	VPOR Y2, Y1, Y1
	VCVTPD2PSY Y1, X3
	VMOVUPS X3, (DI)
	VPAND Y12, Y0, Y4
	VPCMPEQQ Y9, Y4, Y5   // zero
	VPSRLQ $52, Y4, Y4
	VPAND Y13, Y5, Y5
	VPOR Y5, Y4, Y5       // exponent, 2048 for zeros
	VPCMPGTQ Y5, Y14, Y6
	VPBLENDVB Y6, Y5, Y14, Y14
	VPCMPGTQ Y15, Y4, Y6
	VPBLENDVB Y6, Y4, Y15, Y15
	ADDQ $32, SI
	ADDQ $16, DI
	SUBQ $4, CX
	JNZ loopo2
	VEXTRACTI128 $1, Y14, X0
	VPCMPGTQ X0, X14, X1
	VPBLENDVB X1, X0, X14, X14
	VPSHUFD $0x4e, X14, X0
	VPCMPGTQ X0, X14, X1
	VPBLENDVB X1, X0, X14, X14
	VMOVQ X14, emin+24(FP)
	VEXTRACTI128 $1, Y15, X0
	VPCMPGTQ X15, X0, X1
	VPBLENDVB X1, X0, X15, X15
	VPSHUFD $0x4e, X15, X0
	VPCMPGTQ X15, X0, X1
	VPBLENDVB X1, X0, X15, X15
	VMOVQ X15, emax+32(FP)
	VZEROUPPER
	RET
