package eval

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
)

// The dense linear algebra of FrechetDistance works on n×n row-major
// matrices with stride n. gonum's LAPACK reduction to tridiagonal form
// (Dsytrd, behind mat.EigenSym) reads the Householder vectors with stride
// n and so makes its symmetric matrix-vector products, half the work, about
// five times slower than unit-stride ones; tridiagonalize stores the
// vectors as rows instead and uses only gonum's general matrix-vector and
// matrix-matrix products (assembly kernels; the latter parallel).

// tridiagBlock is the panel width of tridiagonalize, as LAPACK's DSYTRD,
// and the band of symMulVec: a band's rows are read twice, the second time
// from cache (32 rows of 2048 are 512 KiB).
const tridiagBlock = 32

// updateBand is the row band of tridiagonalize's trailing update, a
// multiple of tridiagBlock large enough for gonum's matrix product to run
// at speed and in parallel.
const updateBand = 128

// parallelRows is the matrix size from which symMulVec and mulVec split
// their rows between two goroutines; below it a goroutine costs more than
// it saves.
const parallelRows = 256

// symEigenvalues returns the eigenvalues of the symmetric n×n matrix a
// (overwritten; see tridiagonalize for the part it reads) in ascending
// order; ok is false if the QL/QR iteration on the tridiagonal matrix does
// not converge.
//
// It is LAPACK's DSYEV without eigenvectors: a blocked Householder
// reduction to tridiagonal form (tridiagonalize), which is backward stable,
// then the square-root-free QL/QR iteration of gonum's Dsterf.
func symEigenvalues(n int, a []float64) (l []float64, ok bool) {
	d := make([]float64, n)
	e := make([]float64, max(n-1, 0))
	tridiagonalize(n, a, d, e)
	return d, gonum.Implementation{}.Dsterf(n, d, e)
}

