//go:build amd64 && !purego

#include "textflag.h"

// laneBits<> is bit i in lane i.
DATA laneBits<>+0(SB)/4, $1
DATA laneBits<>+4(SB)/4, $2
DATA laneBits<>+8(SB)/4, $4
DATA laneBits<>+12(SB)/4, $8
DATA laneBits<>+16(SB)/4, $16
DATA laneBits<>+20(SB)/4, $32
DATA laneBits<>+24(SB)/4, $64
DATA laneBits<>+28(SB)/4, $128
GLOBL laneBits<>(SB), RODATA|NOPTR, $32

// func leakySignAVX2(dst []float32, pos []uint8, x []float32, alpha float32)
// len(dst) is a positive multiple of 8. As leakyAVX2, with the compare
// 0 < x (LT_OS, false for NaN) also stored as a byte of lane bits.
TEXT ·leakySignAVX2(SB), NOSPLIT, $0-76
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ pos_base+24(FP), R8
	MOVQ x_base+48(FP), SI
	VBROADCASTSS alpha+72(FP), Y8
	VXORPS Y9, Y9, Y9
	XORQ AX, AX
sloop:
	VMOVUPS (SI)(AX*4), Y0
	VMULPS Y0, Y8, Y1
	VCMPPS $1, Y0, Y9, Y2
	VBLENDVPS Y2, Y0, Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	VMOVMSKPS Y2, BX
	MOVB BX, (R8)
	INCQ R8
	ADDQ $8, AX
	CMPQ AX, CX
	JB sloop
	VZEROUPPER
	RET

// func leakyBackSignAVX2(dst, dy []float32, pos []uint8, alpha float32)
// len(dst) is a positive multiple of 8. Each byte of pos, broadcast to
// the eight lanes and compared with laneBits, selects dy or alpha·dy.
TEXT ·leakyBackSignAVX2(SB), NOSPLIT, $0-76
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ dy_base+24(FP), SI
	MOVQ pos_base+48(FP), R8
	VBROADCASTSS alpha+72(FP), Y8
	VMOVDQU laneBits<>(SB), Y9
	XORQ AX, AX
bloop:
	MOVBLZX (R8), BX
	VMOVD BX, X3
	VPBROADCASTD X3, Y3
	VPAND Y9, Y3, Y3
	VPCMPEQD Y9, Y3, Y3
	VMOVUPS (SI)(AX*4), Y0
	VMULPS Y0, Y8, Y1
	VBLENDVPS Y3, Y0, Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	INCQ R8
	ADDQ $8, AX
	CMPQ AX, CX
	JB bloop
	VZEROUPPER
	RET
