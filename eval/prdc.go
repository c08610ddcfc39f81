package eval

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"
)

// The papers' neighbourhood sizes: improved precision and recall take
// the 3rd nearest neighbour (Kynkäänniemi et al. 2019), density and
// coverage the 5th (Naeem et al. 2020).
const (
	PRDCKPrecisionRecall = 3
	PRDCKDensityCoverage = 5
)

// PRDC holds the four figures that split a generated set's distance from
// a real one into fidelity and diversity.
type PRDC struct {
	// Precision is the share of fake points inside some real point's
	// ball (fidelity).
	Precision float64
	// Recall is the share of real points inside some fake point's ball
	// (diversity).
	Recall float64
	// Density is the number of real balls a fake point is inside,
	// divided by k and averaged over the fake points: 1 on average when
	// both sets come from one distribution, above 1 for fakes crowded
	// where the real points are dense.
	Density float64
	// Coverage is the share of real points whose ball holds some fake
	// point.
	Coverage float64
}

// PRDCOf returns improved precision and recall of the generated set gen
// against the real set ref (features one row per image, same width),
// with balls of the kPR-th nearest neighbour, and density and coverage
// with the kDC-th; PRDCKPrecisionRecall and PRDCKDensityCoverage are the
// papers' choices. Everything is computed as Naeem et al.'s reference code
// (clovaai/generative-evaluation-prdc, prdc.py) computes it:
//
//   - distances are Euclidean, here summed in float64 from the features'
//     differences, not from dot products, so equal points are at 0 and
//     the distance of i to j is that of j to i, bit for bit;
//   - a point's ball has the radius of its k-th nearest neighbour in its
//     own set, the point itself excluded: the (k+1)-th smallest of its
//     distances to its set, the zero to itself included, so a duplicate
//     is a neighbour at distance 0;
//   - a point is inside a ball when its distance to the centre is
//     strictly less than the radius.
//
// With N real points i and M fake points j, r and s the real and fake
// radii of kPR, r′ the real radii of kDC: precision = #{j: some i has
// d(i, j) < r(i)} / M, recall = #{i: some j has d(i, j) < s(j)} / N,
// density = (1/kDC) · Σⱼ #{i: d(i, j) < r′(i)} / M, coverage = #{i:
// minⱼ d(i, j) < r′(i)} / N.
//
// k must be at least 1 and at most one less than either set's size. The
// distances are computed in blocks on GOMAXPROCS goroutines, holding a
// few rows of distances at a time, never the N×M matrix; the figures do
// not depend on the number of goroutines.
func PRDCOf(ref, gen mat.Matrix, kPR, kDC int) (PRDC, error) {
	return prdcOf(ref, gen, kPR, kDC, runtime.GOMAXPROCS(0))
}

func prdcOf(ref, gen mat.Matrix, kPR, kDC, workers int) (PRDC, error) {
	n, d := ref.Dims()
	m, df := gen.Dims()
	switch {
	case d != df:
		return PRDC{}, fmt.Errorf("eval: PRDC of %d-d and %d-d features", d, df)
	case d == 0:
		return PRDC{}, errors.New("eval: PRDC of 0-d features")
	case kPR < 1 || kDC < 1:
		return PRDC{}, fmt.Errorf("eval: PRDC with k = %d and %d: want at least 1 nearest neighbour", kPR, kDC)
	}
	for _, s := range []struct {
		name string
		rows int
	}{{"real", n}, {"fake", m}} {
		if k := max(kPR, kDC); k > s.rows-1 {
			return PRDC{}, fmt.Errorf("eval: PRDC with k = %d needs more than k points in each set, the %s set has %d", k, s.name, s.rows)
		}
	}
	x, err := prdcRows(ref, "real")
	if err != nil {
		return PRDC{}, err
	}
	y, err := prdcRows(gen, "fake")
	if err != nil {
		return PRDC{}, err
	}
	workers = max(1, workers)

	// The radii: row i's (k+1)-th smallest distance to its own set.
	rxPR, rxDC := make([]float64, n), make([]float64, n)
	kmax := max(kPR, kDC)
	sx := selfSmallestOf(x, d, kmax+1, workers)
	for i := range n {
		rxPR[i], rxDC[i] = sx[i*(kmax+1)+kPR], sx[i*(kmax+1)+kDC]
	}
	ryPR := make([]float64, m)
	sy := selfSmallestOf(y, d, kPR+1, workers)
	for j := range m {
		ryPR[j] = sy[j*(kPR+1)+kPR]
	}

	// One pass over the real-to-fake distances, row by real row: each
	// worker counts, per fake point, the real balls it is inside; the
	// counts are integers, so their sum does not depend on the split.
	recalled, covered := make([]bool, n), make([]bool, n)
	inPR := make([][]bool, workers)
	inDC := make([][]int, workers)
	for w := range workers {
		inPR[w], inDC[w] = make([]bool, m), make([]int, m)
	}
	distanceRows(x, y, d, workers, func(w, i int, row []float64) {
		pr, dc := inPR[w], inDC[w]
		rPR, rDC := rxPR[i], rxDC[i]
		rec := false
		for j, v := range row {
			if v < ryPR[j] {
				rec = true
			}
			if v < rPR {
				pr[j] = true
			}
			if v < rDC {
				dc[j]++
				covered[i] = true
			}
		}
		recalled[i] = rec
	})
	var precise, inside int
	for j := range m {
		hit := false
		for w := range workers {
			hit = hit || inPR[w][j]
			inside += inDC[w][j]
		}
		if hit {
			precise++
		}
	}
	fn, fm := float64(n), float64(m)
	return PRDC{
		Precision: float64(precise) / fm,
		Recall:    float64(countTrue(recalled)) / fn,
		// As prdc.py: (1/k) times the mean of the per-fake counts.
		Density:  (1 / float64(kDC)) * (float64(inside) / fm),
		Coverage: float64(countTrue(covered)) / fn,
	}, nil
}

