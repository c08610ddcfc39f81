package gemm

// Float is the element type of the kernels: float32 for training, float64
// for gradient checks and QuireWorkspace's exact sums.
type Float interface{ ~float32 | ~float64 }

// Backend names the matrix multiply in use: "avx512", "avx2" or "go" (the
// kernels of this package, by instruction set, for float32 and float64),
// or "openblas".
func Backend() string { return backend() }

// Gemm computes c = alpha·op(a)·op(b) + beta·c for row-major matrices, where
// op(a) is m×k (a transposed when tA), op(b) is k×n and c is m×n with row
// stride ldc. It is BLAS xGEMM for float32 or float64 slices, and panics on
// bad dimensions as gonum's blas does.
func Gemm[T Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		// BLAS leaves c untouched only when beta == 1; do what it means.
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				if beta == 0 {
					row[j] = 0
				} else {
					row[j] *= beta
				}
			}
		}
		return
	}
	switch a := any(a).(type) {
	case []float32:
		sgemm(tA, tB, m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		dgemm(tA, tB, m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	default:
		panic("gemm: element type must be float32 or float64")
	}
}

// grow returns (*s)[:n], reallocating *s if it is too short.
func grow[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	*s = (*s)[:n]
	return *s
}
