//go:build arm64 && !purego

#include "textflag.h"

// Offsets of the fields of floatKernel (float_kernel.go).
#define K_ABS 0
#define K_HALFM1 32
#define K_LSBONE 64
#define K_KEEP 96
#define K_MINNORM 128
#define K_MAGIC 160
#define K_FTZ 192
#define K_MAXBITS 224
#define K_OVF 256
#define K_NANKEEP 288
#define K_FNUZ 320
#define K_INF 352
#define K_LSBXOR 384
#define K_SHIFT 416

// NEON instructions the Go assembler has no mnemonic for, on 4 lanes of
// 32 bits, operands by register number as in the Go syntax (sources
// first): Vd = Vn op Vm.
#define CMHI(m, n, d) WORD $(0x6EA03400 | (m)<<16 | (n)<<5 | (d)) // Vn > Vm unsigned: all ones
#define USHL(m, n, d) WORD $(0x6EA04400 | (m)<<16 | (n)<<5 | (d)) // Vn << Vm (>> where Vm < 0)
#define BIC(m, n, d) WORD $(0x4E601C00 | (m)<<16 | (n)<<5 | (d))  // Vn &^ Vm
#define FADD(m, n, d) WORD $(0x4E20D400 | (m)<<16 | (n)<<5 | (d))
#define FSUB(m, n, d) WORD $(0x4EA0D400 | (m)<<16 | (n)<<5 | (d)) // Vn - Vm
#define NEG(n, d) WORD $(0x6EA0B800 | (n)<<5 | (d))

#define LOADK(off, V) \
	ADD $off, R3, R4; \
	VLD1 (R4), [V.S4]

// func roundFloatNEON(dst, src *float32, n int, k *floatKernel)
//
// Each group of 4 lanes goes as floatKernel.round: a = |x| bits, s = the
// sign; r = (a + half-1 + (kept lsb ^ lsbXor)) &^ dropped bits, or
// (a + magic) - magic in float32 where a < minNorm; 0 where a < ftz;
// ovf where r > maxBits; FNUZ clears the sign of 0; NaN inputs give
// x & nanKeep. The constants stay in V16-V30.
TEXT ·roundFloatNEON(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	MOVD k+24(FP), R3
	LOADK(K_ABS, V16)
	LOADK(K_HALFM1, V17)
	LOADK(K_LSBONE, V18)
	LOADK(K_KEEP, V19)
	LOADK(K_MINNORM, V20)
	LOADK(K_MAGIC, V21)
	LOADK(K_FTZ, V22)
	LOADK(K_MAXBITS, V23)
	LOADK(K_OVF, V24)
	LOADK(K_NANKEEP, V25)
	LOADK(K_FNUZ, V26)
	LOADK(K_INF, V27)
	LOADK(K_LSBXOR, V28)
	MOVD K_SHIFT(R3), R4
	VDUP R4, V29.S4
	NEG(29, 29)                    // -d: USHL by it shifts right by d
	VEOR V30.B16, V30.B16, V30.B16 // zero
	LSR  $2, R2
	CBZ  R2, done

loop:
	VLD1.P 16(R1), [V0.S4]
	VAND   V16.B16, V0.B16, V1.B16 // a
	VEOR   V1.B16, V0.B16, V2.B16  // s
	USHL(29, 1, 3)                 // a >> d
	VAND   V18.B16, V3.B16, V3.B16
	VEOR   V28.B16, V3.B16, V3.B16 // kept lsb of the code
	VADD   V17.S4, V1.S4, V4.S4
	VADD   V3.S4, V4.S4, V4.S4
	VAND   V19.B16, V4.B16, V4.B16 // r, normal path
	FADD(21, 1, 5)
	FSUB(21, 5, 5)                 // subnormal path
	CMHI(1, 20, 6)                 // a < minNorm
	VBIT   V6.B16, V5.B16, V4.B16
	CMHI(1, 22, 6)                 // a < ftz
	BIC(6, 4, 4)
	CMHI(23, 4, 6)                 // r > maxBits
	VBIT   V6.B16, V24.B16, V4.B16
	VCMEQ  V30.S4, V4.S4, V6.S4    // r == 0
	VAND   V26.B16, V6.B16, V6.B16
	BIC(6, 2, 2)
	VORR   V2.B16, V4.B16, V4.B16
	CMHI(27, 1, 6)                 // NaN
	VAND   V25.B16, V0.B16, V5.B16
	VBIT   V6.B16, V5.B16, V4.B16
	VST1.P [V4.S4], 16(R0)
	SUBS   $1, R2
	BNE    loop

done:
	RET
