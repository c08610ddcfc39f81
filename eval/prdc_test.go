package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/internal/pyref"
)

// col returns a one-feature matrix of the values v.
func col(v ...float64) *mat.Dense { return mat.NewDense(len(v), 1, v) }

// TestPRDCByHand checks cases worked on paper, on a line, with k = 1,
// where ties at the radius and duplicates decide: a point at exactly the
// radius is outside the ball, and a duplicate is a neighbour at 0.
func TestPRDCByHand(t *testing.T) {
	for _, tc := range []struct {
		name       string
		real, fake *mat.Dense
		want       PRDC
	}{
		// Real radii 1, 1, 2; fake radii all 1. Fake 2 is at exactly
		// the radius of real 1 (outside) but inside real 3's ball; fake
		// 5 is at exactly real 3's radius. Real 0 is at exactly fake 1's
		// radius. With ≤ for < every figure would be larger.
		{"ties", col(0, 1, 3), col(1, 2, 5, 6), PRDC{Precision: 2.0 / 4, Recall: 1.0 / 3, Density: 2.0 / 4, Coverage: 2.0 / 3}},
		// The duplicated real 0 has radius 0, a ball nothing is
		// strictly inside, not even its copy or the fake at 0.
		{"duplicates", col(0, 0, 5), col(0, 4), PRDC{Precision: 1.0 / 2, Recall: 1, Density: 1.0 / 2, Coverage: 1.0 / 3}},
		// Identical sets without duplicates, radii 1, 1, 2, 4: every
		// point is inside its twin's ball, at 0, and in no other, its
		// neighbours being at exactly their radii or farther.
		{"identical", col(0, 1, 3, 7), col(0, 1, 3, 7), PRDC{Precision: 1, Recall: 1, Density: 1, Coverage: 1}},
	} {
		for _, w := range []int{1, 2} {
			got, err := prdcOf(tc.real, tc.fake, 1, 1, w)
			if err != nil || got != tc.want {
				t.Errorf("%s, %d workers: %+v, %v; want %+v", tc.name, w, got, err, tc.want)
			}
		}
	}
}

