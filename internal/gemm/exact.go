package gemm

import "github.com/positgan/positgan/quant"

// QuireGemm sets c = op(a)·op(b) (m×n, row stride ldc) with every element
// rounded once, to nearest, from the exact dot product: the sum a posit
// quire forms. The products and their sum are held exactly in a wide
// fixed-point accumulator; the sum is then rounded to f (nil: to T). It is
// NaN and Inf operands give the IEEE result (NaN, or ±Inf), rounded to f.
// For float32 data it runs QuireWorkspace.Gemm, fast; for float64 data a
// reference kernel, a few nanoseconds per product.
//
// The exact sum reaches f through float64 rounded to odd, which makes the
// one rounding to f correct for every format with at most 51 significant
// bits. Sums below the float64 normal range (2^-1022) are rounded twice.
func QuireGemm[T Float](f quant.Format, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	if a32, ok := any(a).([]float32); ok {
		var w QuireWorkspace
		w.Gemm(f, tA, tB, m, n, k, a32, lda, any(b).([]float32), ldb, any(c).([]float32), ldc)
		return
	}
	checkGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	quireGemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
}

// PerOpGemm sets c = op(a)·op(b) (m×n, row stride ldc) computing each dot
// product as fine-grained hardware emulation does: s = R(a₀b₀), then
// s = R(s + R(aₗbₗ)) for l = 1, ..., k-1 in that order, where R rounds the
// exact value once to nearest in f (nil: in T). A format with its own
// arithmetic (quant.Arithmetic) computes R(aₗbₗ) with its Mul64 and
// R(s + p) with its Add64 instead (quant.ArithmeticOf). For float32 data it runs
// PerOpWorkspace.Gemm, table-driven for 8-bit formats; otherwise a
// reference kernel, tens of nanoseconds per product.
func PerOpGemm[T Float](f quant.Format, tA, tB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	if a32, ok := any(a).([]float32); ok {
		var w PerOpWorkspace
		w.Gemm(f, tA, tB, m, n, k, a32, lda, any(b).([]float32), ldb, any(c).([]float32), ldc)
		return
	}
	checkGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	perOpGemm(f, tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
}

func checkGemm(tA, tB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic("gemm: negative dimension")
	}
	if k > 1<<28 {
		panic("gemm: inner dimension too large for the exact accumulator")
	}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	if lda < max(1, ac) || ldb < max(1, bc) || ldc < max(1, n) {
		panic("gemm: bad leading dimension")
	}
	if (ar > 0 && la < (ar-1)*lda+ac) || (br > 0 && lb < (br-1)*ldb+bc) || (m > 0 && lc < (m-1)*ldc+n) {
		panic("gemm: slice too short")
	}
}