// tridiagonalize reduces the symmetric n×n matrix a (overwritten) to a
// symmetric tridiagonal matrix with diagonal d and off-diagonal e by
// orthogonal similarity, Qᵀ a Q, as LAPACK's DSYTRD does for the lower
// triangle: panels of tridiagBlock columns reduced as by DLATRD, each
// followed by a rank-2·tridiagBlock update of the rest. Column i of a lower
// triangle is row i here, so each Householder vector is contiguous. Q
// itself is not kept.
//
// a is read in its upper triangle and in the diagonal blocks
// a[k:k+tridiagBlock, k:k+tridiagBlock] for k a multiple of tridiagBlock,
// which must be symmetric; the updates keep it so. This halves the
// trailing updates against full storage, and symMulVec is twice as fast
// as a full matrix-vector product.
//
// The panel's vectors V and the matching W (the update is
// A - V Wᵀ - W Vᵀ) are stored side by side as the columns of vw, n rows of
// [V W V], so that [V W] [W V]ᵀ is the whole update in one matrix product
// per band of rows.
func tridiagonalize(n int, a, d, e []float64) {
	if n == 0 {
		return
	}
	impl := gonum.Implementation{}
	const nb = tridiagBlock
	const ld = 3 * nb
	vw := make([]float64, n*ld)
	y := make([]float64, 2*n)
	t := make([]float64, nb)
	for p := 0; p < n; p += nb {
		b := min(nb, n-p)
		for c := range b {
			i := p + c
			row := a[i*n+i : i*n+n]
			if c > 0 {
				// Bring row i up to date with the panel's c reflectors:
				// row -= V[i:n, :c] W[i, :c]ᵀ + W[i:n, :c] V[i, :c]ᵀ.
				v := blas64.General{Rows: n - i, Cols: c, Stride: ld, Data: vw[i*ld:]}
				w := blas64.General{Rows: n - i, Cols: c, Stride: ld, Data: vw[i*ld+nb:]}
				blas64.Gemv(blas.NoTrans, -1, v, vec(vw[i*ld+nb:i*ld+nb+c]), 1, vec(row))
				blas64.Gemv(blas.NoTrans, -1, w, vec(vw[i*ld:i*ld+c]), 1, vec(row))
			}
			d[i] = row[0]
			if i == n-1 {
				break
			}
			// The reflector H = I - τ v vᵀ that zeroes row[2:] against
			// row[1]; v (v[0] = 1) overwrites row[1:].
			m := n - i - 1
			beta, tau := impl.Dlarfg(m, row[1], row[2:], 1)
			e[i] = beta
			row[1] = 1
			v := row[1:]
			// w = τ Ã v with Ã = A - V Wᵀ - W Vᵀ on rows and columns
			// i+1:n, then w -= (τ/2)(wᵀv) v, so that H Ã H = Ã - v wᵀ - w vᵀ.
			ym := y[:m]
			first := (nb - (i+1)%nb) % nb
			symMulVec(m, a[(i+1)*n+i+1:], n, first, v, ym, y[n:n+m])
			if c > 0 {
				vs := blas64.General{Rows: m, Cols: c, Stride: ld, Data: vw[(i+1)*ld:]}
				ws := blas64.General{Rows: m, Cols: c, Stride: ld, Data: vw[(i+1)*ld+nb:]}
				tc := vec(t[:c])
				blas64.Gemv(blas.Trans, 1, ws, vec(v), 0, tc)
				blas64.Gemv(blas.NoTrans, -1, vs, tc, 1, vec(ym))
				blas64.Gemv(blas.Trans, 1, vs, vec(v), 0, tc)
				blas64.Gemv(blas.NoTrans, -1, ws, tc, 1, vec(ym))
			}
			blas64.Scal(tau, vec(ym))
			alpha := -0.5 * tau * blas64.Dot(vec(ym), vec(v))
			blas64.Axpy(alpha, vec(v), vec(ym))
			for j := range m {
				r := vw[(i+1+j)*ld:]
				r[c] = v[j]
				r[nb+c] = ym[j]
			}
		}
		q := p + b
		if q == n {
			break
		}
		// a[q:n, q:n] -= [V W] [W V]ᵀ (b == nb here), a band of rows at a
		// time from its diagonal on: the upper triangle and, whole, the
		// diagonal blocks.
		for j := q; j < n; j++ {
			copy(vw[j*ld+2*nb:j*ld+3*nb], vw[j*ld:j*ld+nb])
		}
		for r0 := q; r0 < n; r0 += updateBand {
			r1 := min(r0+updateBand, n)
			x := blas64.General{Rows: r1 - r0, Cols: 2 * nb, Stride: ld, Data: vw[r0*ld:]}
			z := blas64.General{Rows: n - r0, Cols: 2 * nb, Stride: ld, Data: vw[r0*ld+nb:]}
			blas64.Gemm(blas.NoTrans, blas.Trans, -1, x, z, 1, blas64.General{Rows: r1 - r0, Cols: n - r0, Stride: n, Data: a[r0*n+r0:]})
		}
	}
}

// symMulVec sets y = A x for the symmetric m×m matrix A in a (row stride
// lda) given by its upper triangle and its diagonal blocks of rows
// [0, first), [first, first+tridiagBlock), ...: for each such band, y of
// the band gets the band's rows times x, and y right of the band gets the
// band's rows right of its diagonal block, transposed, times x of the
// band. With two processors the bands are split between two goroutines at
// half the work, the second accumulating into work (length m).
func symMulVec(m int, a []float64, lda, first int, x, y, work []float64) {
	// bands accumulates the bands from row r0 (a band boundary) to r1
	// into y, which it first clears from r0 on.
	bands := func(r0, r1 int, y []float64) {
		clear(y[r0:m])
		for b0 := r0; b0 < r1; {
			b1 := b0 + tridiagBlock
			if b0 < first {
				b1 = first
			}
			b1 = min(b1, m)
			band := blas64.General{Rows: b1 - b0, Cols: m - b0, Stride: lda, Data: a[b0*lda+b0:]}
			blas64.Gemv(blas.NoTrans, 1, band, vec(x[b0:m]), 1, vec(y[b0:b1]))
			if b1 < m {
				right := blas64.General{Rows: b1 - b0, Cols: m - b1, Stride: lda, Data: a[b0*lda+b1:]}
				blas64.Gemv(blas.Trans, 1, right, vec(x[b0:b1]), 1, vec(y[b1:m]))
			}
			b0 = b1
		}
	}
	if m < parallelRows || runtime.GOMAXPROCS(0) < 2 {
		bands(0, m, y)
		return
	}
	// The work of rows r:m is about (m-r)²/2 of m²/2: half at
	// m-r = m/√2, rounded to a band boundary.
	h := m - int(float64(m)/math.Sqrt2)
	h = first + (max(h-first, 0)+tridiagBlock/2)/tridiagBlock*tridiagBlock
	if h >= m {
		bands(0, m, y)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { bands(h, m, work) })
	bands(0, h, y)
	wg.Wait()
	blas64.Axpy(1, vec(work[h:m]), vec(y[h:m]))
}

