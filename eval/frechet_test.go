package eval

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

func TestStatsOfHand(t *testing.T) {
	// Rows (1,2), (3,6), (5,7): mean (3,5); deviations (-2,-3), (0,1),
	// (2,2); with N-1 = 2: var = 8/2, 14/2, cov = 10/2.
	want := Stats{Mu: []float64{3, 5}, Sigma: mat.NewSymDense(2, []float64{4, 5, 5, 7})}
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 6, 5, 7})
	s, err := StatsOf(x)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, "StatsOf", s, want, 1e-15)
	s, err = StatsOfRows([][]float32{{1, 2}, {3, 6}, {5, 7}})
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, "StatsOfRows", s, want, 1e-15)
}

func checkStats(t *testing.T, name string, got, want Stats, tol float64) {
	t.Helper()
	if len(got.Mu) != len(want.Mu) {
		t.Fatalf("%s: dim %d, want %d", name, len(got.Mu), len(want.Mu))
	}
	for i := range want.Mu {
		if math.Abs(got.Mu[i]-want.Mu[i]) > tol {
			t.Errorf("%s: mu[%d] = %g, want %g", name, i, got.Mu[i], want.Mu[i])
		}
	}
	if !mat.EqualApprox(got.Sigma, want.Sigma, tol) {
		t.Errorf("%s: sigma = %v, want %v", name, mat.Formatted(got.Sigma), mat.Formatted(want.Sigma))
	}
}

func TestStatsOfErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows [][]float32
		want string
	}{
		{"none", nil, "at least 2"},
		{"one", [][]float32{{1, 2}}, "at least 2"},
		{"ragged", [][]float32{{1, 2}, {3}}, "vector 1 has length 1"},
		{"empty", [][]float32{{}, {}}, "empty"},
	} {
		_, err := StatsOfRows(tc.rows)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := StatsOf(mat.NewDense(1, 3, nil)); err == nil {
		t.Errorf("StatsOf of one row: no error")
	}
}

func diagStats(mu, v []float64) Stats {
	s := mat.NewSymDense(len(v), nil)
	for i, x := range v {
		s.SetSym(i, i, x)
	}
	return Stats{Mu: mu, Sigma: s}
}

// closedForm is the Fréchet distance of Gaussians whose covariances share
// eigenvectors, with eigenvalues va and vb.
func closedForm(mua, mub, va, vb []float64) float64 {
	var d float64
	for i := range mua {
		d += (mua[i] - mub[i]) * (mua[i] - mub[i])
		r := math.Sqrt(va[i]) - math.Sqrt(vb[i])
		d += r * r
	}
	return d
}

func TestFrechetDiagonal(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mua, mub   []float64
		va, vb     []float64
		wantExactd float64 // hand value
	}{
		// |Δμ|² = 1; (1-2)² + (2-3)² = 2.
		{"2d", []float64{0, 0}, []float64{1, 0}, []float64{1, 4}, []float64{4, 9}, 3},
		// 1-D: (3-1)² + (√9-√1)² = 4 + 4.
		{"1d", []float64{3}, []float64{1}, []float64{9}, []float64{1}, 8},
		// Singular: zero variances. (√4-0)² + (0-√9)² + (√1-√1)² = 13.
		{"singular", []float64{0, 0, 0}, []float64{0, 0, 0}, []float64{4, 0, 1}, []float64{0, 9, 1}, 13},
		// Both zero: only the means.
		{"zero", []float64{1, 2}, []float64{4, 6}, []float64{0, 0}, []float64{0, 0}, 25},
		// Scale: variances 1e6 and 1e-6 at once.
		{"scales", []float64{0, 0}, []float64{0, 0}, []float64{1e6, 1e-6}, []float64{4e6, 4e-6}, 1e6 + 1e-6},
	} {
		got, err := FrechetDistance(diagStats(tc.mua, tc.va), diagStats(tc.mub, tc.vb))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if cf := closedForm(tc.mua, tc.mub, tc.va, tc.vb); math.Abs(cf-tc.wantExactd) > 1e-9*tc.wantExactd {
			t.Fatalf("%s: closed form %g disagrees with hand value %g", tc.name, cf, tc.wantExactd)
		}
		if math.Abs(got-tc.wantExactd) > 1e-9*math.Max(1, tc.wantExactd) {
			t.Errorf("%s: FrechetDistance = %.17g, want %g", tc.name, got, tc.wantExactd)
		}
	}
}

