package eval

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Stats are the mean and covariance of a set of feature vectors, the
// summary from which the Fréchet distance between two sets is computed.
type Stats struct {
	Mu    []float64     // mean of the feature vectors
	Sigma *mat.SymDense // sample covariance, normalized by N-1
	// Features names the feature network and mode that made the
	// features, e.g. "Inception-v3, pytorch-fid" (an Extractor's Name);
	// "" when unknown. Statistics of different networks or modes are
	// not comparable.
	Features string
}

// Dim returns the feature dimension, len(s.Mu).
func (s Stats) Dim() int { return len(s.Mu) }

// StatsOf returns the mean and the sample covariance (normalized by N-1, as
// numpy.cov does by default) of the rows of x, one feature vector a row.
// It needs at least two rows.
func StatsOf(x mat.Matrix) (Stats, error) {
	n, d := x.Dims()
	if n < 2 {
		return Stats{}, fmt.Errorf("eval: statistics need at least 2 feature vectors, have %d", n)
	}
	mu := make([]float64, d)
	col := make([]float64, n)
	for j := range d {
		mat.Col(col, j, x)
		mu[j] = stat.Mean(col, nil)
	}
	var sigma mat.SymDense
	stat.CovarianceMatrix(&sigma, x, nil)
	return Stats{Mu: mu, Sigma: &sigma}, nil
}

// StatsOfRows is StatsOf for feature vectors given as float32 rows, the
// form a network's output takes. All rows must have the same length.
func StatsOfRows(rows [][]float32) (Stats, error) {
	if len(rows) < 2 {
		return Stats{}, fmt.Errorf("eval: statistics need at least 2 feature vectors, have %d", len(rows))
	}
	d := len(rows[0])
	if d == 0 {
		return Stats{}, fmt.Errorf("eval: feature vectors are empty")
	}
	x := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		if len(r) != d {
			return Stats{}, fmt.Errorf("eval: feature vector %d has length %d, vector 0 has %d", i, len(r), d)
		}
		dst := x.RawRowView(i)
		for j, v := range r {
			dst[j] = float64(v)
		}
	}
	return StatsOf(x)
}

// FrechetOffset is added to both covariance diagonals when the square root
// term comes out Inf or NaN, as pytorch-fid does (its eps argument).
const FrechetOffset = 1e-6

// NegativeTolerance decides which negative eigenvalues are rounding noise.
// An eigenvalue of a covariance Σ is noise if it is at least
// -NegativeTolerance·λmax(Σ); an eigenvalue of √Σ₁ Σ₂ √Σ₁ is noise if it is
// at least -NegativeTolerance·λmax(Σ₁)·λmax(Σ₂). Anything more negative
// means a covariance that is not positive semidefinite, for which
// pytorch-fid reports an imaginary component; FrechetDistance returns an
// error. Rounding noise is of order d·ε times those scales (about 5e-13
// for d = 2048), far inside this bound; the bound is scale-invariant.
//
// Noise is taken as zero. Small positive eigenvalues are noise too: those
// below 8·d·ε times the same scales count as zero. This matters for
// singular covariances (fewer samples than dimensions), whose null space
// would otherwise add √(noise), about 1e-8 per null direction, to
// Tr √(Σ₁Σ₂); scipy's sqrtm, and so pytorch-fid, has errors of that size
// there.
const NegativeTolerance = 1e-9

// zeroTolerance is the relative size below which a positive eigenvalue of
// a d×d problem is rounding noise.
func zeroTolerance(d int) float64 { return 8 * float64(d) * 0x1p-52 }

