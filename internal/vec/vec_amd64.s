//go:build amd64 && !purego

#include "textflag.h"

// Every kernel runs whole vectors, then the last 1–7 (AVX2) or 1–15
// (AVX-512) elements: AVX2 one at a time (VMOVSS, the vector code on X
// registers), AVX-512 as one masked vector, whose masked-off lanes are
// neither loaded nor stored nor can fault. (AVX2's VMASKMOVPS would do
// for AVX2, but AMD leaves it to the implementation whether masked-off
// lanes fault, and a slice may end at an unmapped page.) So any length
// and alignment works. Each IEEE operation is the one the Go loop does,
// in the same order (no FMA).

// maxFinite<> is the bits of the largest finite float32.
DATA maxFinite<>+0(SB)/4, $0x7f7fffff
GLOBL maxFinite<>(SB), RODATA|NOPTR, $4

// KTAIL sets k to the mask of the first r lanes, 0 < r < 16; it
// clobbers BX.
#define KTAIL(r, k) \
	MOVL $1, BX; \
	SHLL r, BX; \
	DECL BX; \
	KMOVW BX, k

// APPLY sets p (R5) ← p - lr·m / (√v/sc2 + ε) from m (R1) and v (R3),
// with lr, sc2, ε in R13–R15; it clobbers R2, R4.
#define APPLY(R1, R2, R3, R4, R5, R13, R14, R15) \
	VSQRTPS R3, R4; \
	VDIVPS R14, R4, R4; \
	VADDPS R15, R4, R4; \
	VMULPS R13, R1, R2; \
	VDIVPS R4, R2, R2; \
	VSUBPS R2, R5, R5

// MOMENTS updates m (R1) and v (R3) from g (R0) as momentsGo does, with
// β1, 1-β1, β2, 1-β2 in R9–R12; it clobbers R2, R4. The first sources
// are gan.momentsKernel's, as in ADAM: they differ in m's sum.
#define MOMENTS(R0, R1, R2, R3, R4, R9, R10, R11, R12) \
	VMULPS R9, R1, R1; \
	VMULPS R0, R10, R2; \
	VADDPS R2, R1, R1; \
	VMULPS R11, R3, R3; \
	VMULPS R0, R12, R4; \
	VMULPS R0, R4, R4; \
	VADDPS R3, R4, R3

#define MOMENTSY MOMENTS(Y0, Y1, Y2, Y3, Y4, Y9, Y10, Y11, Y12)
#define MOMENTSX MOMENTS(X0, X1, X2, X3, X4, X9, X10, X11, X12)

// ADAM updates g (R0), m (R1), v (R3) and p (R5) as adamGo does, with
// inv, β1, 1-β1, β2, 1-β2, lr, sc2, ε in R8–R15; it clobbers R2, R4.
// ADAMY, ADAMZ and ADAMX name the Y, Z and X registers (X for the tail,
// one value in lane 0). Where an operation has two NaN operands, x86
// returns the first source's: the first sources are the ones Go chose
// for the scalar loops this replaces (gan.adamKernel inlined into
// Adam.Step, Go 1.26), so even NaN payloads stay as they were.
#define ADAM(R0, R1, R2, R3, R4, R5, R8, R9, R10, R11, R12, R13, R14, R15) \
	VMULPS R8, R0, R0; \
	VMULPS R9, R1, R1; \
	VMULPS R0, R10, R2; \
	VADDPS R1, R2, R1; \
	VMULPS R11, R3, R3; \
	VMULPS R0, R12, R4; \
	VMULPS R0, R4, R4; \
	VADDPS R3, R4, R3; \
	APPLY(R1, R2, R3, R4, R5, R13, R14, R15)

#define ADAMY ADAM(Y0, Y1, Y2, Y3, Y4, Y5, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
#define ADAMZ ADAM(Z0, Z1, Z2, Z3, Z4, Z5, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
#define ADAMX ADAM(X0, X1, X2, X3, X4, X5, X8, X9, X10, X11, X12, X13, X14, X15)

// func adamAVX2(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32)
TEXT ·adamAVX2(SB), NOSPLIT, $0-128
	MOVQ p_base+0(FP), DI
	MOVQ p_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ m_base+48(FP), R8
	MOVQ v_base+72(FP), R9
	VBROADCASTSS inv+96(FP), Y8
	VBROADCASTSS b1+100(FP), Y9
	VBROADCASTSS c1+104(FP), Y10
	VBROADCASTSS b2+108(FP), Y11
	VBROADCASTSS c2+112(FP), Y12
	VBROADCASTSS lr+116(FP), Y13
	VBROADCASTSS sc2+120(FP), Y14
	VBROADCASTSS eps+124(FP), Y15
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	JZ tail
loop:
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS (R8)(AX*4), Y1
	VMOVUPS (R9)(AX*4), Y3
	VMOVUPS (DI)(AX*4), Y5
	ADAMY
	VMOVUPS Y1, (R8)(AX*4)
	VMOVUPS Y3, (R9)(AX*4)
	VMOVUPS Y5, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VMOVSS (R8)(AX*4), X1
	VMOVSS (R9)(AX*4), X3
	VMOVSS (DI)(AX*4), X5
	ADAMX
	VMOVSS X1, (R8)(AX*4)
	VMOVSS X3, (R9)(AX*4)
	VMOVSS X5, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// func adamAVX512(p, g, m, v []float32, inv, b1, c1, b2, c2, lr, sc2, eps float32)
TEXT ·adamAVX512(SB), NOSPLIT, $0-128
	MOVQ p_base+0(FP), DI
	MOVQ p_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ m_base+48(FP), R8
	MOVQ v_base+72(FP), R9
	VBROADCASTSS inv+96(FP), Z8
	VBROADCASTSS b1+100(FP), Z9
	VBROADCASTSS c1+104(FP), Z10
	VBROADCASTSS b2+108(FP), Z11
	VBROADCASTSS c2+112(FP), Z12
	VBROADCASTSS lr+116(FP), Z13
	VBROADCASTSS sc2+120(FP), Z14
	VBROADCASTSS eps+124(FP), Z15
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~15, DX
	JZ tail
loop:
	VMOVUPS (SI)(AX*4), Z0
	VMOVUPS (R8)(AX*4), Z1
	VMOVUPS (R9)(AX*4), Z3
	VMOVUPS (DI)(AX*4), Z5
	ADAMZ
	VMOVUPS Z1, (R8)(AX*4)
	VMOVUPS Z3, (R9)(AX*4)
	VMOVUPS Z5, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, DX
	JB loop
tail:
	SUBQ AX, CX
	JZ done
	KTAIL(CX, K1)
	VMOVUPS.Z (SI)(AX*4), K1, Z0
	VMOVUPS.Z (R8)(AX*4), K1, Z1
	VMOVUPS.Z (R9)(AX*4), K1, Z3
	VMOVUPS.Z (DI)(AX*4), K1, Z5
	ADAMZ
	VMOVUPS Z1, K1, (R8)(AX*4)
	VMOVUPS Z3, K1, (R9)(AX*4)
	VMOVUPS Z5, K1, (DI)(AX*4)
done:
	VZEROUPPER
	RET

// func scaleAVX2(dst, x []float32, a float32)
TEXT ·scaleAVX2(SB), NOSPLIT, $0-52
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VBROADCASTSS a+48(FP), Y8
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~15, DX
	JZ tail8
loop:
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VMULPS Y8, Y0, Y0
	VMULPS Y8, Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, DX
	JB loop
tail8:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JA tail
	VMOVUPS (SI)(AX*4), Y0
	VMULPS Y8, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	MOVQ DX, AX
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VMULPS X8, X0, X0
	VMOVSS X0, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// func momentsAVX2(m, v, g []float32, b1, c1, b2, c2 float32)
TEXT ·momentsAVX2(SB), NOSPLIT, $0-88
	MOVQ m_base+0(FP), R8
	MOVQ m_len+8(FP), CX
	MOVQ v_base+24(FP), R9
	MOVQ g_base+48(FP), SI
	VBROADCASTSS b1+72(FP), Y9
	VBROADCASTSS c1+76(FP), Y10
	VBROADCASTSS b2+80(FP), Y11
	VBROADCASTSS c2+84(FP), Y12
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	JZ tail
loop:
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS (R8)(AX*4), Y1
	VMOVUPS (R9)(AX*4), Y3
	MOMENTSY
	VMOVUPS Y1, (R8)(AX*4)
	VMOVUPS Y3, (R9)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VMOVSS (R8)(AX*4), X1
	VMOVSS (R9)(AX*4), X3
	MOMENTSX
	VMOVSS X1, (R8)(AX*4)
	VMOVSS X3, (R9)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// func applyAVX2(p, m, v []float32, lr, sc2, eps float32)
TEXT ·applyAVX2(SB), NOSPLIT, $0-84
	MOVQ p_base+0(FP), DI
	MOVQ p_len+8(FP), CX
	MOVQ m_base+24(FP), R8
	MOVQ v_base+48(FP), R9
	VBROADCASTSS lr+72(FP), Y13
	VBROADCASTSS sc2+76(FP), Y14
	VBROADCASTSS eps+80(FP), Y15
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	JZ tail
loop:
	VMOVUPS (R8)(AX*4), Y1
	VMOVUPS (R9)(AX*4), Y3
	VMOVUPS (DI)(AX*4), Y5
	APPLY(Y1, Y2, Y3, Y4, Y5, Y13, Y14, Y15)
	VMOVUPS Y5, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (R8)(AX*4), X1
	VMOVSS (R9)(AX*4), X3
	VMOVSS (DI)(AX*4), X5
	APPLY(X1, X2, X3, X4, X5, X13, X14, X15)
	VMOVSS X5, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// func applyAVX512(p, m, v []float32, lr, sc2, eps float32)
TEXT ·applyAVX512(SB), NOSPLIT, $0-84
	MOVQ p_base+0(FP), DI
	MOVQ p_len+8(FP), CX
	MOVQ m_base+24(FP), R8
	MOVQ v_base+48(FP), R9
	VBROADCASTSS lr+72(FP), Z13
	VBROADCASTSS sc2+76(FP), Z14
	VBROADCASTSS eps+80(FP), Z15
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~15, DX
	JZ tail