// randOrthogonal returns a random d×d orthogonal matrix (Q of a QR).
func randOrthogonal(rng *rand.Rand, d int) *mat.Dense {
	a := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// sym returns Q diag(v) Qᵀ.
func sym(q *mat.Dense, v []float64) *mat.SymDense {
	d := len(v)
	var t, m mat.Dense
	t.Mul(q, mat.NewDiagDense(d, v))
	m.Mul(&t, q.T())
	s := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			s.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	return s
}

func TestFrechetCommuting(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{2, 7, 30} {
		q := randOrthogonal(rng, d)
		mua, mub, va, vb := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		for i := range d {
			mua[i], mub[i] = rng.NormFloat64(), rng.NormFloat64()
			va[i], vb[i] = rng.ExpFloat64(), rng.ExpFloat64()
		}
		va[0] = 0 // one singular direction
		want := closedForm(mua, mub, va, vb)
		got, err := FrechetDistance(Stats{Mu: mua, Sigma: sym(q, va)}, Stats{Mu: mub, Sigma: sym(q, vb)})
		if err != nil {
			t.Fatalf("d=%d: %v", d, err)
		}
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("d=%d: FrechetDistance = %.15g, closed form %.15g", d, got, want)
		}
	}
}

func randSPD(rng *rand.Rand, d int, ridge float64) *mat.SymDense {
	x := mat.NewDense(2*d, d, nil)
	for i := range 2 * d {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1/float64(2*d), x.T())
	for i := range d {
		s.SetSym(i, i, s.At(i, i)+ridge)
	}
	return s
}

// traceSqrtDB is Tr √(a b) by the Denman–Beavers iteration on the
// non-symmetric product, a second algorithm for nonsingular a b.
func traceSqrtDB(a, b mat.Matrix) float64 {
	d, _ := a.Dims()
	var y, z mat.Dense
	y.Mul(a, b)
	z.CloneFrom(eye(d))
	for range 100 {
		var yi, zi mat.Dense
		if err := yi.Inverse(&y); err != nil {
			panic(err)
		}
		if err := zi.Inverse(&z); err != nil {
			panic(err)
		}
		var yn, zn mat.Dense
		yn.Add(&y, &zi)
		yn.Scale(0.5, &yn)
		zn.Add(&z, &yi)
		zn.Scale(0.5, &zn)
		done := mat.EqualApprox(&yn, &y, 1e-14*mat.Norm(&y, 1))
		y, z = yn, zn
		if done {
			break
		}
	}
	return mat.Trace(&y)
}

// traceSqrtEigen is Tr √(a b) from the eigenvalues of the non-symmetric
// product a b (real and non-negative for positive semidefinite a and b),
// which also covers singular products.
func traceSqrtEigen(a, b mat.Matrix) float64 {
	var p mat.Dense
	p.Mul(a, b)
	var e mat.Eigen
	if !e.Factorize(&p, mat.EigenNone) {
		panic("eigen failed")
	}
	var s float64
	for _, l := range e.Values(nil) {
		s += real(cmplx.Sqrt(complex(math.Max(real(l), 0), 0)))
	}
	return s
}

func eye(d int) *mat.Dense {
	m := mat.NewDense(d, d, nil)
	for i := range d {
		m.Set(i, i, 1)
	}
	return m
}

func TestTraceSqrtAgainstReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 2, 5, 16, 40} {
		a, b := randSPD(rng, d, 0.05), randSPD(rng, d, 0.05)
		got, err := traceSqrtProduct(a, b)
		if err != nil {
			t.Fatal(err)
		}
		db, ev := traceSqrtDB(a, b), traceSqrtEigen(a, b)
		if math.Abs(got-db) > 1e-6*db || math.Abs(got-ev) > 1e-6*ev {
			t.Errorf("d=%d: Tr √(ab) = %.15g, Denman–Beavers %.15g, eigenvalues %.15g", d, got, db, ev)
		}
		// The whole distance against the reference formula.
		mua, mub := randVec(rng, d), randVec(rng, d)
		fd, err := FrechetDistance(Stats{Mu: mua, Sigma: a}, Stats{Mu: mub, Sigma: b})
		if err != nil {
			t.Fatal(err)
		}
		var diff float64
		for i := range mua {
			diff += (mua[i] - mub[i]) * (mua[i] - mub[i])
		}
		want := diff + mat.Trace(a) + mat.Trace(b) - 2*db
		if math.Abs(fd-want) > 1e-6*want {
			t.Errorf("d=%d: FrechetDistance = %.15g, want %.15g", d, fd, want)
		}
	}
}

func randVec(rng *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func randRows(rng *rand.Rand, n, d int, shift float64) [][]float32 {
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = make([]float32, d)
		for j := range rows[i] {
			rows[i][j] = float32(rng.NormFloat64() + shift*float64(j%3))
		}
	}
	return rows
}