// selfSmallestOf is selfSmallest, or, for k above selfMaxK, where a
// worker's k values per row would take much memory, the same figures
// from distanceRows, one row at a time, with twice the work.
func selfSmallestOf(a []float64, d, k, workers int) []float64 {
	if k <= selfMaxK {
		return selfSmallest(a, d, k, workers)
	}
	n := len(a) / d
	out := make([]float64, n*k)
	distanceRows(a, a, d, workers, func(_, i int, row []float64) {
		copy(out[i*k:(i+1)*k], smallest(nil, row, k))
	})
	return out
}

// selfMaxK bounds the k of selfSmallest.
const selfMaxK = 64

func countTrue(b []bool) int {
	c := 0
	for _, v := range b {
		if v {
			c++
		}
	}
	return c
}

// smallest returns the k smallest values of row in ascending order,
// duplicates kept, appended to dst[:0]; len(row) >= k.
func smallest(dst, row []float64, k int) []float64 {
	dst = dst[:0]
	for _, v := range row {
		if len(dst) == k {
			if v >= dst[k-1] {
				continue
			}
			dst = dst[:k-1]
		}
		// Insert v after every value not greater than it.
		i := len(dst)
		dst = append(dst, v)
		for i > 0 && dst[i-1] > v {
			dst[i] = dst[i-1]
			i--
		}
		dst[i] = v
	}
	return dst
}

// prdcRows returns a's rows as one row-major slice, a's own storage when
// it has no gaps, and checks that every feature is finite: a NaN would
// make every comparison with it false.
func prdcRows(a mat.Matrix, name string) ([]float64, error) {
	r, c := a.Dims()
	var data []float64
	if rm, ok := a.(mat.RawMatrixer); ok && rm.RawMatrix().Stride == c {
		data = rm.RawMatrix().Data[:r*c]
	} else {
		data = make([]float64, r*c)
		for i := range r {
			for j := range c {
				data[i*c+j] = a.At(i, j)
			}
		}
	}
	for k, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("eval: PRDC: %s feature %d of row %d is %v", name, k%c, k/c, v)
		}
	}
	return data, nil
}

func init() { Register("prdc", prdcMetric{}) }

// prdcMetric is the registered "prdc".
type prdcMetric struct{}

func (prdcMetric) Summary() string {
	return "PRDC: improved precision and recall (Kynkäänniemi et al. 2019, k = 3) and density and coverage " +
		"(Naeem et al. 2020, k = 5) of the second set against the first, as Naeem et al.'s prdc.py computes them; " +
		"Options.K sets the k of all four"
}

func (prdcMetric) Label(features string) string { return "PRDC (" + features + ")" }
func (prdcMetric) NeedsRows() bool              { return true }
func (prdcMetric) FigureNames() []string {
	return []string{"precision", "recall", "density", "coverage"}
}

// CompareSets returns precision, recall, density and coverage of b, the
// generated set, against a, the real one.
func (prdcMetric) CompareSets(a, b Features, o Options) ([]float64, error) {
	if a.Rows == nil || b.Rows == nil {
		return nil, errors.New("eval: PRDC needs the features of every image, not their statistics")
	}
	kPR, kDC := PRDCKPrecisionRecall, PRDCKDensityCoverage
	if o.K != 0 {
		kPR, kDC = o.K, o.K
	}
	p, err := PRDCOf(a.Rows, b.Rows, kPR, kDC)
	if err != nil {
		return nil, err
	}
	return []float64{p.Precision, p.Recall, p.Density, p.Coverage}, nil
}
