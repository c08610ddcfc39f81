//go:build amd64 && !purego && !openblas

#include "textflag.h"

// func transpose8(dst *float32, ldd int, src *float32, lds int, n int)
// For each of the n/8 blocks b: dst[(8b+i)·ldd + j] = src[j·lds + 8b+i],
// i, j < 8 (AVX).
TEXT ·transpose8(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), DX
	SHLQ $2, DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), CX
	SHLQ $2, CX
	MOVQ n+32(FP), R8
	SHRQ $3, R8
	JZ done
	LEAQ (CX)(CX*2), R10
	LEAQ (SI)(CX*4), R9
	LEAQ (DX)(DX*2), R11
loop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(CX*1), Y1
	VMOVUPS (SI)(CX*2), Y2
	VMOVUPS (SI)(R10*1), Y3
	VMOVUPS (R9), Y4
	VMOVUPS (R9)(CX*1), Y5
	VMOVUPS (R9)(CX*2), Y6
	VMOVUPS (R9)(R10*1), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, (DI)(DX*1)
	VMOVUPS Y10, (DI)(DX*2)
	VMOVUPS Y11, (DI)(R11*1)
	LEAQ (DI)(DX*4), DI
	VMOVUPS Y12, (DI)
	VMOVUPS Y13, (DI)(DX*1)
	VMOVUPS Y14, (DI)(DX*2)
	VMOVUPS Y15, (DI)(R11*1)
	LEAQ (DI)(DX*4), DI
	ADDQ $32, SI
	ADDQ $32, R9
	DECQ R8
	JNZ loop
	VZEROUPPER
done:
	RET

// func transpose4d(dst *float64, ldd int, src *float64, lds int, n int)
// For each of the n/4 blocks b: dst[(4b+i)·ldd + j] = src[j·lds + 4b+i],
// i, j < 4 (AVX).
TEXT ·transpose4d(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), DX
	SHLQ $3, DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), CX
	SHLQ $3, CX
	MOVQ n+32(FP), R8
	SHRQ $2, R8
	JZ done4d
	LEAQ (CX)(CX*2), R10
	LEAQ (DX)(DX*2), R11
loop4d:
	VMOVUPD (SI), Y0
	VMOVUPD (SI)(CX*1), Y1
	VMOVUPD (SI)(CX*2), Y2
	VMOVUPD (SI)(R10*1), Y3
	VUNPCKLPD Y1, Y0, Y4
	VUNPCKHPD Y1, Y0, Y5
	VUNPCKLPD Y3, Y2, Y6
	VUNPCKHPD Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0
	VPERM2F128 $0x20, Y7, Y5, Y1
	VPERM2F128 $0x31, Y6, Y4, Y2
	VPERM2F128 $0x31, Y7, Y5, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, (DI)(DX*1)
	VMOVUPD Y2, (DI)(DX*2)
	VMOVUPD Y3, (DI)(R11*1)
	LEAQ (DI)(DX*4), DI
	ADDQ $32, SI
	DECQ R8
	JNZ loop4d
	VZEROUPPER
done4d:
	RET

// The VPERMI2PD selections of transpose8d: from a pair of unpacked row
// pairs, the columns 0 and 4 (transpose8dLo) or 2 and 6 (transpose8dHi)
// of four rows.
DATA transpose8dLo<>+0(SB)/8, $0
DATA transpose8dLo<>+8(SB)/8, $1
DATA transpose8dLo<>+16(SB)/8, $8
DATA transpose8dLo<>+24(SB)/8, $9
DATA transpose8dLo<>+32(SB)/8, $4
DATA transpose8dLo<>+40(SB)/8, $5
DATA transpose8dLo<>+48(SB)/8, $12
DATA transpose8dLo<>+56(SB)/8, $13
GLOBL transpose8dLo<>(SB), RODATA|NOPTR, $64
DATA transpose8dHi<>+0(SB)/8, $2
DATA transpose8dHi<>+8(SB)/8, $3
DATA transpose8dHi<>+16(SB)/8, $10
DATA transpose8dHi<>+24(SB)/8, $11
DATA transpose8dHi<>+32(SB)/8, $6
DATA transpose8dHi<>+40(SB)/8, $7
DATA transpose8dHi<>+48(SB)/8, $14
DATA transpose8dHi<>+56(SB)/8, $15
GLOBL transpose8dHi<>(SB), RODATA|NOPTR, $64