// traceSqrtReduced is Tr √(Σa Σb) for Σa the sample covariance of the n
// rows x, computed without the null space: Σa = B Bᵀ with B the centred
// rows (transposed) over √(n-1), and B 1 = 0, so with H an orthonormal
// basis of the complement of 1, Σa = (BH)(BH)ᵀ and the nonzero
// eigenvalues of Σa Σb are those of the (n-1)×(n-1) matrix (BH)ᵀ Σb (BH),
// which has full rank when Σb has rank at least n-1.
func traceSqrtReduced(x [][]float32, sb *mat.SymDense) float64 {
	n, d := len(x), len(x[0])
	bt := mat.NewDense(n, d, nil) // Bᵀ
	for j := range d {
		var m float64
		for i := range n {
			m += float64(x[i][j])
		}
		m /= float64(n)
		for i := range n {
			bt.Set(i, j, (float64(x[i][j])-m)/math.Sqrt(float64(n-1)))
		}
	}
	// H: columns 2..n of the Q of [1 | I(:, 1:n-1)].
	g := mat.NewDense(n, n, nil)
	for i := range n {
		g.Set(i, 0, 1)
		if i < n-1 {
			g.Set(i, i+1, 1)
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	h := q.Slice(0, n, 1, n)
	var bh, t1, k mat.Dense
	bh.Mul(bt.T(), h) // d×(n-1)
	t1.Mul(sb, &bh)
	k.Mul(bh.T(), &t1)
	ks := mat.NewSymDense(n-1, nil)
	for i := range n - 1 {
		for j := i; j < n-1; j++ {
			ks.SetSym(i, j, (k.At(i, j)+k.At(j, i))/2)
		}
	}
	var e mat.EigenSym
	if !e.Factorize(ks, false) {
		panic("eigen failed")
	}
	var s float64
	for _, l := range e.Values(nil) {
		s += math.Sqrt(l)
	}
	return s
}

func TestFrechetSingular(t *testing.T) {
	// Fewer samples than dimensions: both covariances have rank n-1 < d,
	// and so does their product. The reference reduces the problem to a
	// full-rank one of size na-1 (na <= nb), avoiding the null space.
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ na, nb, d int }{{5, 5, 10}, {3, 8, 12}, {4, 20, 30}, {2, 3, 5}, {60, 100, 200}} {
		xa := randRows(rng, tc.na, tc.d, 0)
		a, err := StatsOfRows(xa)
		if err != nil {
			t.Fatal(err)
		}
		b, err := StatsOfRows(randRows(rng, tc.nb, tc.d, 0.5))
		if err != nil {
			t.Fatal(err)
		}
		want := traceSqrtReduced(xa, b.Sigma)
		if ev := traceSqrtEigen(a.Sigma, b.Sigma); math.Abs(ev-want) > 1e-6*want {
			t.Fatalf("%v: references disagree: %.15g, %.15g", tc, want, ev)
		}
		for _, order := range []string{"ab", "ba"} {
			s1, s2 := a.Sigma, b.Sigma
			if order == "ba" {
				s1, s2 = s2, s1
			}
			got, err := traceSqrtProduct(s1, s2)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsInf(got, 0) || math.IsNaN(got) || math.Abs(got-want) > 1e-11*want {
				t.Errorf("%v %s: Tr √(ab) = %.17g, reduced reference %.17g", tc, order, got, want)
			}
		}
		fd, err := FrechetDistance(a, b)
		if err != nil || math.IsNaN(fd) || fd < 0 {
			t.Errorf("%v: FrechetDistance = %g, %v", tc, fd, err)
		}
	}
}

func TestFrechetIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ n, d int }{{50, 8}, {6, 20}} {
		s, err := StatsOfRows(randRows(rng, tc.n, tc.d, 1))
		if err != nil {
			t.Fatal(err)
		}
		got, err := FrechetDistance(s, s)
		if err != nil {
			t.Fatal(err)
		}
		// Zero up to rounding in Tr Σ + Tr Σ - 2 Tr Σ, and never negative.
		if tol := 1e-10 * mat.Trace(s.Sigma); got < 0 || got > tol {
			t.Errorf("%v: FrechetDistance(s, s) = %g, want 0 <= . <= %g", tc, got, tol)
		}
	}
}

