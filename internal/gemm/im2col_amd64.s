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

// col2im42Terms adds, under the masks Y8 (j < ow), Y9 (1 <= j < ow) and
// Y10 (j+1 < ow), the terms of kernel row ky whose tap rows start at base
// (tap (ky, kx) at base + kx·L, L = R8, 3L = R9, for the chunk's first
// output column j): to the even pixels (Y0) tap (ky, 1) at j and tap
// (ky, 3) at j-1, to the odd pixels (Y1) tap (ky, 0) at j+1 and (ky, 2)
// at j, in that order. Each add has the sum as its first operand, as Go's
// += has.
#define col2im42Terms(base) \
	VMASKMOVPS (base)(R8*1), Y8, Y4; \
	VADDPS Y4, Y0, Y0; \
	VMASKMOVPS -4(base)(R9*1), Y9, Y4; \
	VADDPS Y4, Y0, Y0; \
	VMASKMOVPS 4(base), Y10, Y5; \
	VADDPS Y5, Y1, Y1; \
	VMASKMOVPS (base)(R8*2), Y8, Y5; \
	VADDPS Y5, Y1, Y1

// col2im42Store interleaves the even (Y0) and odd (Y1) pixels of the
// chunk and stores them at out under the masks Y11 (first eight) and Y12
// (last eight).
#define col2im42Store(out) \
	VUNPCKLPS Y1, Y0, Y6; \
	VUNPCKHPS Y1, Y0, Y7; \
	VPERM2F128 $0x20, Y7, Y6, Y4; \
	VPERM2F128 $0x31, Y7, Y6, Y5; \
	VMASKMOVPS Y4, Y11, (out); \
	VMASKMOVPS Y5, Y12, 32(out)

// func col2im42AVX2(img *float32, oh, ow int, src *float32, ld int)
// Sets the 2oh × 2ow plane img to the col2im of one channel of one image
// under a 4×4 kernel, stride 2, padding 1: the 16 rows of its column
// matrix are at src + t·ld (t = 4ky + kx), each holding oh·ow entries.
// Pixel (y, x) is +0 plus its (up to) four terms in the order of the
// taps (ky, kx), as Col2im adds them; a term from outside the column
// matrix is +0, which leaves the sum as it is (a sum that starts at +0
// is never -0). The output columns go eight at a time, every row of the
// plane per chunk, so that the chunk's masks are worked out once.
TEXT ·col2im42AVX2(SB), NOSPLIT, $0-40
	MOVQ img+0(FP), DI
	MOVQ oh+8(FP), R13
	MOVQ ow+16(FP), R11
	SHLQ $2, R11              // ow·4: bytes of a row of output positions
	IMULQ R11, R13            // oh·ow·4: bytes of a tap row
	MOVQ src+24(FP), SI
	MOVQ ld+32(FP), R8
	SHLQ $2, R8               // L
	LEAQ (R8)(R8*2), R9       // 3L
	LEAQ (R11)(R11*1), R10    // bytes of an image row
	LEAQ firstLanes<>+32(SB), R12
	MOVQ R11, CX              // bytes of output columns left, from j
	TESTQ CX, CX
	JLE cdone
	TESTQ R13, R13
	JLE cdone
cchunk:
	// Y8: j < ow; Y10: j+1 < ow; Y9: 1 <= j < ow; Y11, Y12: the first
	// 2·min(8, ow-j) pixels of the image row.
	MOVQ CX, AX
	CMPQ AX, $32
	JLE cm0
	MOVQ $32, AX
cm0:
	MOVQ R12, BX
	SUBQ AX, BX
	VMOVDQU (BX), Y8
	LEAQ -4(CX), AX
	CMPQ AX, $32
	JLE cm1
	MOVQ $32, AX
cm1:
	MOVQ R12, BX
	SUBQ AX, BX
	VMOVDQU (BX), Y10
	VMOVDQU Y8, Y9
	CMPQ CX, R11
	JNE cm2
	VMOVDQU -4(R12), Y13      // lane 0
	VANDNPS Y8, Y13, Y9
cm2:
	LEAQ (CX)(CX*1), AX
	CMPQ AX, $32
	JLE cm3
	MOVQ $32, AX
cm3:
	MOVQ R12, BX
	SUBQ AX, BX
	VMOVDQU (BX), Y11
	LEAQ -32(CX)(CX*1), AX
	CMPQ AX, $32
	JLE cm4
	MOVQ $32, AX
cm4:
	CMPQ AX, $0
	JGE cm5
	XORQ AX, AX
cm5:
	MOVQ R12, BX
	SUBQ AX, BX
	VMOVDQU (BX), Y12

	MOVQ DI, DX               // image row 2m
	XORQ R14, R14             // m·ow·4
crow:
	// Row 2m: ky = 1 at oy = m, then ky = 3 at oy = m-1 (if m > 0).
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	LEAQ (SI)(R14*1), AX
	LEAQ (AX)(R8*4), AX
	col2im42Terms(AX)
	TESTQ R14, R14
	JZ ceven
	LEAQ (SI)(R14*1), BX
	SUBQ R11, BX
	LEAQ (BX)(R8*8), BX
	LEAQ (BX)(R8*4), BX
	col2im42Terms(BX)
ceven:
	col2im42Store(DX)
	ADDQ R10, DX
	// Row 2m+1: ky = 0 at oy = m+1 (if m+1 < oh), then ky = 2 at oy = m.
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	LEAQ (R14)(R11*1), AX
	CMPQ AX, R13
	JGE codd
	ADDQ SI, AX
	col2im42Terms(AX)