// FrechetDistance returns the Fréchet distance between the Gaussians
// N(a.Mu, a.Sigma) and N(b.Mu, b.Sigma):
//
//	|μa - μb|² + Tr(Σa) + Tr(Σb) - 2 Tr(√(Σa Σb))
//
// the quantity pytorch-fid reports as FID when a and b are statistics of
// Inception features. Tr √(Σa Σb) is computed as the sum of the square
// roots of the eigenvalues of a symmetric matrix similar to Σa Σb: U Σb Uᵀ
// with Σa = UᵀU (Cholesky) if Σa is positive definite, else √Σa Σb √Σa
// from the eigendecomposition of Σa. Unlike a general matrix square root
// this stays exact for singular covariances (fewer samples than
// dimensions). If the result is nonetheless Inf or NaN, the square root
// term is computed again with FrechetOffset added to both diagonals, as
// pytorch-fid does.
//
// The distance is never negative, but for identical (or nearly identical)
// statistics rounding can make the computed value a tiny negative number
// such as -3e-13; it is clamped to 0, the value pytorch-fid users expect.
func FrechetDistance(a, b Stats) (float64, error) {
	return frechet(a, b, traceSqrtProduct)
}

// frechet takes the square-root trace routine as an argument so tests can
// exercise the offset retry.
func frechet(a, b Stats, trSqrt func(s1, s2 *mat.SymDense) (float64, error)) (float64, error) {
	if err := a.check("first"); err != nil {
		return 0, err
	}
	if err := b.check("second"); err != nil {
		return 0, err
	}
	if a.Dim() != b.Dim() {
		return 0, fmt.Errorf("eval: statistics have dimensions %d and %d", a.Dim(), b.Dim())
	}
	var diff float64
	for i, m := range a.Mu {
		d := m - b.Mu[i]
		diff += d * d
	}
	tr := mat.Trace(a.Sigma) + mat.Trace(b.Sigma)
	ts, err := trSqrt(a.Sigma, b.Sigma)
	if err != nil {
		return 0, err
	}
	if math.IsInf(ts, 0) || math.IsNaN(ts) {
		ts, err = trSqrt(addDiag(a.Sigma, FrechetOffset), addDiag(b.Sigma, FrechetOffset))
		if err != nil {
			return 0, err
		}
		if math.IsInf(ts, 0) || math.IsNaN(ts) {
			return 0, fmt.Errorf("eval: Tr √(Σa Σb) is %v even with offset %g", ts, FrechetOffset)
		}
	}
	return math.Max(0, diff+tr-2*ts), nil
}

// check reports malformed statistics; which names them in the message.
func (s Stats) check(which string) error {
	d := len(s.Mu)
	if d == 0 {
		return fmt.Errorf("eval: %s statistics are empty", which)
	}
	if s.Sigma == nil {
		return fmt.Errorf("eval: %s statistics have no covariance", which)
	}
	if n := s.Sigma.SymmetricDim(); n != d {
		return fmt.Errorf("eval: %s statistics: mean has dimension %d, covariance %d", which, d, n)
	}
	for i, m := range s.Mu {
		if math.IsInf(m, 0) || math.IsNaN(m) {
			return fmt.Errorf("eval: %s statistics: mean[%d] is %v", which, i, m)
		}
	}
	for i := range d {
		for j := i; j < d; j++ {
			if v := s.Sigma.At(i, j); math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Errorf("eval: %s statistics: covariance[%d,%d] is %v", which, i, j, v)
			}
		}
	}
	return nil
}

// addDiag returns a copy of s with v added to its diagonal.
func addDiag(s *mat.SymDense, v float64) *mat.SymDense {
	c := mat.NewSymDense(s.SymmetricDim(), nil)
	c.CopySym(s)
	for i := range c.SymmetricDim() {
		c.SetSym(i, i, c.At(i, i)+v)
	}
	return c
}