func TestFrechetOffsetRetry(t *testing.T) {
	a := diagStats([]float64{1, 0}, []float64{1, 4})
	b := diagStats([]float64{0, 0}, []float64{9, 0})
	var calls []float64
	// A square-root routine that fails once, as scipy's sqrtm can on a
	// singular product, then records the diagonal it is given.
	fake := func(s1, s2 *mat.SymDense) (float64, error) {
		calls = append(calls, s1.At(0, 0), s1.At(1, 1), s2.At(0, 0), s2.At(1, 1))
		if len(calls) == 4 {
			return math.Inf(1), nil
		}
		return 2.5, nil
	}
	got, err := frechet(a, b, fake)
	if err != nil {
		t.Fatal(err)
	}
	const e = FrechetOffset
	wantCalls := []float64{1, 4, 9, 0, 1 + e, 4 + e, 9 + e, e}
	if len(calls) != len(wantCalls) {
		t.Fatalf("calls %v, want %v", calls, wantCalls)
	}
	for i := range calls {
		if calls[i] != wantCalls[i] {
			t.Errorf("diagonals seen %v, want %v", calls, wantCalls)
			break
		}
	}
	// Trace terms use the original covariances: 1 + (1+4) + (9+0) - 2·2.5.
	if want := 1 + 5 + 9 - 5.0; got != want {
		t.Errorf("distance = %g, want %g", got, want)
	}
	// Originals unchanged.
	if a.Sigma.At(0, 0) != 1 || b.Sigma.At(1, 1) != 0 {
		t.Errorf("offset modified the inputs")
	}
	// Still not finite: an error.
	nan := func(s1, s2 *mat.SymDense) (float64, error) { return math.NaN(), nil }
	if _, err := frechet(a, b, nan); err == nil {
		t.Errorf("NaN twice: no error")
	}
}