// vec returns x as a unit-stride blas64 vector.
func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }

// mulVec sets y = A x for the n×n matrix A in a with row stride lda,
// splitting the rows between two goroutines when two processors are
// available: the product reads the whole matrix for 2 flops an element,
// so it is bound by memory bandwidth, which a second core adds to.
func mulVec(n int, a []float64, lda int, x, y []float64) {
	gemv := func(r0, r1 int) {
		m := blas64.General{Rows: r1 - r0, Cols: n, Stride: lda, Data: a[r0*lda:]}
		blas64.Gemv(blas.NoTrans, 1, m, vec(x[:n]), 0, vec(y[r0:r1]))
	}
	if n < parallelRows || runtime.GOMAXPROCS(0) < 2 {
		gemv(0, n)
		return
	}
	h := n / 2
	var wg sync.WaitGroup
	wg.Go(func() { gemv(h, n) })
	gemv(0, h)
	wg.Wait()
}

// lanczosSteps bounds the number of Lanczos steps of lambdaMax.
const lanczosSteps = 100

// lambdaMax estimates the largest eigenvalue of the symmetric n×n matrix a
// (full storage) from below, as the largest eigenvalue of the Lanczos
// tridiagonal matrix of a fixed pseudo-random start vector (which has a
// component along every eigenvector, unlike a vector such as all ones).
// The largest Ritz value converges first and fastest; the iteration stops
// when it has changed by at most 1e-14 relative over three steps, at an
// invariant subspace, or after lanczosSteps steps. The estimate only
// scales tolerances, so no reorthogonalization is done: lost orthogonality
// makes copies of converged Ritz values, not larger ones. It returns NaN
// if the iteration meets Inf or NaN.
func lambdaMax(n int, a []float64) float64 {
	rng := rand.New(rand.NewPCG(0x5eed, uint64(n)))
	q := make([]float64, n)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	blas64.Scal(1/blas64.Nrm2(vec(q)), vec(q))
	qPrev := make([]float64, n)
	w := make([]float64, n)
	steps := min(n, lanczosSteps)
	alpha := make([]float64, 0, steps)
	beta := make([]float64, 0, steps)
	d := make([]float64, steps)
	e := make([]float64, steps)
	impl := gonum.Implementation{}
	est, still := math.Inf(-1), 0
	for k := range steps {
		mulVec(n, a, n, q, w)
		al := blas64.Dot(vec(w), vec(q))
		blas64.Axpy(-al, vec(q), vec(w))
		if k > 0 {
			blas64.Axpy(-beta[k-1], vec(qPrev), vec(w))
		}
		alpha = append(alpha, al)
		b := blas64.Nrm2(vec(w))
		copy(d, alpha)
		copy(e, beta)
		if !impl.Dsterf(k+1, d, e) {
			return math.NaN()
		}
		theta := d[k]
		if math.IsNaN(theta) || math.IsInf(theta, 0) {
			return math.NaN()
		}
		if theta-est <= 1e-14*math.Abs(theta) {
			still++
		} else {
			still = 0
		}
		est = theta
		// b = 0 (to rounding) means an invariant subspace: the Ritz
		// values are eigenvalues, the largest λmax as the start vector
		// has a component along its eigenvector.
		if still == 3 || b <= 0x1p-52*math.Max(math.Abs(theta), math.Abs(al)) {
			break
		}
		beta = append(beta, b)
		blas64.Scal(1/b, vec(w))
		qPrev, q, w = q, w, qPrev
	}
	return est
}