// TestPRDCErrors: k must leave k neighbours besides the point in both
// sets, the widths must agree, and features must be finite.
func TestPRDCErrors(t *testing.T) {
	three, four := col(0, 1, 2), col(0, 1, 2, 3)
	if _, err := PRDCOf(three, four, 2, 2); err != nil {
		t.Errorf("k = N-1: %v", err)
	}
	for _, tc := range []struct {
		name       string
		real, fake mat.Matrix
		kPR, kDC   int
		want       string
	}{
		{"k = N real", three, four, 3, 1, "the real set has 3"},
		{"k = N fake", four, three, 1, 3, "the fake set has 3"},
		{"k = 0", three, four, 0, 1, "at least 1"},
		{"widths", three, mat.NewDense(3, 2, nil), 1, 1, "1-d and 2-d"},
		{"NaN", three, col(0, math.NaN(), 2), 1, 1, "fake feature 0 of row 1 is NaN"},
		{"Inf", col(math.Inf(-1), 1, 2), three, 1, 1, "real feature 0 of row 0 is -Inf"},
	} {
		if _, err := PRDCOf(tc.real, tc.fake, tc.kPR, tc.kDC); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// slowPRDC is prdc.py's computation spelled out on whole distance
// matrices, with a sort for the radii: what the streamed PRDCOf must
// equal exactly.
func slowPRDC(x, y *mat.Dense, kPR, kDC int) PRDC {
	n, _ := x.Dims()
	m, _ := y.Dims()
	dist := func(a, b *mat.Dense, i, j int) float64 { return distance(a.RawRowView(i), b.RawRowView(j)) }
	radii := func(a *mat.Dense, k int) []float64 {
		r, _ := a.Dims()
		out := make([]float64, r)
		for i := range r {
			row := make([]float64, r)
			for j := range r {
				row[j] = dist(a, a, i, j)
			}
			slices.Sort(row)
			out[i] = row[k]
		}
		return out
	}
	rxPR, rxDC, ryPR := radii(x, kPR), radii(x, kDC), radii(y, kPR)
	var p, r, dsum, c int
	for j := range m {
		in := 0
		for i := range n {
			if dist(x, y, i, j) < rxDC[i] {
				dsum++
			}
			if dist(x, y, i, j) < rxPR[i] {
				in++
			}
		}
		if in > 0 {
			p++
		}
	}
	for i := range n {
		rec, cov := false, false
		for j := range m {
			rec = rec || dist(x, y, i, j) < ryPR[j]
			cov = cov || dist(x, y, i, j) < rxDC[i]
		}
		if rec {
			r++
		}
		if cov {
			c++
		}
	}
	return PRDC{float64(p) / float64(m), float64(r) / float64(n), (1 / float64(kDC)) * (float64(dsum) / float64(m)), float64(c) / float64(n)}
}

// prdcSets returns fixed real and fake feature sets: Gaussian, or with
// small integer features, where distances tie often (and exactly, in any
// summation order), and with duplicated rows.
func prdcSets(ties bool, n, m, d int) (*mat.Dense, *mat.Dense) {
	rng := rand.New(rand.NewPCG(33, uint64(n*1000+m)))
	fill := func(a *mat.Dense, shift float64) {
		r, c := a.Dims()
		for i := range r {
			for j := range c {
				if ties {
					a.Set(i, j, float64(rng.IntN(4)))
				} else {
					a.Set(i, j, rng.NormFloat64()+shift*float64(j%3))
				}
			}
		}
	}
	x, y := mat.NewDense(n, d, nil), mat.NewDense(m, d, nil)
	fill(x, 0)
	fill(y, 0.4)
	if !ties {
		x.SetRow(n-1, x.RawRowView(0)) // a duplicate
	}
	return x, y
}

// TestPRDCStreamed: the blocked, split computation equals the plain one,
// bit for bit, whatever the number of workers, including sets of several
// tiles and wider than a cache block, and k of either path to the radii.
func TestPRDCStreamed(t *testing.T) {
	for _, tc := range []struct {
		ties    bool
		n, m, d int
	}{{false, 37, 29, 3}, {true, 41, 50, 4}, {false, 19, 23, 2100}, {false, 150, 130, 4}, {true, 200, 70, 2}} {
		x, y := prdcSets(tc.ties, tc.n, tc.m, tc.d)
		// k + 1 beyond selfMaxK takes the row by row path.
		for _, k := range [][2]int{{3, 5}, {1, 1}, {7, 2}, {2, selfMaxK + 3}} {
			if max(k[0], k[1]) >= min(tc.n, tc.m) {
				continue
			}
			want := slowPRDC(x, y, k[0], k[1])
			for _, w := range []int{1, 2, 3, 8} {
				got, err := prdcOf(x, y, k[0], k[1], w)
				if err != nil || got != want {
					t.Errorf("%+v, k %v, %d workers: %+v, %v; want %+v", tc, k, w, got, err, want)
				}
			}
		}
	}
}

func TestSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		row := make([]float64, 1+rng.IntN(30))
		for i := range row {
			row[i] = float64(rng.IntN(6)) // duplicates
		}
		k := 1 + rng.IntN(len(row))
		want := slices.Clone(row)
		slices.Sort(want)
		if got := smallest(nil, row, k); !slices.Equal(got, want[:k]) {
			t.Fatalf("smallest(%v, %d) = %v, want %v", row, k, got, want[:k])
		}
	}
}

// prdcNumpy is an implementation written from the papers' definitions
// (Kynkäänniemi et al. 2019, eqs. 1-2; Naeem et al. 2020, eqs. 3-4), with
// the balls open as in Naeem et al.'s code: whole distance matrices, the
// radii from a full sort.
const prdcNumpy = `
import sys
import numpy as np

def read(lines):
    return np.array([[float(v) for v in l.split()] for l in lines])

text = sys.stdin.read().split("\n--\n")
X, Y = read(text[0].strip().split("\n")), read(text[1].strip().split("\n"))

def dist(A, B):
    return np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))

def radii(A, k):
    # the k-th nearest neighbour other than the point itself: column k of
    # the sorted distances, column 0 being the point's own zero
    return np.sort(dist(A, A), axis=1)[:, k]

D = dist(X, Y)  # real i, fake j
for kpr, kdc in [(3, 5), (1, 1), (2, 2), (4, 6)]:
    rx, ry, rxd = radii(X, kpr), radii(Y, kpr), radii(X, kdc)
    precision = np.mean([np.any(D[:, j] < rx) for j in range(len(Y))])
    recall = np.mean([np.any(D[i, :] < ry) for i in range(len(X))])
    density = np.sum(D < rxd[:, None]) / (kdc * len(Y))
    coverage = np.mean([np.min(D[i, :]) < rxd[i] for i in range(len(X))])
    print(kpr, kdc, repr(float(precision)), repr(float(recall)), repr(float(density)), repr(float(coverage)))
`