codd:
	LEAQ (SI)(R14*1), BX
	LEAQ (BX)(R8*8), BX
	col2im42Terms(BX)
	col2im42Store(DX)
	ADDQ R10, DX
	ADDQ R11, R14
	CMPQ R14, R13
	JLT crow

	ADDQ $32, SI
	ADDQ $64, DI
	SUBQ $32, CX
	JG cchunk
cdone:
	VZEROUPPER
	RET

// func padRowsAVX2(dst, src *float32, w, h, pw, wp int)
// For y < h: dst[y·wp : (y+1)·wp] = pw zeros, src[y·w : (y+1)·w], and
// zeros to wp. The row goes in chunks of eight, a masked load from src
// (lanes outside the source row read as zeros, and read nothing) and a
// store masked to the padded row; every row per chunk, so that the
// chunk's masks are worked out once. The values are moved, not computed:
// every bit, NaN payloads included, is kept.
TEXT ·padRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ w+16(FP), R8
	SHLQ $2, R8               // bytes of a source row
	MOVQ h+24(FP), R9
	MOVQ pw+32(FP), R10
	SHLQ $2, R10              // pw·4
	MOVQ wp+40(FP), R11
	SHLQ $2, R11              // bytes of a padded row
	LEAQ firstLanes<>+32(SB), R12
	TESTQ R9, R9
	JLE pdone2
	SUBQ R10, SI              // src - pw: the source of the chunk at 0
	XORQ CX, CX               // o·4, the chunk's offset in the padded row
pchunk2:
	// Y1: lanes l with pw <= o+l < pw+w; Y2: lanes with o+l < wp.
	MOVQ R10, AX
	SUBQ CX, AX               // (pw - o)·4
	CMPQ AX, $0
	JGE pl0
	XORQ AX, AX
pl0:
	CMPQ AX, $32
	JLE pl1
	MOVQ $32, AX
pl1:
	MOVQ R12, BX
	SUBQ AX, BX
	VMOVDQU (BX), Y3
	LEAQ (R10)(R8*1), AX
	SUBQ CX, AX               // (pw + w - o)·4
	CMPQ AX, $0
	JGE pl2
	XORQ AX, AX
pl2:
	CMPQ AX, $32
	JLE pl3
	MOVQ $32, AX
pl3:
	MOVQ R12, BX
	SUBQ AX, BX
	VMOVDQU (BX), Y1
	VANDNPS Y1, Y3, Y1
	MOVQ R11, AX
	SUBQ CX, AX
	CMPQ AX, $32
	JLE pl4
	MOVQ $32, AX
pl4:
	MOVQ R12, BX
	SUBQ AX, BX
	VMOVDQU (BX), Y2
	LEAQ (SI)(CX*1), AX       // source of the chunk in row y
	LEAQ (DI)(CX*1), BX       // its place in padded row y
	MOVQ R9, DX
prow2:
	VMASKMOVPS (AX), Y1, Y0
	VMASKMOVPS Y0, Y2, (BX)
	ADDQ R8, AX
	ADDQ R11, BX
	DECQ DX
	JNZ prow2
	ADDQ $32, CX
	CMPQ CX, R11
	JLT pchunk2
pdone2:
	VZEROUPPER
	RET

// func col2imWholeAVX2(dst *float32, ldd int, src *float32, lds, blocks int)
// For i, j < 8 and b < blocks: dst[(8b+i)·ldd + j] = 0 + src[j·lds + 8b+i],
// eight rows of src transposed eight columns at a time. The add of zero
// is Col2im's (0 + -0 is +0), with zero as its first operand.
TEXT ·col2imWholeAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	MOVQ blocks+32(FP), CX
	LEAQ (R9)(R9*2), R10      // 3·lds
	LEAQ (R8)(R8*2), R11      // 3·ldd
	TESTQ CX, CX
	JLE wdone
wblock:
	MOVQ SI, AX
	VMOVUPS (AX), Y0
	VMOVUPS (AX)(R9*1), Y1
	VMOVUPS (AX)(R9*2), Y2
	VMOVUPS (AX)(R10*1), Y3
	LEAQ (AX)(R9*4), AX
	VMOVUPS (AX), Y4
	VMOVUPS (AX)(R9*1), Y5
	VMOVUPS (AX)(R9*2), Y6
	VMOVUPS (AX)(R10*1), Y7
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
	VXORPS Y8, Y8, Y8
	MOVQ DI, BX
	VPERM2F128 $0x20, Y4, Y0, Y9
	VADDPS Y9, Y8, Y9
	VMOVUPS Y9, (BX)
	VPERM2F128 $0x20, Y5, Y1, Y9
	VADDPS Y9, Y8, Y9
	VMOVUPS Y9, (BX)(R8*1)
	VPERM2F128 $0x20, Y6, Y2, Y9
	VADDPS Y9, Y8, Y9
	VMOVUPS Y9, (BX)(R8*2)
	VPERM2F128 $0x20, Y7, Y3, Y9
	VADDPS Y9, Y8, Y9
	VMOVUPS Y9, (BX)(R11*1)
	LEAQ (BX)(R8*4), BX
	VPERM2F128 $0x31, Y4, Y0, Y9
	VADDPS Y9, Y8, Y9
	VMOVUPS Y9, (BX)
	VPERM2F128 $0x31, Y5, Y1, Y9
	VADDPS Y9, Y8, Y9
	VMOVUPS Y9, (BX)(R8*1)
	VPERM2F128 $0x31, Y6, Y2, Y9
	VADDPS Y9, Y8, Y9
	VMOVUPS Y9, (BX)(R8*2)
	VPERM2F128 $0x31, Y7, Y3, Y9
	VADDPS Y9, Y8, Y9
	VMOVUPS Y9, (BX)(R11*1)
	ADDQ $32, SI
	LEAQ (DI)(R8*8), DI
	DECQ CX
	JNZ wblock
wdone:
	VZEROUPPER
	RET
