//go:build amd64 && !purego && !openblas

#include "textflag.h"

// firstLanes<> + 4·(8-m) holds the lane mask of the first m of 8 lanes.
DATA firstLanes<>+0(SB)/8, $-1
DATA firstLanes<>+8(SB)/8, $-1
DATA firstLanes<>+16(SB)/8, $-1
DATA firstLanes<>+24(SB)/8, $-1
DATA firstLanes<>+32(SB)/8, $0
DATA firstLanes<>+40(SB)/8, $0
DATA firstLanes<>+48(SB)/8, $0
DATA firstLanes<>+56(SB)/8, $0
GLOBL firstLanes<>(SB), RODATA|NOPTR, $64

// func pick2AVX2(out *float32, ow, rows, n int, in *float32, step int)
// For r < rows and k < n: out[r·ow + k] = in[r·step + 2k] (AVX2). Reads
// in[r·step : r·step+2n-1] and writes out[r·ow : r·ow+n] only: the last
// eight outputs of a row go through lane masks.
TEXT ·pick2AVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ ow+8(FP), R8
	SHLQ $2, R8
	MOVQ rows+16(FP), R9
	MOVQ n+24(FP), R10
	MOVQ in+32(FP), SI
	MOVQ step+40(FP), R11
	SHLQ $2, R11
	LEAQ firstLanes<>+32(SB), R12
	TESTQ R9, R9
	JLE pdone
	TESTQ R10, R10
	JLE pdone
prow:
	MOVQ DI, AX
	MOVQ SI, BX
	MOVQ R10, CX
pchunk:
	CMPQ CX, $9
	JLT ptail
	VMOVUPS (BX), Y0
	VMOVUPS 32(BX), Y1
	VSHUFPS $0x88, Y1, Y0, Y2
	VPERMPD $0xD8, Y2, Y2
	VMOVUPS Y2, (AX)
	ADDQ $32, AX
	ADDQ $64, BX
	SUBQ $8, CX
	JMP pchunk
ptail:
	// CX = k in [1, 8] outputs: 2k-1 inputs, min(8, 2k-1) in Y0 and
	// 2k-9 (if positive) in Y1.
	LEAQ -1(CX)(CX*1), DX
	MOVQ DX, R13
	CMPQ R13, $8
	JLE pm0
	MOVQ $8, R13
pm0:
	SHLQ $2, R13
	MOVQ R12, R14
	SUBQ R13, R14
	VMOVDQU (R14), Y3
	SUBQ $8, DX
	JGE pm1
	XORQ DX, DX
pm1:
	SHLQ $2, DX
	MOVQ R12, R14
	SUBQ DX, R14
	VMOVDQU (R14), Y4
	VMASKMOVPS (BX), Y3, Y0
	VMASKMOVPS 32(BX), Y4, Y1
	VSHUFPS $0x88, Y1, Y0, Y2
	VPERMPD $0xD8, Y2, Y2
	SHLQ $2, CX
	MOVQ R12, R14
	SUBQ CX, R14
	VMOVDQU (R14), Y5
	VMASKMOVPS Y2, Y5, (AX)
	ADDQ R8, DI
	ADDQ R11, SI
	DECQ R9
	JNZ prow
pdone:
	VZEROUPPER
	RET

// func put2AVX2(img *float32, step int, in *float32, ow, rows, n int)
// For r < rows and k < n: img[r·step + 2k] += in[r·ow + k] (AVX2), each
// a single rounded add as in Go; the pixels between are stored back
// unchanged (blended, not added to zero, which would turn -0 into +0).
// Reads in[r·ow : r·ow+n] and reads and writes img[r·step :
// r·step+2n-1] only, the last eight terms of a row under lane masks.
TEXT ·put2AVX2(SB), NOSPLIT, $0-48
	MOVQ img+0(FP), DI
	MOVQ step+8(FP), R11
	SHLQ $2, R11
	MOVQ in+16(FP), SI
	MOVQ ow+24(FP), R8
	SHLQ $2, R8
	MOVQ rows+32(FP), R9
	MOVQ n+40(FP), R10
	LEAQ firstLanes<>+32(SB), R12
	TESTQ R9, R9
	JLE qdone
	TESTQ R10, R10
	JLE qdone
qrow:
	MOVQ DI, AX
	MOVQ SI, BX
	MOVQ R10, CX
qchunk:
	CMPQ CX, $9
	JLT qtail
	VMOVUPS (BX), Y6
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	// Y6 = v0..v7 to [v0 · v1 · v2 · v3 ·] and [v4 · v5 · v6 · v7 ·].
	VUNPCKLPS Y6, Y6, Y7
	VUNPCKHPS Y6, Y6, Y8
	VPERM2F128 $0x20, Y8, Y7, Y9
	VPERM2F128 $0x31, Y8, Y7, Y10
	VADDPS Y9, Y0, Y9
	VADDPS Y10, Y1, Y10
	VBLENDPS $0x55, Y9, Y0, Y0
	VBLENDPS $0x55, Y10, Y1, Y1
	VMOVUPS Y0, (AX)
	VMOVUPS Y1, 32(AX)
	ADDQ $64, AX
	ADDQ $32, BX
	SUBQ $8, CX
	JMP qchunk
qtail:
	LEAQ -1(CX)(CX*1), DX
	MOVQ DX, R13
	CMPQ R13, $8
	JLE qm0
	MOVQ $8, R13
qm0:
	SHLQ $2, R13
	MOVQ R12, R14
	SUBQ R13, R14
	VMOVDQU (R14), Y3
	SUBQ $8, DX
	JGE qm1
	XORQ DX, DX
qm1:
	SHLQ $2, DX
	MOVQ R12, R14
	SUBQ DX, R14
	VMOVDQU (R14), Y4
	SHLQ $2, CX
	MOVQ R12, R14
	SUBQ CX, R14
	VMOVDQU (R14), Y5
	VMASKMOVPS (BX), Y5, Y6
	VMASKMOVPS (AX), Y3, Y0
	VMASKMOVPS 32(AX), Y4, Y1
	VUNPCKLPS Y6, Y6, Y7
	VUNPCKHPS Y6, Y6, Y8
	VPERM2F128 $0x20, Y8, Y7, Y9
	VPERM2F128 $0x31, Y8, Y7, Y10
	VADDPS Y9, Y0, Y9
	VADDPS Y10, Y1, Y10
	VBLENDPS $0x55, Y9, Y0, Y0
	VBLENDPS $0x55, Y10, Y1, Y1
	VMASKMOVPS Y0, Y3, (AX)
	VMASKMOVPS Y1, Y4, 32(AX)
	ADDQ R11, DI
	ADDQ R8, SI
	DECQ R9
	JNZ qrow
qdone:
	VZEROUPPER
	RET