func TestFrechetErrors(t *testing.T) {
	ok := diagStats([]float64{0, 0}, []float64{1, 1})
	for _, tc := range []struct {
		name string
		a, b Stats
		want string
	}{
		{"dims", ok, diagStats([]float64{0}, []float64{1}), "dimensions 2 and 1"},
		{"empty", Stats{}, ok, "first statistics are empty"},
		{"nil sigma", ok, Stats{Mu: []float64{0, 0}}, "second statistics have no covariance"},
		{"shape", Stats{Mu: []float64{0, 0}, Sigma: mat.NewSymDense(3, nil)}, ok, "mean has dimension 2, covariance 3"},
		{"nan mu", diagStats([]float64{0, math.NaN()}, []float64{1, 1}), ok, "mean[1] is NaN"},
		{"inf sigma", ok, diagStats([]float64{0, 0}, []float64{1, math.Inf(1)}), "covariance[1,1] is +Inf"},
		{"not psd a", diagStats([]float64{0, 0}, []float64{1, -0.5}), ok, "first covariance is not positive semidefinite"},
		{"not psd b", ok, Stats{Mu: []float64{0, 0}, Sigma: mat.NewSymDense(2, []float64{1, 2, 2, 1})}, "second covariance is not positive semidefinite"},
	} {
		_, err := FrechetDistance(tc.a, tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestFrechetRoundingNegativeIsZero(t *testing.T) {
	// An eigenvalue of -1e-14·λmax is rounding noise and counts as zero:
	// the result equals that of the zero eigenvalue.
	q := randOrthogonal(rand.New(rand.NewPCG(9, 10)), 4)
	va := []float64{2, 1, 0.5, -1e-14 * 2}
	vb := []float64{1, 3, 0.25, 1}
	a, b := Stats{Mu: make([]float64, 4), Sigma: sym(q, va)}, Stats{Mu: make([]float64, 4), Sigma: sym(q, vb)}
	got, err := FrechetDistance(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := closedForm(a.Mu, b.Mu, []float64{2, 1, 0.5, 0}, vb)
	if math.Abs(got-want) > 1e-9*want {
		t.Errorf("FrechetDistance = %.15g, want %.15g", got, want)
	}
	// -1e-6·λmax is not noise.
	va[3] = -2e-6
	a.Sigma = sym(q, va)
	if _, err := FrechetDistance(a, b); err == nil {
		t.Errorf("eigenvalue -1e-6·λmax: no error")
	}
}

// TestCongruenceRoutes checks that the Cholesky, the pivoted Cholesky and
// the eigenvector route give matrices with the same (nonzero) eigenvalues,
// and that a singular covariance has no Cholesky factor.
func TestCongruenceRoutes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	eig := func(d int, m []float64) []float64 {
		var e mat.EigenSym
		if !e.Factorize(mat.NewSymDense(d, m), false) {
			t.Fatal("eigen failed")
		}
		return e.Values(nil)
	}
	for _, d := range []int{1, 3, 17, 50, 130} {
		a, b := randSPD(rng, d, 0.01), randSPD(rng, d, 0.01)
		u := choleskyUpper(d, fullSym(a), 0)
		if u == nil {
			t.Fatalf("d=%d: Cholesky of an SPD matrix failed", d)
		}
		mc := triCongruence(d, d, u, fullSym(b))
		for i := range d {
			for j := range i {
				if mc[i*d+j] != mc[j*d+i] {
					t.Fatalf("d=%d: U Σ Uᵀ not symmetric at %d,%d", d, i, j)
				}
			}
		}
		me, ok := eigenCongruence(a, b, 0)
		if !ok {
			t.Fatal("eigen route failed")
		}
		lc, le := eig(d, mc), eig(d, me)
		for i := range lc {
			if math.Abs(lc[i]-le[i]) > 1e-12*lc[d-1] {
				t.Errorf("d=%d: eigenvalues %v (Cholesky) and %v (eigenvectors)", d, lc, le)
				break
			}
		}
	}
	a := diagStats([]float64{0, 0, 0}, []float64{4, 0, 1})
	if choleskyUpper(3, fullSym(a.Sigma), 0) != nil {
		t.Errorf("Cholesky of a singular matrix succeeded")
	}
	// Singular first covariances: the pivoted route's r×r matrix has the
	// nonzero eigenvalues of the eigenvector route's.
	for _, tc := range []struct{ n, m, d int }{{4, 9, 12}, {20, 30, 50}, {100, 150, 300}} {
		a, err := StatsOfRows(randRows(rng, tc.n, tc.d, 0))
		if err != nil {
			t.Fatal(err)
		}
		b, err := StatsOfRows(randRows(rng, tc.m, tc.d, 0.5))
		if err != nil {
			t.Fatal(err)
		}
		zero := zeroTolerance(tc.d)
		a1 := fullSym(a.Sigma)
		mp, r := pivotedCongruence(tc.d, a1, fullSym(b.Sigma), zero*lambdaMax(tc.d, a1))
		if r != tc.n-1 {
			t.Errorf("%v: pivoted Cholesky rank %d, want %d", tc, r, tc.n-1)
			continue
		}
		me, ok := eigenCongruence(a.Sigma, b.Sigma, zero)
		if !ok {
			t.Fatal("eigen route failed")
		}
		lp, le := eig(r, mp), eig(tc.d, me)[tc.d-r:]
		for i := range lp {
			if math.Abs(lp[i]-le[i]) > 1e-12*le[r-1] {
				t.Errorf("%v: eigenvalues %v (pivoted) and %v (eigenvectors)", tc, lp, le)
				break
			}
		}
	}
}

// nanBelowBlocks sets the entries of the n×n matrix a below its diagonal
// blocks of tridiagBlock to NaN: tridiagonalize must not read them.
func nanBelowBlocks(n int, a []float64) {
	for i := range n {
		for j := range i {
			if i/tridiagBlock != j/tridiagBlock {
				a[i*n+j] = math.NaN()
			}
		}
	}
}

// TestSymEigenvalues checks the reduction to tridiagonal form and Dsterf
// against matrices of known spectrum, Q diag(v) Qᵀ, and against gonum's
// EigenSym (another reduction, of the upper triangle with Householder
// vectors in columns), at sizes around the panel and band widths and
// beyond parallelRows.
func TestSymEigenvalues(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct {
		name string
		n    int
		v    func(i, n int) float64 // eigenvalue i of n
	}{
		{"one", 1, func(int, int) float64 { return -3 }},
		{"two", 2, func(i, _ int) float64 { return float64(2*i - 1) }},
		{"zero", 40, func(int, int) float64 { return 0 }},
		{"rank one", 33, func(i, _ int) float64 { return float64(min(i, 1)) }},
		{"repeated", 64, func(i, _ int) float64 { return float64(1 + i%2) }},
		{"normal 31", 31, func(int, int) float64 { return rng.NormFloat64() }},
		{"normal 32", 32, func(int, int) float64 { return rng.NormFloat64() }},
		{"normal 33", 33, func(int, int) float64 { return rng.NormFloat64() }},
		{"normal 129", 129, func(int, int) float64 { return rng.NormFloat64() }},
		{"graded 97", 97, func(i, n int) float64 { return math.Pow(10, -12*float64(i)/float64(n)) }},
		{"normal 300", 300, func(int, int) float64 { return rng.NormFloat64() }},
		{"graded 300", 300, func(i, n int) float64 { return math.Pow(10, -12*float64(i)/float64(n)) }},
	} {
		n := tc.n
		v := make([]float64, n)
		var norm float64
		for i := range v {
			v[i] = tc.v(i, n)
			norm = math.Max(norm, math.Abs(v[i]))
		}
		s := sym(randOrthogonal(rng, n), v)
		var ref mat.EigenSym
		if !ref.Factorize(s, false) {
			t.Fatalf("%s: EigenSym failed", tc.name)
		}
		a := fullSym(s)
		nanBelowBlocks(n, a)
		got, ok := symEigenvalues(n, a)
		if !ok {
			t.Errorf("%s: no convergence", tc.name)
			continue
		}
		slices.Sort(v)
		for i, g := range got {
			if r := ref.Values(nil)[i]; !(math.Abs(g-r) <= 1e-13*norm*math.Sqrt(float64(n))) {
				t.Errorf("%s: eigenvalue %d = %.17g, EigenSym %.17g", tc.name, i, g, r)
				break
			}
			if !(math.Abs(g-v[i]) <= 1e-13*norm*float64(n)) {
				t.Errorf("%s: eigenvalue %d = %.17g, constructed %.17g", tc.name, i, g, v[i])
				break
			}
		}
	}
}

func TestLambdaMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	spectrum := func(n int, f func(i int) float64) []float64 {
		return fullSym(sym(randOrthogonal(rng, n), func() []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = f(i)
			}
			return v
		}()))
	}
	for _, tc := range []struct {
		name string
		n    int
		a    []float64
		want float64
	}{
		// The top eigenvector (1, -1) is orthogonal to all ones.
		{"orthogonal to ones", 2, []float64{1, -1, -1, 1}, 2},
		{"diagonal", 3, []float64{4, 0, 0, 0, 0, 0, 0, 0, 1}, 4},
		{"zero", 3, make([]float64, 9), 0},
		{"negative definite", 2, []float64{-1, 0, 0, -2}, -1},
		{"one", 1, []float64{7}, 7},
		{"normal", 40, spectrum(40, func(int) float64 { return rng.NormFloat64() }), 0},
		{"geometric", 300, spectrum(300, func(i int) float64 { return math.Pow(0.9, float64(i)) }), 1},
		{"top cluster", 300, spectrum(300, func(i int) float64 { return 1 - 1e-9*float64(i) }), 1},
	} {
		want := tc.want
		if tc.name == "normal" {
			var e mat.EigenSym
			if !e.Factorize(mat.NewSymDense(tc.n, slices.Clone(tc.a)), false) {
				t.Fatal("EigenSym failed")
			}
			want = e.Values(nil)[tc.n-1]
		}
		got := lambdaMax(tc.n, tc.a)
		// An estimate from below, to rounding.
		if tol := 1e-12 * math.Abs(want); !(got <= want+tol && want-got <= tol) {
			t.Errorf("%s: lambdaMax = %.17g, want %.17g", tc.name, got, want)
		}
	}
}

