package eval

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func kidRows(n, d int, f func(i, j int) float64) *mat.Dense {
	m := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			m.Set(i, j, f(i, j))
		}
	}
	return m
}

// TestKID checks KID against clean-fid's kernel_distance formula
// evaluated with numpy (values pasted below) on sets small enough that
// every subset is the whole set, so that no random draw is involved.
func TestKID(t *testing.T) {
	fa := func(i, j int) float64 { return math.Sin(float64(i*7+j*3))*2 + 0.1*float64(j) }
	fb := func(i, j int) float64 { return math.Cos(float64(i*5+j)) * 1.5 }
	for _, tc := range []struct {
		n, d        int
		ab, aa      float64 // numpy: kernel_distance(a, b), kernel_distance(a, a)
		subsets     int
		subsetSize  int
		wantZeroStd bool
	}{
		{10, 6, 7.849348556475024, -6.344576946085698, 0, 0, true},
		{10, 6, 7.849348556475024, -6.344576946085698, 3, 10, true},
		{3, 2, 10.509244409635828, -17.656261740115212, 1, 0, true},
	} {
		a, b := kidRows(tc.n, tc.d, fa), kidRows(tc.n, tc.d, fb)
		opt := KIDOptions{Subsets: tc.subsets, SubsetSize: tc.subsetSize, Seed: 7}
		for _, c := range []struct {
			x, y *mat.Dense
			want float64
		}{{b, a, tc.ab}, {a, b, tc.ab}, {a, a, tc.aa}} {
			got, std, err := KID(c.x, c.y, opt)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
				t.Errorf("%dx%d: KID %v, numpy %v", tc.n, tc.d, got, c.want)
			}
			if tc.wantZeroStd && std > 1e-12 {
				t.Errorf("%dx%d: std %v over identical subsets", tc.n, tc.d, std)
			}
		}
	}
}

// TestKIDSubsets draws real subsets: seeded, so repeatable; different
// seeds give different draws; the subset values spread (std > 0).
func TestKIDSubsets(t *testing.T) {
	a := kidRows(40, 4, func(i, j int) float64 { return math.Sin(float64(i*j + i)) })
	b := kidRows(30, 4, func(i, j int) float64 { return math.Cos(float64(3*i+j)) + 0.2 })
	m1, s1, err := KID(a, b, KIDOptions{Subsets: 20, SubsetSize: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m2, s2, _ := KID(a, b, KIDOptions{Subsets: 20, SubsetSize: 10, Seed: 1})
	m3, _, _ := KID(a, b, KIDOptions{Subsets: 20, SubsetSize: 10, Seed: 2})
	if m1 != m2 || s1 != s2 {
		t.Errorf("same seed: %v±%v, then %v±%v", m1, s1, m2, s2)
	}
	if m1 == m3 {
		t.Errorf("seeds 1 and 2 gave the same KID %v", m1)
	}
	if !(s1 > 0) {
		t.Errorf("std %v over random subsets", s1)
	}
}

func TestKIDErrors(t *testing.T) {
	a := kidRows(5, 3, func(i, j int) float64 { return float64(i + j) })
	for _, tc := range []struct {
		name string
		x, y *mat.Dense
		opt  KIDOptions
	}{
		{"widths", a, kidRows(5, 2, func(i, j int) float64 { return 0 }), KIDOptions{}},
		{"one row", a, kidRows(1, 3, func(i, j int) float64 { return 0 }), KIDOptions{}},
		{"negative subsets", a, a, KIDOptions{Subsets: -1}},
	} {
		if _, _, err := KID(tc.x, tc.y, tc.opt); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