// func transpose8d(dst *float64, ldd int, src *float64, lds int, n int)
// For each of the n/8 blocks b: dst[(8b+i)·ldd + j] = src[j·lds + 8b+i],
// i, j < 8 (AVX-512).
TEXT ·transpose8d(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), DX
	SHLQ $3, DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), CX
	SHLQ $3, CX
	MOVQ n+32(FP), R8
	SHRQ $3, R8
	JZ done8d
	VMOVUPD transpose8dLo<>(SB), Z30
	VMOVUPD transpose8dHi<>(SB), Z31
	LEAQ (CX)(CX*2), R10
	LEAQ (SI)(CX*4), R9
	LEAQ (DX)(DX*2), R11
loop8d:
	VMOVUPD (SI), Z0
	VMOVUPD (SI)(CX*1), Z1
	VMOVUPD (SI)(CX*2), Z2
	VMOVUPD (SI)(R10*1), Z3
	VMOVUPD (R9), Z4
	VMOVUPD (R9)(CX*1), Z5
	VMOVUPD (R9)(CX*2), Z6
	VMOVUPD (R9)(R10*1), Z7
	// Rows 2r, 2r+1 interleaved: even columns (Z8…) and odd (Z9…).
	VUNPCKLPD Z1, Z0, Z8
	VUNPCKHPD Z1, Z0, Z9
	VUNPCKLPD Z3, Z2, Z10
	VUNPCKHPD Z3, Z2, Z11
	VUNPCKLPD Z5, Z4, Z12
	VUNPCKHPD Z5, Z4, Z13
	VUNPCKLPD Z7, Z6, Z14
	VUNPCKHPD Z7, Z6, Z15
	// Rows 0-3 (Z16…) and 4-7 (Z20…) of columns {0,4}, {2,6}, {1,5}, {3,7}.
	VMOVAPD Z30, Z16
	VPERMI2PD Z10, Z8, Z16
	VMOVAPD Z31, Z17
	VPERMI2PD Z10, Z8, Z17
	VMOVAPD Z30, Z18
	VPERMI2PD Z11, Z9, Z18
	VMOVAPD Z31, Z19
	VPERMI2PD Z11, Z9, Z19
	VMOVAPD Z30, Z20
	VPERMI2PD Z14, Z12, Z20
	VMOVAPD Z31, Z21
	VPERMI2PD Z14, Z12, Z21
	VMOVAPD Z30, Z22
	VPERMI2PD Z15, Z13, Z22
	VMOVAPD Z31, Z23
	VPERMI2PD Z15, Z13, Z23
	// Column c: its rows 0-3 and 4-7.
	VSHUFF64X2 $0x44, Z20, Z16, Z0 // column 0
	VSHUFF64X2 $0xee, Z20, Z16, Z4 // column 4
	VSHUFF64X2 $0x44, Z21, Z17, Z2 // column 2
	VSHUFF64X2 $0xee, Z21, Z17, Z6 // column 6
	VSHUFF64X2 $0x44, Z22, Z18, Z1 // column 1
	VSHUFF64X2 $0xee, Z22, Z18, Z5 // column 5
	VSHUFF64X2 $0x44, Z23, Z19, Z3 // column 3
	VSHUFF64X2 $0xee, Z23, Z19, Z7 // column 7
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, (DI)(DX*1)
	VMOVUPD Z2, (DI)(DX*2)
	VMOVUPD Z3, (DI)(R11*1)
	LEAQ (DI)(DX*4), DI
	VMOVUPD Z4, (DI)
	VMOVUPD Z5, (DI)(DX*1)
	VMOVUPD Z6, (DI)(DX*2)
	VMOVUPD Z7, (DI)(R11*1)
	LEAQ (DI)(DX*4), DI
	ADDQ $64, SI
	ADDQ $64, R9
	DECQ R8
	JNZ loop8d
	VZEROUPPER
