// Package quant emulates small number formats — posits, IEEE-style floats of
// any width and fixed point — on float32 data.
//
// Values stay float32 (or float64); each operation rounds them to a Format,
// bit for bit as the hardware format would. Every format takes an exponent
// bias ("scale"): Scale(f, k) quantizes x as f quantizes x·2^k, then divides
// by 2^k, so a tensor whose bulk sits near 2^-k lands in f's most accurate
// region.
//
// Formats are named by strings (see Parse); a Format's String is its
// canonical name, and Parse(f.String()) returns a format equal to f.
//
// The slice written to is always named dst, and comes first.
//
// The slice kernels have AVX-512 and AVX2 (amd64), NEON (arm64) and
// portable Go forms, which give the same bits; the best the CPU has runs. The environment variable
// POSITGAN_CPU (CPUEnv) caps the level for the whole program, so that a
// lower one can be tested or measured anywhere; KernelLevel says which
// runs.
package quant
