//go:build amd64 && !purego

#include "textflag.h"

// NormAffine and NormBackXFrom: the IEEE operations of the portable
// kernels in the same order, no FMA, with x̂ recomputed from x and kept
// in no memory. Blocks of
// eight, then the last 1–7 one at a time; float32 data only, so no
// alignment head (a 16-byte load straddles a cache line a quarter of the
// time at worst).

#define NORMFWD(R0, R1, M, I, G, B) \
	VSUBPD M, R0, R0; \
	VMULPD I, R0, R0; \
	VMULPD G, R0, R1; \
	VADDPD B, R1, R1

#define NORMFWDS(R0, R1, M, I, G, B) \
	VSUBSD M, R0, R0; \
	VMULSD I, R0, R0; \
	VMULSD G, R0, R1; \
	VADDSD B, R1, R1

// func normAffineAVX2(y, x []float32, mean, inv, gamma, beta float64)
TEXT ·normAffineAVX2(SB), NOSPLIT, $0-80
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VBROADCASTSD mean+48(FP), Y8
	VBROADCASTSD inv+56(FP), Y9
	VBROADCASTSD gamma+64(FP), Y10
	VBROADCASTSD beta+72(FP), Y11
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	CMPQ AX, DX
	JAE tail
loop:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y2
	NORMFWD(Y0, Y1, Y8, Y9, Y10, Y11)
	NORMFWD(Y2, Y3, Y8, Y9, Y10, Y11)
	VCVTPD2PSY Y1, X1
	VCVTPD2PSY Y3, X3
	VMOVUPS X1, (DI)(AX*4)
	VMOVUPS X3, 16(DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VCVTSS2SD X0, X0, X0
	NORMFWDS(X0, X1, X8, X9, X10, X11)
	VCVTSD2SS X1, X1, X1
	VMOVSS X1, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// XHAT sets R ← (R - mean)·inv, with mean, inv in M, I; XHATS one value.
#define XHAT(R, M, I) \
	VSUBPD M, R, R; \
	VMULPD I, R, R

#define XHATS(R, M, I) \
	VSUBSD M, R, R; \
	VMULSD I, R, R

#define NORMBACK(R0, R1, M, S, SX, F) \
	VMULPD M, R0, R0; \
	VSUBPD S, R0, R0; \
	VMULPD SX, R1, R1; \
	VSUBPD R1, R0, R0; \
	VMULPD F, R0, R0

#define NORMBACKS(R0, R1, M, S, SX, F) \
	VMULSD M, R0, R0; \
	VSUBSD S, R0, R0; \
	VMULSD SX, R1, R1; \
	VSUBSD R1, R0, R0; \
	VMULSD F, R0, R0

// func normBackXFromAVX2(dx, dy, x []float32, mean, inv, m, s, sx, f float64)
TEXT ·normBackXFromAVX2(SB), NOSPLIT, $0-120
	MOVQ dx_base+0(FP), DI
	MOVQ dx_len+8(FP), CX
	MOVQ dy_base+24(FP), SI
	MOVQ x_base+48(FP), R8
	VBROADCASTSD mean+72(FP), Y6
	VBROADCASTSD inv+80(FP), Y7
	VBROADCASTSD m+88(FP), Y8
	VBROADCASTSD s+96(FP), Y9
	VBROADCASTSD sx+104(FP), Y10
	VBROADCASTSD f+112(FP), Y11
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	CMPQ AX, DX
	JAE tail
loop:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y2
	VCVTPS2PD (R8)(AX*4), Y1
	VCVTPS2PD 16(R8)(AX*4), Y3
	XHAT(Y1, Y6, Y7)
	XHAT(Y3, Y6, Y7)
	NORMBACK(Y0, Y1, Y8, Y9, Y10, Y11)
	NORMBACK(Y2, Y3, Y8, Y9, Y10, Y11)
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y2, X2
	VMOVUPS X0, (DI)(AX*4)
	VMOVUPS X2, 16(DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VCVTSS2SD X0, X0, X0
	VMOVSS (R8)(AX*4), X1
	VCVTSS2SD X1, X1, X1
	XHATS(X1, X6, X7)
	NORMBACKS(X0, X1, X8, X9, X10, X11)
	VCVTSD2SS X0, X0, X0
	VMOVSS X0, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// func normSumDot4AVX2(n int, p *[8]*float32, mu, inv, s, sx *[4]float64)
// One element of each of the four channels a step, a channel a lane
// (gathered with VINSERTPS), so that each lane's adds are its channel's
// chain in element order.
TEXT ·normSumDot4AVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ p+8(FP), BX
	MOVQ 0(BX), SI
	MOVQ 8(BX), DI
	MOVQ 16(BX), R8
	MOVQ 24(BX), R9
	MOVQ 32(BX), R10
	MOVQ 40(BX), R11
	MOVQ 48(BX), R12
	MOVQ 56(BX), R13
	MOVQ mu+16(FP), BX
	VMOVUPD (BX), Y6
	MOVQ inv+24(FP), BX
	VMOVUPD (BX), Y7
	MOVQ s+32(FP), BX
	VMOVUPD (BX), Y2
	MOVQ sx+40(FP), DX
	VMOVUPD (DX), Y4
	XORQ AX, AX
loop:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VINSERTPS $0x10, (DI)(AX*4), X0, X0
	VINSERTPS $0x20, (R8)(AX*4), X0, X0
	VINSERTPS $0x30, (R9)(AX*4), X0, X0
	VMOVSS (R10)(AX*4), X1
	VINSERTPS $0x10, (R11)(AX*4), X1, X1
	VINSERTPS $0x20, (R12)(AX*4), X1, X1
	VINSERTPS $0x30, (R13)(AX*4), X1, X1
	VCVTPS2PD X0, Y0
	VCVTPS2PD X1, Y1
	XHAT(Y1, Y6, Y7)
	VADDPD Y0, Y2, Y2
	VMULPD Y1, Y0, Y3
	VADDPD Y3, Y4, Y4
	INCQ AX
	JMP loop
done:
	VMOVUPD Y2, (BX)
	VMOVUPD Y4, (DX)
	VZEROUPPER
	RET
