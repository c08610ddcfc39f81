//go:build arm64 && !purego

#include "textflag.h"

// NEON instructions the Go assembler has no mnemonic for, on 4 lanes of
// 32 bits, registers by number, sources first as in the Go syntax:
// Vd = Vn op Vm.
#define CMHI(m, n, d) WORD $(0x6EA03400 | (m)<<16 | (n)<<5 | (d)) // Vn > Vm unsigned: all ones
#define CMHS(m, n, d) WORD $(0x6EA03C00 | (m)<<16 | (n)<<5 | (d)) // Vn >= Vm unsigned
#define USHL(m, n, d) WORD $(0x6EA04400 | (m)<<16 | (n)<<5 | (d)) // Vn << Vm, >> where Vm < 0
#define BIC(m, n, d) WORD $(0x4E601C00 | (m)<<16 | (n)<<5 | (d))  // Vn &^ Vm
#define FADD(m, n, d) WORD $(0x4E20D400 | (m)<<16 | (n)<<5 | (d))
#define FSUB(m, n, d) WORD $(0x4EA0D400 | (m)<<16 | (n)<<5 | (d)) // Vn - Vm
#define UMAXV(n, d) WORD $(0x6EB0A800 | (n)<<5 | (d))             // Sd = max of Vn's lanes
#define NEG(n, d) WORD $(0x6EA0B800 | (n)<<5 | (d))

// ABSMASK sets V31 to 0x7fffffff and V30 to the bits from which |x| is
// left out: 0x7f800000 (Inf and NaN) if R9 (finite) is set, else
// 0x80000000 (none). It clobbers R10.
#define ABSMASK \
	MOVW $0x7fffffff, R10; \
	VDUP R10, V31.S4;      \
	MOVW $0x80000000, R10; \
	CBZ  R9, 2(PC);        \
	MOVW $0x7f800000, R10; \
	VDUP R10, V30.S4

// ABS sets V1 to the bits of |V1|, 0 where left out.
#define ABS \
	VAND V31.B16, V1.B16, V1.B16; \
	CMHS(30, 1, 2);               \
	BIC(2, 1, 1)

// func absMaxBlocksNEON(amax *uint32, src *float32, nb, k int, finite bool)
TEXT ·absMaxBlocksNEON(SB), NOSPLIT, $0-33
	MOVD  amax+0(FP), R0
	MOVD  src+8(FP), R1
	MOVD  nb+16(FP), R2
	MOVD  k+24(FP), R3
	MOVBU finite+32(FP), R9
	ABSMASK
	LSR   $2, R3
	CBZ   R2, bdone
	CBZ   R3, bdone

block:
	VEOR V0.B16, V0.B16, V0.B16
	MOVD R3, R4

bloop:
	VLD1.P 16(R1), [V1.S4]
	ABS
	VUMAX  V1.S4, V0.S4, V0.S4
	SUBS   $1, R4
	BNE    bloop
	UMAXV(0, 0)
	FMOVS  F0, R5
	MOVW.P R5, 4(R0)
	SUBS   $1, R2
	BNE    block

bdone:
	RET

// func absMaxColsNEON(am *uint32, src *float32, n int, finite bool)
TEXT ·absMaxColsNEON(SB), NOSPLIT, $0-25
	MOVD  am+0(FP), R0
	MOVD  src+8(FP), R1
	MOVD  n+16(FP), R2
	MOVBU finite+24(FP), R9
	ABSMASK
	LSR   $2, R2
	CBZ   R2, cdone

cloop:
	VLD1.P 16(R1), [V1.S4]
	VLD1   (R0), [V0.S4]
	ABS
	VUMAX  V1.S4, V0.S4, V0.S4
	VST1.P [V0.S4], 16(R0)
	SUBS   $1, R2
	BNE    cloop

cdone:
	RET

