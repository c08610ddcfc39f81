//go:build amd64 && !purego

#include "textflag.h"

// tanhc<> holds the float64 constants of tanhAVX2 and tanhAVX512, each
// four times (one Y register; AVX-512 broadcasts the first): from math's
// tanh (tanh.go) and its amd64 Exp (exp_amd64.s, whose literals these
// are, parsed).
DATA tanhc<>+0(SB)/8, $0x7fffffffffffffff
DATA tanhc<>+8(SB)/8, $0x7fffffffffffffff
DATA tanhc<>+16(SB)/8, $0x7fffffffffffffff
DATA tanhc<>+24(SB)/8, $0x7fffffffffffffff
DATA tanhc<>+32(SB)/8, $0x8000000000000000
DATA tanhc<>+40(SB)/8, $0x8000000000000000
DATA tanhc<>+48(SB)/8, $0x8000000000000000
DATA tanhc<>+56(SB)/8, $0x8000000000000000
DATA tanhc<>+64(SB)/8, $0x3ff0000000000000
DATA tanhc<>+72(SB)/8, $0x3ff0000000000000
DATA tanhc<>+80(SB)/8, $0x3ff0000000000000
DATA tanhc<>+88(SB)/8, $0x3ff0000000000000
DATA tanhc<>+96(SB)/8, $0x4000000000000000
DATA tanhc<>+104(SB)/8, $0x4000000000000000
DATA tanhc<>+112(SB)/8, $0x4000000000000000
DATA tanhc<>+120(SB)/8, $0x4000000000000000
DATA tanhc<>+128(SB)/8, $0x3fe4000000000000
DATA tanhc<>+136(SB)/8, $0x3fe4000000000000
DATA tanhc<>+144(SB)/8, $0x3fe4000000000000
DATA tanhc<>+152(SB)/8, $0x3fe4000000000000
DATA tanhc<>+160(SB)/8, $0x404601e678fc457b
DATA tanhc<>+168(SB)/8, $0x404601e678fc457b
DATA tanhc<>+176(SB)/8, $0x404601e678fc457b
DATA tanhc<>+184(SB)/8, $0x404601e678fc457b
DATA tanhc<>+192(SB)/8, $0x3ff71547652b82fe
DATA tanhc<>+200(SB)/8, $0x3ff71547652b82fe
DATA tanhc<>+208(SB)/8, $0x3ff71547652b82fe
DATA tanhc<>+216(SB)/8, $0x3ff71547652b82fe
DATA tanhc<>+224(SB)/8, $0x3fe62e42fefa3000
DATA tanhc<>+232(SB)/8, $0x3fe62e42fefa3000
DATA tanhc<>+240(SB)/8, $0x3fe62e42fefa3000
DATA tanhc<>+248(SB)/8, $0x3fe62e42fefa3000
DATA tanhc<>+256(SB)/8, $0x3d53de6af278ece6
DATA tanhc<>+264(SB)/8, $0x3d53de6af278ece6
DATA tanhc<>+272(SB)/8, $0x3d53de6af278ece6
DATA tanhc<>+280(SB)/8, $0x3d53de6af278ece6
DATA tanhc<>+288(SB)/8, $0x3fb0000000000000
DATA tanhc<>+296(SB)/8, $0x3fb0000000000000
DATA tanhc<>+304(SB)/8, $0x3fb0000000000000
DATA tanhc<>+312(SB)/8, $0x3fb0000000000000
DATA tanhc<>+320(SB)/8, $0x3efa01a01a01a01a
DATA tanhc<>+328(SB)/8, $0x3efa01a01a01a01a
DATA tanhc<>+336(SB)/8, $0x3efa01a01a01a01a
DATA tanhc<>+344(SB)/8, $0x3efa01a01a01a01a
DATA tanhc<>+352(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc<>+360(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc<>+368(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc<>+376(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc<>+384(SB)/8, $0x3f56c16c16c16c17
DATA tanhc<>+392(SB)/8, $0x3f56c16c16c16c17
DATA tanhc<>+400(SB)/8, $0x3f56c16c16c16c17
DATA tanhc<>+408(SB)/8, $0x3f56c16c16c16c17
DATA tanhc<>+416(SB)/8, $0x3f81111111111111
DATA tanhc<>+424(SB)/8, $0x3f81111111111111
DATA tanhc<>+432(SB)/8, $0x3f81111111111111
DATA tanhc<>+440(SB)/8, $0x3f81111111111111
DATA tanhc<>+448(SB)/8, $0x3fa5555555555555
DATA tanhc<>+456(SB)/8, $0x3fa5555555555555
DATA tanhc<>+464(SB)/8, $0x3fa5555555555555
DATA tanhc<>+472(SB)/8, $0x3fa5555555555555
DATA tanhc<>+480(SB)/8, $0x3fc5555555555555
DATA tanhc<>+488(SB)/8, $0x3fc5555555555555
DATA tanhc<>+496(SB)/8, $0x3fc5555555555555
DATA tanhc<>+504(SB)/8, $0x3fc5555555555555
DATA tanhc<>+512(SB)/8, $0x3fe0000000000000
DATA tanhc<>+520(SB)/8, $0x3fe0000000000000
DATA tanhc<>+528(SB)/8, $0x3fe0000000000000
DATA tanhc<>+536(SB)/8, $0x3fe0000000000000
DATA tanhc<>+544(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc<>+552(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc<>+560(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc<>+568(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc<>+576(SB)/8, $0xc058d26a0e26682d
DATA tanhc<>+584(SB)/8, $0xc058d26a0e26682d
DATA tanhc<>+592(SB)/8, $0xc058d26a0e26682d
DATA tanhc<>+600(SB)/8, $0xc058d26a0e26682d
DATA tanhc<>+608(SB)/8, $0xc0993ac030580563
DATA tanhc<>+616(SB)/8, $0xc0993ac030580563
DATA tanhc<>+624(SB)/8, $0xc0993ac030580563
DATA tanhc<>+632(SB)/8, $0xc0993ac030580563
DATA tanhc<>+640(SB)/8, $0x405c33f28a581b86
DATA tanhc<>+648(SB)/8, $0x405c33f28a581b86
DATA tanhc<>+656(SB)/8, $0x405c33f28a581b86
DATA tanhc<>+664(SB)/8, $0x405c33f28a581b86
DATA tanhc<>+672(SB)/8, $0x40a176fa0e5535fa
DATA tanhc<>+680(SB)/8, $0x40a176fa0e5535fa
DATA tanhc<>+688(SB)/8, $0x40a176fa0e5535fa
DATA tanhc<>+696(SB)/8, $0x40a176fa0e5535fa
DATA tanhc<>+704(SB)/8, $0x40b2ec102442040c
DATA tanhc<>+712(SB)/8, $0x40b2ec102442040c
DATA tanhc<>+720(SB)/8, $0x40b2ec102442040c
DATA tanhc<>+728(SB)/8, $0x40b2ec102442040c
DATA tanhc<>+736(SB)/8, $0x00000000000003ff
DATA tanhc<>+744(SB)/8, $0x00000000000003ff
DATA tanhc<>+752(SB)/8, $0x00000000000003ff
DATA tanhc<>+760(SB)/8, $0x00000000000003ff
GLOBL tanhc<>(SB), RODATA|NOPTR, $768

#define T_ABS tanhc<>+0(SB)
#define T_SIGN tanhc<>+32(SB)
#define T_ONE tanhc<>+64(SB)
#define T_TWO tanhc<>+96(SB)
#define T_MID tanhc<>+128(SB)
#define T_BIG tanhc<>+160(SB)
#define T_LOG2E tanhc<>+192(SB)
#define T_LN2U tanhc<>+224(SB)
#define T_LN2L tanhc<>+256(SB)
#define T_SIXTEENTH tanhc<>+288(SB)
#define T_E7 tanhc<>+320(SB)
#define T_E6 tanhc<>+352(SB)
#define T_E5 tanhc<>+384(SB)
#define T_E4 tanhc<>+416(SB)
#define T_E3 tanhc<>+448(SB)
#define T_E2 tanhc<>+480(SB)
#define T_HALF tanhc<>+512(SB)
#define T_P0 tanhc<>+544(SB)
#define T_P1 tanhc<>+576(SB)
#define T_P2 tanhc<>+608(SB)
#define T_Q0 tanhc<>+640(SB)
#define T_Q1 tanhc<>+672(SB)
#define T_Q2 tanhc<>+704(SB)
#define T_BIAS tanhc<>+736(SB)

// TANH sets Y7 to math.Tanh of the four float64 in Y0, operation for
// operation as math computes it on a CPU with FMA, every branch of tanh
// computed and the right one blended in per lane; it clobbers Y1–Y6.
//
//	|x| > MAXLOG/2:  ±1
//	|x| >= 0.625:    ±(1 - 2/(Exp(2|x|)+1))
//	x == 0:          x
//	otherwise:       x + x·s·P(s)/Q(s), s = x·x
//
// Exp is exp_amd64.s's FMA path for arguments in [1.25, 88.1], where it
// neither overflows nor goes subnormal: k = round(x·log2e);
// r = (x - k·ln2 in two fused parts)/16; r·(Taylor polynomial) squared up
// four times as r ← r·(r+2), the last one fused with the +1; times 2^k.
// Lanes whose branch is not taken may compute garbage (Inf, NaN, a wild
// 2^k); they are blended away, and exceptions are masked.
#define TANH \
	VANDPD T_ABS, Y0, Y1; \
	VADDPD Y1, Y1, Y2; \
	VMULPD T_LOG2E, Y2, Y3; \
	VCVTPD2DQY Y3, X4; \
	VCVTDQ2PD X4, Y3; \
	VFNMADD231PD T_LN2U, Y3, Y2; \
	VFNMADD231PD T_LN2L, Y3, Y2; \
	VMULPD T_SIXTEENTH, Y2, Y2; \
	VMOVUPD T_E7, Y5; \
	VFMADD213PD T_E6, Y2, Y5; \
	VFMADD213PD T_E5, Y2, Y5; \
	VFMADD213PD T_E4, Y2, Y5; \
	VFMADD213PD T_E3, Y2, Y5; \
	VFMADD213PD T_E2, Y2, Y5; \
	VFMADD213PD T_HALF, Y2, Y5; \
	VFMADD213PD T_ONE, Y2, Y5; \
	VMULPD Y5, Y2, Y2; \
	VADDPD T_TWO, Y2, Y5; \
	VMULPD Y5, Y2, Y2; \
	VADDPD T_TWO, Y2, Y5; \
	VMULPD Y5, Y2, Y2; \
	VADDPD T_TWO, Y2, Y5; \
	VMULPD Y5, Y2, Y2; \
	VADDPD T_TWO, Y2, Y5; \
	VFMADD213PD T_ONE, Y5, Y2; \
	VPMOVSXDQ X4, Y4; \
	VPADDQ T_BIAS, Y4, Y4; \
	VPSLLQ $52, Y4, Y4; \
	VMULPD Y4, Y2, Y2; \
	VADDPD T_ONE, Y2, Y2; \
	VMOVUPD T_TWO, Y5; \
	VDIVPD Y2, Y5, Y5; \
	VMOVUPD T_ONE, Y2; \
	VSUBPD Y5, Y2, Y2; \
	VANDPD T_SIGN, Y0, Y6; \
	VORPD Y6, Y2, Y2; \
	VMULPD Y0, Y0, Y3; \
	VMULPD T_P0, Y3, Y4; \
	VADDPD T_P1, Y4, Y4; \
	VMULPD Y3, Y4, Y4; \
	VADDPD T_P2, Y4, Y4; \
	VADDPD T_Q0, Y3, Y5; \
	VMULPD Y3, Y5, Y5; \
	VADDPD T_Q1, Y5, Y5; \
	VMULPD Y3, Y5, Y5; \
	VADDPD T_Q2, Y5, Y5; \
	VMULPD Y3, Y0, Y7; \
	VMULPD Y4, Y7, Y7; \
	VDIVPD Y5, Y7, Y7; \
	VADDPD Y7, Y0, Y7; \
	VCMPPD $0x1d, T_MID, Y1, Y3; \
	VBLENDVPD Y3, Y2, Y7, Y7; \
	VORPD T_ONE, Y6, Y4; \
	VCMPPD $0x1e, T_BIG, Y1, Y3; \
	VBLENDVPD Y3, Y4, Y7, Y7; \
	VXORPD Y5, Y5, Y5; \
	VCMPPD $0, Y5, Y0, Y3; \
	VBLENDVPD Y3, Y0, Y7, Y7

// func tanhAVX2(dst, x []float32)
// Four values at a time, as float64, then the last 1–3 one at a time (as
// in vec_amd64.s).
TEXT ·tanhAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~3, DX
	JZ tail
loop:
	VCVTPS2PD (SI)(AX*4), Y0
	TANH
	VCVTPD2PSY Y7, X7
	VMOVUPS X7, (DI)(AX*4)
	ADDQ $4, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VCVTPS2PD X0, Y0
	TANH
	VCVTPD2PSY Y7, X7
	VMOVSS X7, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// TANHZ is TANH on the eight float64 in Z0, result in Z7, clobbering
// Z1–Z6 and K2–K4: the same operations, constants broadcast from
// tanhc<>, blends as masked moves.
#define TANHZ \
	VPANDQ.BCST T_ABS, Z0, Z1; \
	VADDPD Z1, Z1, Z2; \
	VMULPD.BCST T_LOG2E, Z2, Z3; \
	VCVTPD2DQ Z3, Y4; \
	VCVTDQ2PD Y4, Z3; \
	VFNMADD231PD.BCST T_LN2U, Z3, Z2; \
	VFNMADD231PD.BCST T_LN2L, Z3, Z2; \
	VMULPD.BCST T_SIXTEENTH, Z2, Z2; \
	VBROADCASTSD T_E7, Z5; \
	VFMADD213PD.BCST T_E6, Z2, Z5; \
	VFMADD213PD.BCST T_E5, Z2, Z5; \
	VFMADD213PD.BCST T_E4, Z2, Z5; \
	VFMADD213PD.BCST T_E3, Z2, Z5; \
	VFMADD213PD.BCST T_E2, Z2, Z5; \
	VFMADD213PD.BCST T_HALF, Z2, Z5; \
	VFMADD213PD.BCST T_ONE, Z2, Z5; \
	VMULPD Z5, Z2, Z2; \
	VADDPD.BCST T_TWO, Z2, Z5; \
	VMULPD Z5, Z2, Z2; \
	VADDPD.BCST T_TWO, Z2, Z5; \
	VMULPD Z5, Z2, Z2; \
	VADDPD.BCST T_TWO, Z2, Z5; \
	VMULPD Z5, Z2, Z2; \
	VADDPD.BCST T_TWO, Z2, Z5; \
	VFMADD213PD.BCST T_ONE, Z5, Z2; \
	VPMOVSXDQ Y4, Z4; \
	VPADDQ.BCST T_BIAS, Z4, Z4; \
	VPSLLQ $52, Z4, Z4; \
	VMULPD Z4, Z2, Z2; \
	VADDPD.BCST T_ONE, Z2, Z2; \
	VBROADCASTSD T_TWO, Z5; \
	VDIVPD Z2, Z5, Z5; \
	VBROADCASTSD T_ONE, Z2; \
	VSUBPD Z5, Z2, Z2; \
	VPANDQ.BCST T_SIGN, Z0, Z6; \
	VPORQ Z6, Z2, Z2; \
	VMULPD Z0, Z0, Z3; \
	VMULPD.BCST T_P0, Z3, Z4; \
	VADDPD.BCST T_P1, Z4, Z4; \
	VMULPD Z3, Z4, Z4; \
	VADDPD.BCST T_P2, Z4, Z4; \
	VADDPD.BCST T_Q0, Z3, Z5; \
	VMULPD Z3, Z5, Z5; \
	VADDPD.BCST T_Q1, Z5, Z5; \
	VMULPD Z3, Z5, Z5; \
	VADDPD.BCST T_Q2, Z5, Z5; \
	VMULPD Z3, Z0, Z7; \
	VMULPD Z4, Z7, Z7; \
	VDIVPD Z5, Z7, Z7; \
	VADDPD Z7, Z0, Z7; \
	VCMPPD.BCST $0x1d, T_MID, Z1, K2; \
	VMOVAPD Z2, K2, Z7; \
	VPORQ.BCST T_ONE, Z6, Z4; \
	VCMPPD.BCST $0x1e, T_BIG, Z1, K3; \
	VMOVAPD Z4, K3, Z7; \
	VPXORQ Z5, Z5, Z5; \
	VCMPPD $0, Z5, Z0, K4; \
	VMOVAPD Z0, K4, Z7

// func tanhAVX512(dst, x []float32)
// Eight values at a time, as float64, then the last 1–7 one at a time
// with TANH.
TEXT ·tanhAVX512(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	JZ tail
loop:
	VCVTPS2PD (SI)(AX*4), Z0
	TANHZ
	VCVTPD2PS Z7, Y7
	VMOVUPS Y7, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VCVTPS2PD X0, Y0
	TANH
	VCVTPD2PSY Y7, X7
	VMOVSS X7, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET
