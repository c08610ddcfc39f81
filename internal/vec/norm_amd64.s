//go:build amd64 && !purego

#include "textflag.h"

// The norm kernels: float32 in and out, float64 within, four values to a
// Y register. One value at a time with the scalar instructions until x̂
// is 32-byte aligned (vector accesses that straddle cache lines cost
// more than the kernel saves on planes of training size, which start
// anywhere: a 7×7 plane of x̂ is 392 bytes), then whole blocks of eight,
// then the last 1–7 one at a time, so any length and alignment works and
// nothing is touched past the end. Each IEEE operation is the one the Go
// loop does, in the same order (no FMA), with the same first source,
// which x86 returns when both operands are NaN.

// NORMFWD sets R0 ← (R0 - mean)·inv (x̂) and R1 ← x̂·γ + β, with mean,
// inv, γ, β in M, I, G, B, four values a register; NORMFWDS one, with
// the scalar instructions.
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

// func normForwardAVX2(y []float32, xhat []float64, x []float32, mean, inv, gamma, beta float64)
TEXT ·normForwardAVX2(SB), NOSPLIT, $0-104
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ xhat_base+24(FP), R8
	MOVQ x_base+48(FP), SI
	VBROADCASTSD mean+72(FP), Y8
	VBROADCASTSD inv+80(FP), Y9
	VBROADCASTSD gamma+88(FP), Y10
	VBROADCASTSD beta+96(FP), Y11
	XORQ AX, AX
head:
	CMPQ AX, CX
	JAE done
	LEAQ (R8)(AX*8), BX
	TESTQ $31, BX
	JZ body
	VMOVSS (SI)(AX*4), X0
	VCVTSS2SD X0, X0, X0
	NORMFWDS(X0, X1, X8, X9, X10, X11)
	VMOVSD X0, (R8)(AX*8)
	VCVTSD2SS X1, X1, X1
	VMOVSS X1, (DI)(AX*4)
	INCQ AX
	JMP head
body:
	MOVQ CX, DX
	SUBQ AX, DX
	ANDQ $~7, DX
	ADDQ AX, DX
	CMPQ AX, DX
	JAE tail
loop:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y2
	NORMFWD(Y0, Y1, Y8, Y9, Y10, Y11)
	NORMFWD(Y2, Y3, Y8, Y9, Y10, Y11)
	VMOVUPD Y0, (R8)(AX*8)
	VMOVUPD Y2, 32(R8)(AX*8)
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
	VMOVSD X0, (R8)(AX*8)
	VCVTSD2SS X1, X1, X1
	VMOVSS X1, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// NORMBACK sets R0 ← ((R0·m - s) - R1·sx)·f from dy (R0) and x̂ (R1),
// with m, s, sx, f in M, S, SX, F; NORMBACKS as NORMFWDS.
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

// func normBackXAVX2(dx, dy []float32, xhat []float64, m, s, sx, f float64)
TEXT ·normBackXAVX2(SB), NOSPLIT, $0-104
	MOVQ dx_base+0(FP), DI
	MOVQ dx_len+8(FP), CX
	MOVQ dy_base+24(FP), SI
	MOVQ xhat_base+48(FP), R8
	VBROADCASTSD m+72(FP), Y8
	VBROADCASTSD s+80(FP), Y9
	VBROADCASTSD sx+88(FP), Y10
	VBROADCASTSD f+96(FP), Y11
	XORQ AX, AX
head:
	CMPQ AX, CX
	JAE done
	LEAQ (R8)(AX*8), BX
	TESTQ $31, BX
	JZ body
	VMOVSS (SI)(AX*4), X0
	VCVTSS2SD X0, X0, X0
	VMOVSD (R8)(AX*8), X1
	NORMBACKS(X0, X1, X8, X9, X10, X11)
	VCVTSD2SS X0, X0, X0
	VMOVSS X0, (DI)(AX*4)
	INCQ AX
	JMP head
body:
	MOVQ CX, DX
	SUBQ AX, DX
	ANDQ $~7, DX
	ADDQ AX, DX
	CMPQ AX, DX
	JAE tail
loop:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y2
	VMOVUPD (R8)(AX*8), Y1
	VMOVUPD 32(R8)(AX*8), Y3
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
	VMOVSD (R8)(AX*8), X1
	NORMBACKS(X0, X1, X8, X9, X10, X11)
	VCVTSD2SS X0, X0, X0
	VMOVSS X0, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET
