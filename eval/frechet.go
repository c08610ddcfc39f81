package eval

import (
	"fmt"
	"math"
	"slices"

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
// λmax is estimated by a Lanczos iteration, from below and typically to
// 1e-12 relative (1e-5 for a spectrum evenly spread up to λmax), a change
// of scale far smaller than the margin between noise and these bounds.
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
// with Σa = UᵀU (Cholesky) if Σa is positive definite, else U Σa Uᵀ with
// Σb = UᵀU if Σb is, else R Pᵀ Σb P Rᵀ with Pᵀ Σa P = RᵀR (Cholesky with
// complete pivoting, stopped at rounding noise).
// Unlike a general matrix square root this stays exact for singular
// covariances (fewer samples than dimensions). If the result is
// nonetheless Inf or NaN, the square root
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
		diff += float64(d * d) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
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
// the routes below); the trace of the principal square root is the sum of
// the square roots of its eigenvalues. Eigenvalues that are rounding noise
// count as zero (see NegativeTolerance). A failed factorization gives NaN,
// so that the caller retries with an offset; a covariance that is clearly
// not positive semidefinite is an error.
//
// Only that matrix's eigenvalues are computed in full: λmax(s1) and
// λmax(s2), which scale the tolerances, are Lanczos estimates
// (lambdaMax), and a covariance is positive definite if its Cholesky
// factorization succeeds, else checked with checkPSD. s2 needs no check of
// its own when s1 is positive definite and M = U s2 Uᵀ (s1 = UᵀU) has no
// eigenvalue that could be noise: M is congruent to s2, so by Sylvester's
// law of inertia s2 is then positive definite too.
//
// The routes, in order of preference: M = U s2 Uᵀ for s1 = UᵀU
// (Cholesky); U s1 Uᵀ for s2 = UᵀU, as Tr √(s1 s2) = Tr √(s2 s1); and for
// both singular, R Pᵀ s2 P Rᵀ from Pᵀ s1 P = RᵀR with complete pivoting,
// stopped where the pivots left are rounding noise, as the eigenvalues
// are counted (pivotedCongruence; no eigenvectors, so it costs no more
// than the others).
// Unlike a general matrix square root these stay exact for singular
// covariances (fewer samples than dimensions).
func traceSqrtProduct(s1, s2 *mat.SymDense) (float64, error) {
	n := s1.SymmetricDim()
	c1, c2 := newCovariance(s1, "first"), newCovariance(s2, "second")
	if math.IsNaN(c1.lmax) || math.IsNaN(c2.lmax) {
		return math.NaN(), nil
	}
	var m, u2 []float64
	u1 := choleskyUpper(n, c1.a, 0)
	if u1 == nil {
		if ok, err := c1.checkPSD(); err != nil || !ok {
			return math.NaN(), err
		}
		u2 = choleskyUpper(n, c2.a, 0)
		if u2 == nil {
			if ok, err := c2.checkPSD(); err != nil || !ok {
				return math.NaN(), err
			}
		}
	}
	zero := zeroTolerance(n)
	r := n
	switch {
	case u1 != nil:
		m = triCongruence(n, n, u1, c2.a)
	case u2 != nil:
		m = triCongruence(n, n, u2, c1.a)
	default:
		m, r = pivotedCongruence(n, c1.a, c2.a, zero*c1.lmax)
	}
	l, ok := symEigenvalues(r, m)
	if !ok {
		return math.NaN(), nil
	}
	scale := max(c1.lmax, 0) * max(c2.lmax, 0)
	if u1 != nil && !(l[0] > zero*scale) && choleskyUpper(n, c2.a, 0) == nil {
		// M may be singular or indefinite: s2 needs its own check, before
		// M's eigenvalues are judged.
		if ok, err := c2.checkPSD(); err != nil || !ok {
			return math.NaN(), err
		}
	}
	var sum float64
	for _, l := range l {
		if l < -NegativeTolerance*scale {
			return 0, fmt.Errorf("eval: Σa Σb has eigenvalue %g: its square root has an imaginary component", math.Ldexp(l, c1.exp+c2.exp))
		}
		if l > zero*scale {
			sum += math.Sqrt(l)
		}
	}
	return math.Ldexp(sum, (c1.exp+c2.exp)/2), nil
}

// covariance is one argument of traceSqrtProduct, scaled by a power of
// two: no step can then overflow (gonum's Dsterf panics on entries beyond
// about 1e153) or lose the largest entries to underflow, and, as the
// scaling is exact and the tolerances relative, the result is that of the
// unscaled matrices.
type covariance struct {
	n     int
	a     []float64 // 2^-exp Σ, n×n, full storage; largest magnitude in [1/4, 1)
	exp   int       // even, so that the square root term scales exactly
	lmax  float64   // Lanczos estimate of λmax(a) from below (lambdaMax)
	which string    // "first" or "second", for messages
}

// newCovariance returns s scaled, in full storage, with its λmax estimate.
func newCovariance(s *mat.SymDense, which string) covariance {
	n := s.SymmetricDim()
	a := fullSym(s)
	var big float64
	for _, v := range a {
		big = max(big, math.Abs(v))
	}
	_, exp := math.Frexp(big)
	exp += exp & 1
	if big == 0 {
		exp = 0
	}
	for i, v := range a {
		a[i] = math.Ldexp(v, -exp)
	}
	return covariance{n: n, a: a, exp: exp, lmax: lambdaMax(n, a), which: which}
}

// checkPSD returns an error if the covariance, whose Cholesky factorization
// has failed, has an eigenvalue below -NegativeTolerance·λmax. If
// a + NegativeTolerance·lmax·I has a Cholesky factorization, then it is
// positive definite and a passes (to rounding of order d·ε·λmax, far inside
// the tolerance); otherwise, and for lmax <= 0, the eigenvalues decide and
// give the message. ok is false if they fail to converge.
func (c covariance) checkPSD() (ok bool, err error) {
	n := c.n
	if c.lmax > 0 && choleskyUpper(n, c.a, NegativeTolerance*c.lmax) != nil {
		return true, nil
	}
	l, ok := symEigenvalues(n, slices.Clone(c.a))
	if !ok {
		return false, nil
	}
	if l[0] < -NegativeTolerance*l[n-1] {
		return true, fmt.Errorf("eval: %s covariance is not positive semidefinite (eigenvalue %g, largest %g)",
			c.which, math.Ldexp(l[0], c.exp), math.Ldexp(l[n-1], c.exp))
	}
	return true, nil
}

// fullSym returns the n×n symmetric s with both triangles stored, row-major
// with stride n.
func fullSym(s *mat.SymDense) []float64 {
	n := s.SymmetricDim()
	raw := s.RawSymmetric()
	a := make([]float64, n*n)
	for i := range n {
		copy(a[i*n+i:i*n+n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	mirrorUpper(n, a)
	return a
}

func init() { Register("fid", fidMetric{}) }

// fidMetric is the registered "fid".
type fidMetric struct{}

func (fidMetric) Summary() string {
	return "Fréchet distance between the Gaussians of two sets' features (FID), as pytorch-fid computes it; from statistics alone too"
}

func (fidMetric) Label(features string) string { return "FID (" + features + ")" }
func (fidMetric) NeedsRows() bool              { return false }

func (fidMetric) CompareSets(a, b Features, _ Options) ([]float64, error) {
	sa, err := a.stats()
	if err != nil {
		return nil, err
	}
	sb, err := b.stats()
	if err != nil {
		return nil, err
	}
	d, err := FrechetDistance(sa, sb)
	if err != nil {
		return nil, err
	}
	return []float64{d}, nil
}
