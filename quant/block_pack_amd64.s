//go:build amd64 && !purego

#include "textflag.h"

// The panel kernel of RoundPanels; see block_pack_amd64.go.

// Offsets of the fields of mxRowParams (block_band.go).
#define P_LO1 0
#define P_HI1 4
#define P_CMN 8
#define P_CMB 12
#define P_D 16

// func mxPanelAVX2(dst, src *float32, nv, bands int, p *mxRowParams, tmp *uint32) int
//
// Bands of 32 rows of 8·nv columns, row-major and one after another (a
// packed panel's): for each band, the maxima of |x| down each column, the
// constants from them as mxRowAVX2 computes a block's (kept at tmp, 64
// bytes a vector of 8 columns), and the rounding of BANDROUND8, while
// every column of the band has its exponent byte in [lo1+1, hi1-1]; it
// returns how many bands it rounded, stopping before the first that does
// not (written nowhere).
TEXT ·mxPanelAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nv+16(FP), R9
	MOVQ bands+24(FP), R8
	MOVQ p+32(FP), DX
	MOVQ tmp+40(FP), BX
	XORQ AX, AX
	SHLQ $5, R9 // row stride in bytes
	MOVQ DI, R13
	SUBQ SI, R13 // dst - src
	MOVL $0x7fffffff, R11
	VMOVD R11, X14
	VPBROADCASTD X14, Y14
	MOVL $0x7f800000, R11
	VMOVD R11, X13
	VPBROADCASTD X13, Y13
	MOVL P_D(DX), R11
	SHLL $23, R11
	VMOVD R11, X12
	VPBROADCASTD X12, Y12
	VPBROADCASTD P_LO1(DX), Y15
	VPBROADCASTD P_HI1(DX), Y5
	VPBROADCASTD P_CMN(DX), Y6
	VPBROADCASTD P_CMB(DX), Y7

pband:
	CMPQ AX, R8
	JAE  pdone
	XORQ R12, R12 // byte offset of the band's vector of columns

pmax:
	LEAQ  (SI)(R12*1), R11
	VPXOR Y0, Y0, Y0
	VPXOR Y2, Y2, Y2
	MOVQ  $8, R10

pmaxrows:
	VPAND   (R11), Y14, Y1
	VPMAXUD Y1, Y0, Y0
	ADDQ    R9, R11
	VPAND   (R11), Y14, Y3
	VPMAXUD Y3, Y2, Y2
	ADDQ    R9, R11
	VPAND   (R11), Y14, Y1
	VPMAXUD Y1, Y0, Y0
	ADDQ    R9, R11
	VPAND   (R11), Y14, Y3
	VPMAXUD Y3, Y2, Y2
	ADDQ    R9, R11
	DECQ    R10
	JNZ     pmaxrows
	VPMAXUD Y2, Y0, Y0

	// The constants, if every column takes the fast rounding (the maxima
	// are below 2^31, so signed compares serve).
	VPSRLD    $23, Y0, Y1 // E
	VPCMPGTD  Y15, Y1, Y3
	VPCMPGTD  Y1, Y5, Y4
	VPAND     Y4, Y3, Y3
	VMOVMSKPS Y3, R11
	CMPL      R11, $0xff
	JNE       pdone
	VPADDD    Y6, Y1, Y3
	VPSLLD    $23, Y3, Y3
	VMOVDQU   Y3, (BX)(R12*2) // minNorm
	VPSLLD    $23, Y1, Y4
	VPADDD    Y7, Y4, Y4
	VMOVDQU   Y4, 32(BX)(R12*2) // maxBits
	ADDQ      $32, R12
	CMPQ      R12, R9
	JB        pmax

	XORQ R12, R12

pround:
	VMOVDQU (BX)(R12*2), Y10
	VMOVDQU 32(BX)(R12*2), Y11
	LEAQ    (SI)(R12*1), R11
	MOVQ    $32, R10

proundrow:
	VMOVDQU (R11), Y0
	VPAND   Y14, Y0, Y1
	VPXOR   Y1, Y0, Y2
	VPAND   Y13, Y0, Y3
	VPMAXUD Y10, Y3, Y3
	VPADDD  Y12, Y3, Y3
	VADDPS  Y3, Y1, Y4
	VSUBPS  Y3, Y4, Y4
	VPMINUD Y11, Y4, Y4
	VPOR    Y2, Y4, Y4
	VMOVDQU Y4, (R11)(R13*1)
	ADDQ    R9, R11
	DECQ    R10
	JNZ     proundrow
	ADDQ    $32, R12
	CMPQ    R12, R9
	JB      pround

	MOVQ R9, R10
	SHLQ $5, R10 // a band's bytes
	ADDQ R10, SI
	INCQ AX
	JMP  pband

pdone:
	VZEROUPPER
	MOVQ AX, ret+48(FP)
	RET