done8d:
	RET

// func copyRows(dst unsafe.Pointer, ldd int, src unsafe.Pointer, lds int, width int, rows int)
// For each of rows rows r: the width bytes at src + r·lds to dst + r·ldd,
// width 24, 32, 48, 64 or 128 (AVX; any other copies nothing): the rows
// of a panel of the GEMM, without a call of memmove per row.
TEXT ·copyRows(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), CX
	MOVQ width+32(FP), AX
	MOVQ rows+40(FP), R8
	TESTQ R8, R8
	JLE rdone
	CMPQ AX, $64
	JEQ r64
	CMPQ AX, $128
	JEQ r128
	CMPQ AX, $24
	JEQ r24
	CMPQ AX, $32
	JEQ r32
	CMPQ AX, $48
	JEQ r48
	RET
r24:
	VMOVUPS (SI), X0
	MOVQ 16(SI), R9
	VMOVUPS X0, (DI)
	MOVQ R9, 16(DI)
	ADDQ CX, SI
	ADDQ DX, DI
	DECQ R8
	JNZ r24
	RET
r32:
	VMOVUPS (SI), Y0
	VMOVUPS Y0, (DI)
	ADDQ CX, SI
	ADDQ DX, DI
	DECQ R8
	JNZ r32
	JMP rdone
r48:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), X1
	VMOVUPS Y0, (DI)
	VMOVUPS X1, 32(DI)
	ADDQ CX, SI
	ADDQ DX, DI
	DECQ R8
	JNZ r48
	JMP rdone
r64:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ CX, SI
	ADDQ DX, DI
	DECQ R8
	JNZ r64
	JMP rdone
r128:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ CX, SI
	ADDQ DX, DI
	DECQ R8
	JNZ r128
rdone:
	VZEROUPPER
	RET

// sixLanes is the lane mask of the first 6 of 8 lanes.
DATA sixLanes<>+0(SB)/8, $-1
DATA sixLanes<>+8(SB)/8, $-1
DATA sixLanes<>+16(SB)/8, $-1
DATA sixLanes<>+24(SB)/8, $0
GLOBL sixLanes<>(SB), RODATA|NOPTR, $32

// func transpose6(dst *float32, ldd int, src *float32, lds int, n int)
// For each of the n/8 blocks b: dst[(8b+i)·ldd + j] = src[j·lds + 8b+i],
// i < 8, j < 6 (AVX): transpose8 for the six rows of the AVX2 kernel's
// panels of A, two rows of zeros in their place and each column stored
// under the mask of its six lanes.
TEXT ·transpose6(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), DX
	SHLQ $2, DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), CX
	SHLQ $2, CX
	MOVQ n+32(FP), R8
	SHRQ $3, R8
	JZ done6
	LEAQ (CX)(CX*2), R10
	LEAQ (SI)(CX*4), R9
	LEAQ (DX)(DX*2), R11
	VMOVDQU sixLanes<>(SB), Y15
loop6:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(CX*1), Y1
	VMOVUPS (SI)(CX*2), Y2
	VMOVUPS (SI)(R10*1), Y3
	VMOVUPS (R9), Y4
	VMOVUPS (R9)(CX*1), Y5
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VXORPS Y6, Y6, Y6
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y6, Y6, Y14
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y14, Y13, Y6
	VSHUFPS $0xEE, Y14, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y0
	VMASKMOVPS Y8, Y15, (DI)
	VMASKMOVPS Y9, Y15, (DI)(DX*1)
	VMASKMOVPS Y10, Y15, (DI)(DX*2)
	VMASKMOVPS Y11, Y15, (DI)(R11*1)
	LEAQ (DI)(DX*4), DI
	VMASKMOVPS Y12, Y15, (DI)
	VMASKMOVPS Y13, Y15, (DI)(DX*1)
	VMASKMOVPS Y14, Y15, (DI)(DX*2)
	VMASKMOVPS Y0, Y15, (DI)(R11*1)
	LEAQ (DI)(DX*4), DI
	ADDQ $32, SI
	ADDQ $32, R9
	DECQ R8
	JNZ loop6
	VZEROUPPER
done6:
	RET