// traceSqrtProduct returns Tr √(s1 s2) for positive semidefinite s1 and s2.
// It forms a symmetric positive semidefinite matrix similar to s1 s2 (see
// congruence); the trace of the principal square root is the sum of the
// square roots of its eigenvalues. Eigenvalues that are rounding noise
// count as zero (see NegativeTolerance). A failed factorization gives NaN,
// so that the caller retries with an offset; a covariance that is clearly
// not positive semidefinite is an error.
func traceSqrtProduct(s1, s2 *mat.SymDense) (float64, error) {
	n := s1.SymmetricDim()
	var e1, e2 mat.EigenSym
	if !e1.Factorize(s1, false) || !e2.Factorize(s2, false) {
		return math.NaN(), nil
	}
	l1 := e1.Values(nil) // ascending
	l2 := e2.Values(nil)
	max1, max2 := l1[n-1], l2[n-1]
	if l1[0] < -NegativeTolerance*max1 {
		return 0, fmt.Errorf("eval: first covariance is not positive semidefinite (eigenvalue %g, largest %g)", l1[0], max1)
	}
	if l2[0] < -NegativeTolerance*max2 {
		return 0, fmt.Errorf("eval: second covariance is not positive semidefinite (eigenvalue %g, largest %g)", l2[0], max2)
	}
	zero := zeroTolerance(n)
	m, ok := congruence(s1, s2, zero*max1)
	if !ok {
		return math.NaN(), nil
	}
	var e3 mat.EigenSym
	if !e3.Factorize(m, false) {
		return math.NaN(), nil
	}
	scale := max(max1, 0) * max(max2, 0)
	var sum float64
	for _, l := range e3.Values(nil) {
		if l < -NegativeTolerance*scale {
			return 0, fmt.Errorf("eval: Σa Σb has eigenvalue %g: its square root has an imaginary component", l)
		}
		if l > zero*scale {
			sum += math.Sqrt(l)
		}
	}
	return sum, nil
}

// congruence returns a symmetric positive semidefinite matrix with the
// eigenvalues of s1 s2: by Cholesky if s1 is positive definite, else from
// the eigendecomposition of s1, whose eigenvalues up to zero1 count as
// zero. ok is false if both factorizations fail.
func congruence(s1, s2 *mat.SymDense, zero1 float64) (m *mat.SymDense, ok bool) {
	if m, ok := choleskyCongruence(s1, s2); ok {
		return m, true
	}
	return eigenCongruence(s1, s2, zero1)
}

// choleskyCongruence returns U s2 Uᵀ for s1 = Uᵀ U, which is similar to
// Uᵀ U s2 = s1 s2; it costs two triangular products and no eigenvectors.
// ok is false if s1 is not positive definite.
func choleskyCongruence(s1, s2 *mat.SymDense) (*mat.SymDense, bool) {
	var ch mat.Cholesky
	if !ch.Factorize(s1) {
		return nil, false
	}
	var ut mat.TriDense
	ch.UTo(&ut)
	u := ut.RawTriangular()
	t := mat.DenseCopyOf(s2)
	raw := t.RawMatrix()
	blas64.Trmm(blas.Left, blas.NoTrans, 1, u, raw)
	blas64.Trmm(blas.Right, blas.Trans, 1, u, raw)
	return symPart(t), true
}

// eigenCongruence returns Λ^½ Vᵀ s2 V Λ^½ for s1 = V Λ Vᵀ, which is similar
// to √s1 s2 √s1 and so to s1 s2, for singular s1 too. Eigenvalues of s1 up
// to zero1 count as zero.
func eigenCongruence(s1, s2 *mat.SymDense, zero1 float64) (*mat.SymDense, bool) {
	n := s1.SymmetricDim()
	var e mat.EigenSym
	if !e.Factorize(s1, true) {
		return nil, false
	}
	var v, w mat.Dense
	e.VectorsTo(&v)
	w.Mul(s2, &v)
	t := mat.NewDense(n, n, nil)
	t.Mul(v.T(), &w)
	raw := t.RawMatrix()
	for i, l := range e.Values(nil) {
		r := 0.0
		if l > zero1 {
			r = math.Sqrt(l)
		}
		blas64.Scal(r, blas64.Vector{N: n, Inc: 1, Data: raw.Data[i*raw.Stride:]})
		blas64.Scal(r, blas64.Vector{N: n, Inc: raw.Stride, Data: raw.Data[i:]})
	}
	return symPart(t), true
}

// symPart returns (t + tᵀ)/2; t is symmetric up to rounding.
func symPart(t *mat.Dense) *mat.SymDense {
	n, _ := t.Dims()
	m := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			m.SetSym(i, j, (t.At(i, j)+t.At(j, i))/2)
		}
	}
	return m
}