// MXCONST sets V28 to 2^(d-1) - 1, V27 to -d, V26 to 1 and V25 to
// 2^d - 1 for d = R9 (>= 1), and V31 to 0x7fffffff. It clobbers R10.
#define MXCONST \
	MOVW $0x7fffffff, R10; \
	VDUP R10, V31.S4;      \
	MOVW $1, R10;          \
	VDUP R10, V26.S4;      \
	LSLW R9, R10, R10;     \
	SUBW $1, R10;          \
	VDUP R10, V25.S4;      \
	LSRW $1, R10;          \
	VDUP R10, V28.S4;      \
	VDUP R9, V27.S4;       \
	NEG(27, 27)

// MXROUND rounds the 4 values in V0 as mxConsts.round does, with the
// constants minNorm, magic, maxBits and nan in V20-V23, into V4. It
// clobbers V1-V5. Below minNorm: (a + magic) - magic in float32; else a
// to nearest even on the kept bits, at most maxBits; then the sign and
// nan or-ed in.
#define MXROUND \
	VAND  V31.B16, V0.B16, V1.B16; \
	VEOR  V1.B16, V0.B16, V2.B16;  \
	FADD(21, 1, 3);                \
	FSUB(21, 3, 3);                \
	USHL(27, 1, 4);                \
	VAND  V26.B16, V4.B16, V4.B16; \
	VADD  V1.S4, V4.S4, V4.S4;     \
	VADD  V28.S4, V4.S4, V4.S4;    \
	BIC(25, 4, 4);                 \
	VUMIN V22.S4, V4.S4, V4.S4;    \
	CMHI(1, 20, 5);                \
	VBIT  V5.B16, V3.B16, V4.B16;  \
	VORR  V2.B16, V4.B16, V4.B16;  \
	VORR  V23.B16, V4.B16, V4.B16

// func mxRoundBlocksNEON(dst, src *float32, nb, k int, minNorm, magic, maxBits, nan *uint32, dr uint32)
// Block b's constants are minNorm[b], magic[b], maxBits[b] and nan[b] (mxCols).
TEXT ·mxRoundBlocksNEON(SB), NOSPLIT, $0-68
	MOVD  dst+0(FP), R0
	MOVD  src+8(FP), R1
	MOVD  nb+16(FP), R2
	MOVD  k+24(FP), R3
	MOVD  minNorm+32(FP), R5
	MOVD  magic+40(FP), R6
	MOVD  maxBits+48(FP), R7
	MOVD  nan+56(FP), R8
	MOVWU dr+64(FP), R9
	MXCONST
	LSR   $2, R3
	CBZ   R2, mdone
	CBZ   R3, mdone

mblock:
	VLD1R.P 4(R5), [V20.S4]
	VLD1R.P 4(R6), [V21.S4]
	VLD1R.P 4(R7), [V22.S4]
	VLD1R.P 4(R8), [V23.S4]
	MOVD    R3, R4

mloop:
	VLD1.P 16(R1), [V0.S4]
	MXROUND
	VST1.P [V4.S4], 16(R0)
	SUBS   $1, R4
	BNE    mloop
	SUBS   $1, R2
	BNE    mblock

mdone:
	RET

// func mxRoundColsNEON(dst, src *float32, n int, minNorm, magic, maxBits, nan *uint32, dr uint32)
TEXT ·mxRoundColsNEON(SB), NOSPLIT, $0-60
	MOVD  dst+0(FP), R0
	MOVD  src+8(FP), R1
	MOVD  n+16(FP), R2
	MOVD  minNorm+24(FP), R3
	MOVD  magic+32(FP), R4
	MOVD  maxBits+40(FP), R5
	MOVD  nan+48(FP), R6
	MOVWU dr+56(FP), R9
	MXCONST
	LSR   $2, R2
	CBZ   R2, xdone

xloop:
	VLD1.P 16(R3), [V20.S4]
	VLD1.P 16(R4), [V21.S4]
	VLD1.P 16(R5), [V22.S4]
	VLD1.P 16(R6), [V23.S4]
	VLD1.P 16(R1), [V0.S4]
	MXROUND
	VST1.P [V4.S4], 16(R0)
	SUBS   $1, R2
	BNE    xloop

xdone:
	RET