// TestFrechetRoutes covers each way traceSqrtProduct forms its symmetric
// matrix, against closed forms (covariances with common eigenvectors) and
// against the reduced reference for sample covariances with fewer samples
// than dimensions, in both argument orders.
func TestFrechetRoutes(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	// spec returns d eigenvalues, every zeroEvery-th zero (0: none), the
	// one at noise (if >= 0) -1e-14 of the largest: rounding noise.
	spec := func(d, zeroEvery, noise int) []float64 {
		v := make([]float64, d)
		for i := range v {
			v[i] = 0.1 + rng.ExpFloat64()
			if zeroEvery > 0 && i%zeroEvery == 0 {
				v[i] = 0
			}
		}
		if noise >= 0 {
			v[noise] = -1e-14 * slices.Max(v)
		}
		return v
	}
	for _, tc := range []struct {
		name                 string
		d                    int
		zeroA, zeroB         int // every zeroA-th eigenvalue of Σa is zero, ...
		noiseA, noiseB       int // index of a -1e-14·λmax eigenvalue, or -1
		singularA, singularB bool
	}{
		{"both definite", 30, 0, 0, -1, -1, false, false},
		{"first singular", 30, 3, 0, -1, -1, true, false},
		{"second singular", 30, 0, 4, -1, -1, false, true},
		{"both singular", 30, 3, 4, -1, -1, true, true},
		{"first noise", 30, 0, 0, 5, -1, true, false},
		{"second noise", 30, 0, 0, -1, 7, false, true},
		{"both definite 300", 300, 0, 0, -1, -1, false, false},
		{"first singular 300", 300, 2, 0, -1, -1, true, false},
		{"second singular 300", 300, 0, 5, -1, -1, false, true},
		{"both singular 300", 300, 2, 3, -1, -1, true, true},
	} {
		q := randOrthogonal(rng, tc.d)
		va, vb := spec(tc.d, tc.zeroA, tc.noiseA), spec(tc.d, tc.zeroB, tc.noiseB)
		a := Stats{Mu: randVec(rng, tc.d), Sigma: sym(q, va)}
		b := Stats{Mu: randVec(rng, tc.d), Sigma: sym(q, vb)}
		for _, c := range []struct {
			s        *mat.SymDense
			singular bool
		}{{a.Sigma, tc.singularA}, {b.Sigma, tc.singularB}} {
			if got := choleskyUpper(tc.d, fullSym(c.s), 0) == nil; got != c.singular {
				t.Fatalf("%s: Cholesky failed: %v, want %v", tc.name, got, c.singular)
			}
		}
		var want float64
		for i := range va {
			want += math.Sqrt(max(va[i], 0) * max(vb[i], 0))
		}
		for _, order := range []string{"ab", "ba"} {
			s1, s2 := a.Sigma, b.Sigma
			if order == "ba" {
				s1, s2 = s2, s1
			}
			got, err := traceSqrtProduct(s1, s2)
			if err != nil || !(math.Abs(got-want) <= 1e-12*want) {
				t.Errorf("%s %s: Tr √(ab) = %.17g, %v; closed form %.17g", tc.name, order, got, err, want)
			}
		}
		clamp := func(v []float64) []float64 {
			c := slices.Clone(v)
			for i := range c {
				c[i] = max(c[i], 0)
			}
			return c
		}
		fd, err := FrechetDistance(a, b)
		if cf := closedForm(a.Mu, b.Mu, clamp(va), clamp(vb)); err != nil || !(math.Abs(fd-cf) <= 1e-10*cf) {
			t.Errorf("%s: FrechetDistance = %.17g, %v; closed form %.17g", tc.name, fd, err, cf)
		}
	}
	// Sample covariances, one of fewer samples than dimensions.
	for _, tc := range []struct{ n, m, d int }{{5, 40, 20}, {30, 400, 300}} {
		x := randRows(rng, tc.n, tc.d, 0)
		a, err := StatsOfRows(x)
		if err != nil {
			t.Fatal(err)
		}
		b, err := StatsOfRows(randRows(rng, tc.m, tc.d, 0.5))
		if err != nil {
			t.Fatal(err)
		}
		want := traceSqrtReduced(x, b.Sigma)
		for _, order := range []string{"ab", "ba"} {
			s1, s2 := a.Sigma, b.Sigma
			if order == "ba" {
				s1, s2 = s2, s1
			}
			got, err := traceSqrtProduct(s1, s2)
			if err != nil || !(math.Abs(got-want) <= 1e-12*want) {
				t.Errorf("%v %s: Tr √(ab) = %.17g, %v; reduced reference %.17g", tc, order, got, err, want)
			}
		}
	}
}

func TestFrechetNotPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	// cov returns Q diag(v) Qᵀ for d eigenvalues 1 + Exp, the first
	// replaced by first if it is not NaN.
	cov := func(q *mat.Dense, first float64) *mat.SymDense {
		d, _ := q.Dims()
		v := make([]float64, d)
		for i := range v {
			v[i] = 1 + rng.ExpFloat64()
		}
		if !math.IsNaN(first) {
			v[0] = first
		}
		return sym(q, v)
	}
	nan := math.NaN()
	for _, tc := range []struct {
		name  string
		d     int
		a, b  func(q *mat.Dense) *mat.SymDense
		want  string
		extra string // also in the message, if not ""
	}{
		{"second indefinite", 40, func(q *mat.Dense) *mat.SymDense { return cov(q, nan) },
			func(q *mat.Dense) *mat.SymDense { return cov(q, -1e-3) }, "second covariance is not positive semidefinite", ""},
		{"second indefinite, first singular", 40, func(q *mat.Dense) *mat.SymDense {
			v := make([]float64, 40*10)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			// Rank 10: Σ = X Xᵀ for X 40×10.
			var sigma mat.SymDense
			sigma.SymOuterK(1, mat.NewDense(40, 10, v))
			return &sigma
		},
			func(q *mat.Dense) *mat.SymDense { return cov(q, -1e-3) }, "second covariance is not positive semidefinite", ""},
		{"both indefinite", 40, func(q *mat.Dense) *mat.SymDense { return cov(q, -1e-3) },
			func(q *mat.Dense) *mat.SymDense { return cov(q, -1e-3) }, "first covariance is not positive semidefinite", ""},
		{"second indefinite 300", 300, func(q *mat.Dense) *mat.SymDense { return cov(q, nan) },
			func(q *mat.Dense) *mat.SymDense { return cov(q, -1e-3) }, "second covariance is not positive semidefinite", ""},
		// The message gives eigenvalues of the matrix as passed, not of
		// its scaled copy.
		{"second indefinite, scaled", 3, func(*mat.Dense) *mat.SymDense { return diagStats(nil, []float64{1, 2, 3}).Sigma },
			func(*mat.Dense) *mat.SymDense { return diagStats(nil, []float64{-1000, 1e6, 3}).Sigma },
			"second covariance is not positive semidefinite", "eigenvalue -1000, largest 1e+06"},
		// M = U Σb Uᵀ = diag(1, -1e-14) is within the noise bound of
		// Σa Σb, but Σb's own eigenvalue -1e-6 is not.
		{"hidden by an ill-conditioned first", 2, func(*mat.Dense) *mat.SymDense { return diagStats(nil, []float64{1, 1e-8}).Sigma },
			func(*mat.Dense) *mat.SymDense { return diagStats(nil, []float64{1, -1e-6}).Sigma },
			"second covariance is not positive semidefinite", ""},
	} {
		q := randOrthogonal(rng, tc.d)
		a, b := Stats{Mu: make([]float64, tc.d), Sigma: tc.a(q)}, Stats{Mu: make([]float64, tc.d), Sigma: tc.b(q)}
		if strings.Contains(tc.name, "first singular") && choleskyUpper(tc.d, fullSym(a.Sigma), 0) != nil {
			t.Fatalf("%s: Cholesky of the first covariance succeeded", tc.name)
		}
		_, err := FrechetDistance(a, b)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.extra) {
			t.Errorf("%s: err = %v, want one containing %q and %q", tc.name, err, tc.want, tc.extra)
		}
	}
}