loop:
	VMOVUPS (R8)(AX*4), Z1
	VMOVUPS (R9)(AX*4), Z3
	VMOVUPS (DI)(AX*4), Z5
	APPLY(Z1, Z2, Z3, Z4, Z5, Z13, Z14, Z15)
	VMOVUPS Z5, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, DX
	JB loop
tail:
	SUBQ AX, CX
	JZ done
	KTAIL(CX, K1)
	VMOVUPS.Z (R8)(AX*4), K1, Z1
	VMOVUPS.Z (R9)(AX*4), K1, Z3
	VMOVUPS.Z (DI)(AX*4), K1, Z5
	APPLY(Z1, Z2, Z3, Z4, Z5, Z13, Z14, Z15)
	VMOVUPS Z5, K1, (DI)(AX*4)
done:
	VZEROUPPER
	RET

// LEAKY sets d to s where x > 0 and to alpha·s elsewhere, with alpha
// in a and zero in z; it clobbers t. The compare is 0 < x (LT_OS),
// false for NaN.
#define LEAKY(s, x, d, t, a, z) \
	VMULPS s, a, d; \
	VCMPPS $1, x, z, t; \
	VBLENDVPS t, s, d, d

// func leakyAVX2(dst, x []float32, alpha float32)
TEXT ·leakyAVX2(SB), NOSPLIT, $0-52
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VBROADCASTSS alpha+48(FP), Y8
	VXORPS Y9, Y9, Y9
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	JZ tail
loop:
	VMOVUPS (SI)(AX*4), Y0
	LEAKY(Y0, Y0, Y1, Y2, Y8, Y9)
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	LEAKY(X0, X0, X1, X2, X8, X9)
	VMOVSS X1, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// func leakyBackAVX2(dst, dy, x []float32, alpha float32)
TEXT ·leakyBackAVX2(SB), NOSPLIT, $0-76
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ dy_base+24(FP), SI
	MOVQ x_base+48(FP), R8
	VBROADCASTSS alpha+72(FP), Y8
	VXORPS Y9, Y9, Y9
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	JZ tail
loop:
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS (R8)(AX*4), Y3
	LEAKY(Y0, Y3, Y1, Y2, Y8, Y9)
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
tail:
	CMPQ AX, CX
	JAE done
	VMOVSS (SI)(AX*4), X0
	VMOVSS (R8)(AX*4), X3
	LEAKY(X0, X3, X1, X2, X8, X9)
	VMOVSS X1, (DI)(AX*4)
	INCQ AX
	JMP tail
done:
	VZEROUPPER
	RET

// func countAVX2(x []float32, lo uint32) (ge, inf int)
// Per lane, with a = bits &^ sign: Y0 counts a > lo-1 and Y1 counts
// a > maxFinite, as signed compares (a, lo ≤ infBits < 2³¹; lo 0 makes
// lo-1 = -1, below every a). VPCMPGTD gives -1 where true: subtracting
// counts.
TEXT ·countAVX2(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VPCMPEQD Y8, Y8, Y8
	MOVL lo+24(FP), BX
	VMOVD BX, X9
	VPBROADCASTD X9, Y9
	VPADDD Y8, Y9, Y9
	VPSRLD $1, Y8, Y8
	VPBROADCASTD maxFinite<>(SB), Y10
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~7, DX
	JZ sum
loop:
	VPAND (SI)(AX*4), Y8, Y2
	VPCMPGTD Y9, Y2, Y3
	VPCMPGTD Y10, Y2, Y4
	VPSUBD Y3, Y0, Y0
	VPSUBD Y4, Y1, Y1
	ADDQ $8, AX
	CMPQ AX, DX
	JB loop
sum:
	// Sum the lanes into R12 (ge) and R13 (inf).
	VEXTRACTI128 $1, Y0, X2
	VPADDD X2, X0, X0
	VPSHUFD $0x4e, X0, X2
	VPADDD X2, X0, X0
	VPSHUFD $0xb1, X0, X2
	VPADDD X2, X0, X0
	VMOVD X0, R12
	VEXTRACTI128 $1, Y1, X2
	VPADDD X2, X1, X1
	VPSHUFD $0x4e, X1, X2
	VPADDD X2, X1, X1
	VPSHUFD $0xb1, X1, X2
	VPADDD X2, X1, X1
	VMOVD X1, R13
	// The last few, with unsigned compares of a with lo and infBits.
	MOVL lo+24(FP), BX
tail:
	CMPQ AX, CX
	JAE done
	MOVL (SI)(AX*4), R10
	ANDL $0x7fffffff, R10
	CMPL R10, BX
	JCS finite
	INCQ R12
	CMPL R10, $0x7f800000
	JCS finite
	INCQ R13
finite:
	INCQ AX
	JMP tail
done:
	MOVQ R12, ge+32(FP)
	MOVQ R13, inf+40(FP)
	VZEROUPPER
	RET