// choleskyUpper returns the upper triangular U with a + shift·I = Uᵀ U for
// the symmetric n×n matrix a (full storage), row-major with zeros below
// the diagonal, or nil if a + shift·I is not positive definite.
func choleskyUpper(n int, a []float64, shift float64) []float64 {
	u := make([]float64, n*n)
	for i := range n {
		copy(u[i*n+i:i*n+n], a[i*n+i:i*n+n])
		u[i*n+i] += shift
	}
	if !(gonum.Implementation{}).Dpotrf(blas.Upper, n, u, max(n, 1)) {
		return nil
	}
	return u
}

// congruenceBlock is the block size of triCongruence's products: large
// enough for gonum's matrix product to run at speed and in parallel, small
// enough that the zeros it multiplies (half of each diagonal block of U)
// cost little (about n²·congruenceBlock of the n³ flops).
const congruenceBlock = 128

// triCongruence returns U S Uᵀ (r×r, full storage) for the first r rows U
// of an n×n upper triangular matrix (zeros below the diagonal) and the
// symmetric n×n S (full storage), with eigenvalues those of S UᵀU if
// r = n. It computes the upper triangle of M = T Uᵀ a block of columns at
// a time (n³/3 flops for r = n), which reads T = U S only right of the
// diagonal block of each block of rows, so only that part of T is
// computed, a block of rows at a time (2n³/3 flops), each block as one
// general matrix product; M's upper triangle is then mirrored, so the
// result is exactly symmetric. Two triangular products (blas64.Trmm)
// would take 2n³ flops, at a lower rate.
func triCongruence(n, r int, u, s []float64) []float64 {
	const bs = congruenceBlock
	t := make([]float64, r*n)
	for r0 := 0; r0 < r; r0 += bs {
		r1 := min(r0+bs, r)
		ub := blas64.General{Rows: r1 - r0, Cols: n - r0, Stride: n, Data: u[r0*n+r0:]}
		sb := blas64.General{Rows: n - r0, Cols: n - r0, Stride: n, Data: s[r0*n+r0:]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, ub, sb, 0, blas64.General{Rows: r1 - r0, Cols: n - r0, Stride: n, Data: t[r0*n+r0:]})
	}
	m := make([]float64, r*r)
	for c0 := 0; c0 < r; c0 += bs {
		c1 := min(c0+bs, r)
		tb := blas64.General{Rows: c1, Cols: n - c0, Stride: n, Data: t[c0:]}
		ub := blas64.General{Rows: c1 - c0, Cols: n - c0, Stride: n, Data: u[c0*n+c0:]}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, tb, ub, 0, blas64.General{Rows: c1, Cols: c1 - c0, Stride: r, Data: m[c0:]})
	}
	mirrorUpper(r, m)
	return m
}

// pivotedCongruence returns M = R Pᵀ s P Rᵀ (r×r, full storage) for the
// Cholesky factorization with complete pivoting Pᵀ a P ≈ Rᵀ R of the
// positive semidefinite n×n a (full storage), R r×n upper trapezoidal:
// its nonzero eigenvalues are those of a s. The factorization stops when
// no pivot exceeds tol, leaving out a remainder whose diagonal is at most
// tol, as an eigendecomposition with eigenvalues up to tol taken as zero
// leaves out Σ λ of them.
func pivotedCongruence(n int, a, s []float64, tol float64) (m []float64, r int) {
	u := make([]float64, n*n)
	for i := range n {
		copy(u[i*n+i:i*n+n], a[i*n+i:i*n+n])
	}
	piv := make([]int, n)
	r, _ = gonum.Implementation{}.Dpstrf(blas.Upper, n, u, max(n, 1), piv, tol, make([]float64, 2*n))
	// Rows r:n of u hold the remainder: R is rows 0:r.
	ps := make([]float64, n*n)
	for i, pi := range piv {
		for j, pj := range piv {
			ps[i*n+j] = s[pi*n+pj]
		}
	}
	return triCongruence(n, r, u, ps), r
}

// mirrorUpper copies the upper triangle of the n×n matrix m to the lower,
// in square tiles so that both stay in cache.
func mirrorUpper(n int, m []float64) {
	const tile = 64
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := i0; j0 < n; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				for j := max(j0, i+1); j < min(j0+tile, n); j++ {
					m[j*n+i] = m[i*n+j]
				}
			}
		}
	}
}