// TestFrechetScaleInvariance checks that scaling both covariances by c
// and the means by √c scales the distance by c: exactly for powers of 4,
// as traceSqrtProduct scales by powers of 2 itself, including scales at
// which the products would overflow or underflow.
func TestFrechetScaleInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	scaled := func(s Stats, c float64) Stats {
		mu := slices.Clone(s.Mu)
		for i := range mu {
			mu[i] *= math.Sqrt(c)
		}
		var sigma mat.SymDense
		sigma.ScaleSym(c, s.Sigma)
		return Stats{Mu: mu, Sigma: &sigma}
	}
	for _, tc := range []struct {
		name   string
		na, nb int
	}{{"definite", 100, 80}, {"first singular", 6, 80}, {"both singular", 6, 9}} {
		const d = 20
		a, err := StatsOfRows(randRows(rng, tc.na, d, 0))
		if err != nil {
			t.Fatal(err)
		}
		b, err := StatsOfRows(randRows(rng, tc.nb, d, 0.3))
		if err != nil {
			t.Fatal(err)
		}
		want, err := FrechetDistance(a, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []float64{0x1p-1000, 0x1p-40, 0x1p60, 0x1p900, 1e-9, 3, 1e12} {
			got, err := FrechetDistance(scaled(a, c), scaled(b, c))
			_, e := math.Frexp(c)
			if err != nil {
				t.Errorf("%s, c = %g: %v", tc.name, c, err)
				continue
			}
			if pow4 := math.Ldexp(1, e-1) == c && (e-1)%2 == 0; pow4 {
				if got != c*want {
					t.Errorf("%s, c = %g: FrechetDistance = %.17g, want exactly %.17g", tc.name, c, got, c*want)
				}
			} else if !(math.Abs(got-c*want) <= 1e-12*c*want) {
				t.Errorf("%s, c = %g: FrechetDistance = %.17g, want %.17g", tc.name, c, got, c*want)
			}
		}
	}
}

// eigenCongruence, the route FrechetDistance took for a singular first
// covariance before pivotedCongruence, is a reference for the others: it
// returns Λ^½ Vᵀ s2 V Λ^½ (full storage) for s1 = V Λ Vᵀ,
// which is similar to √s1 s2 √s1 and so to s1 s2, for singular s1 too.
// Eigenvalues of s1 up to zero·λmax(s1) count as zero.
func eigenCongruence(s1, s2 *mat.SymDense, zero float64) ([]float64, bool) {
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
	l := e.Values(nil)
	lmax := l[n-1]
	for i, l := range l {
		r := 0.0
		if l > zero*lmax {
			r = math.Sqrt(l)
		}
		blas64.Scal(r, blas64.Vector{N: n, Inc: 1, Data: raw.Data[i*raw.Stride:]})
		blas64.Scal(r, blas64.Vector{N: n, Inc: raw.Stride, Data: raw.Data[i:]})
	}
	// t is symmetric up to rounding: take (t + tᵀ)/2.
	m := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			m[i*n+j] = (t.At(i, j) + t.At(j, i)) / 2
		}
	}
	mirrorUpper(n, m)
	return m, true
}