// TestPRDCNumpy compares PRDCOf with prdcNumpy on fixed features (skipped
// without python3 and numpy).
func TestPRDCNumpy(t *testing.T) {
	py := pyref.Python("numpy")
	if py == "" {
		t.Skip("no python3 with numpy")
	}
	for _, tc := range []struct {
		ties    bool
		n, m, d int
	}{{false, 60, 45, 5}, {true, 50, 40, 3}, {false, 30, 70, 16}} {
		x, y := prdcSets(tc.ties, tc.n, tc.m, tc.d)
		var in strings.Builder
		for i, a := range []*mat.Dense{x, y} {
			if i > 0 {
				in.WriteString("--\n")
			}
			r, c := a.Dims()
			for i := range r {
				for j := range c {
					fmt.Fprintf(&in, "%s ", strconv.FormatFloat(a.At(i, j), 'g', -1, 64))
				}
				in.WriteString("\n")
			}
		}
		cmd := exec.Command(py, "-c", prdcNumpy)
		cmd.Stdin = strings.NewReader(in.String())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("numpy: %v\n%s", err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 4 {
			t.Fatalf("numpy printed %q", out)
		}
		for _, l := range lines {
			f := strings.Fields(l)
			kPR, _ := strconv.Atoi(f[0])
			kDC, _ := strconv.Atoi(f[1])
			got, err := PRDCOf(x, y, kPR, kDC)
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range []float64{got.Precision, got.Recall, got.Density, got.Coverage} {
				want, err := strconv.ParseFloat(f[2+i], 64)
				if err != nil {
					t.Fatalf("numpy printed %q", l)
				}
				if math.Abs(g-want) > 1e-9 {
					t.Errorf("%+v, k %d/%d, figure %d: %v, numpy %v", tc, kPR, kDC, i, g, want)
				}
			}
		}
	}
}

// TestPRDCRegistered: the registered "prdc" gives PRDCOf's four figures
// with the papers' k, or Options.K for all four, names them, and refuses
// statistics.
func TestPRDCRegistered(t *testing.T) {
	m, err := LookupSet("prdc")
	if err != nil {
		t.Fatal(err)
	}
	x, y := prdcSets(false, 30, 25, 4)
	for _, tc := range []struct {
		o        Options
		kPR, kDC int
	}{{Options{}, 3, 5}, {Options{K: 2}, 2, 2}} {
		p, err := PRDCOf(x, y, tc.kPR, tc.kDC)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.CompareSets(Features{Rows: x}, Features{Rows: y}, tc.o)
		if want := []float64{p.Precision, p.Recall, p.Density, p.Coverage}; err != nil || !slices.Equal(got, want) {
			t.Errorf("%+v: %v, %v; want %v", tc.o, got, err, want)
		}
	}
	if _, err := m.CompareSets(Features{Rows: x}, Features{Rows: y}, Options{K: 30}); err == nil {
		t.Error("K = N: no error")
	}
	st, _ := StatsOf(x)
	if _, err := m.CompareSets(Features{Stats: st}, Features{Rows: y}, Options{}); err == nil {
		t.Error("prdc of statistics: no error")
	}
	names, ok := m.(FigureNamer)
	if !ok || !slices.Equal(names.FigureNames(), []string{"precision", "recall", "density", "coverage"}) {
		t.Errorf("figure names: %T", m)
	}
	if !m.NeedsRows() || m.Label("LeNet-MNIST") != "PRDC (LeNet-MNIST)" {
		t.Errorf("NeedsRows %v, label %q", m.NeedsRows(), m.Label("LeNet-MNIST"))
	}
}
