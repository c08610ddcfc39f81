package sparsity_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/positgan/positgan/sparsity"
)

// slowMask is the definition, written apart from Mask: gather each block
// along the axis, sort its indices by descending score (NaN as −∞),
// stably so that equal scores keep index order, and keep the first
// min(N, r).
func slowMask(score []float64, rows, cols int, p sparsity.Pattern, axis sparsity.Axis) []bool {
	keep := make([]bool, rows*cols)
	if p.N == p.M {
		for i := range keep {
			keep[i] = true
		}
		return keep
	}
	at := func(line, pos int) int { // flat index of position pos on line
		if axis == sparsity.AlongRow {
			return line*cols + pos
		}
		return pos*cols + line
	}
	lines, length := rows, cols
	if axis == sparsity.AlongColumn {
		lines, length = cols, rows
	}
	for l := 0; l < lines; l++ {
		for b := 0; b < length; b += p.M {
			var idx []int
			for pos := b; pos < b+p.M && pos < length; pos++ {
				idx = append(idx, at(l, pos))
			}
			s := func(i int) float64 {
				if math.IsNaN(score[i]) {
					return math.Inf(-1)
				}
				return score[i]
			}
			sort.SliceStable(idx, func(i, j int) bool { return s(idx[i]) > s(idx[j]) })
			for k := 0; k < p.N && k < len(idx); k++ {
				keep[idx[k]] = true
			}
		}
	}
	return keep
}

func patterns() []sparsity.Pattern {
	ps := []sparsity.Pattern{{}}
	for m := 1; m <= sparsity.MaxM; m++ {
		for n := 1; n <= m; n++ {
			ps = append(ps, sparsity.Pattern{N: n, M: m})
		}
	}
	return ps
}

// randScores draws scores from a small set so that ties are common, with
// some NaNs, infinities and signed zeros.
func randScores(r *rand.Rand, n int) []float64 {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	s := make([]float64, n)
	for i := range s {
		switch r.IntN(10) {
		case 0:
			s[i] = special[r.IntN(len(special))]
		case 1, 2, 3:
			s[i] = r.NormFloat64()
		default:
			s[i] = float64(r.IntN(4))
		}
	}
	return s
}

func TestMaskAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range patterns() {
		for _, axis := range []sparsity.Axis{sparsity.AlongRow, sparsity.AlongColumn} {
			for trial := 0; trial < 6; trial++ {
				rows, cols := 1+r.IntN(20), 1+r.IntN(40)
				score := randScores(r, rows*cols)
				keep := make([]bool, rows*cols)
				sparsity.Mask(keep, score, rows, cols, p, axis)
				want := slowMask(score, rows, cols, p, axis)
				for i := range keep {
					if keep[i] != want[i] {
						t.Fatalf("%v axis %d %dx%d: keep[%d] = %v, want %v (scores %v)", p, axis, rows, cols, i, keep[i], want[i], score)
					}
				}
			}
		}
	}
}

// TestMaskProperties checks the mask by the properties the issue names,
// without a second implementation: every block keeps exactly min(N, r)
// values, and every kept value outranks every dropped one of its block.
func TestMaskProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, p := range []sparsity.Pattern{{N: 1, M: 2}, {N: 2, M: 4}, {N: 4, M: 8}, {N: 1, M: 4}, {N: 2, M: 8}, {N: 1, M: 8}, {N: 3, M: 16}} {
		rows, cols := 7, 37 // 37 is a multiple of no M: every line ends in a partial block
		w := make([]float32, rows*cols)
		for i := range w {
			w[i] = float32(r.IntN(7) - 3) // many ties, some zeros
		}
		keep := make([]bool, len(w))
		sparsity.MaskValues(keep, w, rows, cols, p, sparsity.AlongRow, sparsity.Abs, sparsity.Key{}, nil)
		for row := 0; row < rows; row++ {
			for b := 0; b < cols; b += p.M {
				end := min(b+p.M, cols)
				kept := 0
				for i := b; i < end; i++ {
					if keep[row*cols+i] {
						kept++
					}
				}
				if want := min(p.N, end-b); kept != want {
					t.Errorf("%v row %d block %d: %d kept, want %d", p, row, b, kept, want)
				}
				for i := b; i < end; i++ {
					for j := b; j < end; j++ {
						ki, kj := keep[row*cols+i], keep[row*cols+j]
						ai, aj := math.Abs(float64(w[row*cols+i])), math.Abs(float64(w[row*cols+j]))
						if ki && !kj && (ai < aj || ai == aj && i > j) {
							t.Errorf("%v row %d: kept %d (|%g|) over dropped %d (|%g|)", p, row, i, ai, j, aj)
						}
					}
				}
			}
		}
		masked := sparsity.Apply(make([]float32, len(w)), w, keep)
		if !sparsity.Conforms(masked, rows, cols, p, sparsity.AlongRow) {
			t.Errorf("%v: masked matrix does not conform", p)
		}
		if p.N < p.M && sparsity.Conforms(ones(rows*cols), rows, cols, p, sparsity.AlongRow) {
			t.Errorf("%v: a matrix of ones conforms", p)
		}
	}
}

func ones(n int) []float32 {
	w := make([]float32, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

func TestConformsColumns(t *testing.T) {
	// 2:4 down the columns of a 5×2 matrix: column 0 has 2 non-zeros in
	// rows 0-3 and 1 in the partial block (row 4); column 1 has 3.
	w := []float32{
		1, 1,
		0, 1,
		2, 1,
		0, 0,
		3, 0,
	}
	p := sparsity.Pattern{N: 2, M: 4}
	if sparsity.Conforms(w, 5, 2, p, sparsity.AlongColumn) {
		t.Error("column 1 has 3 non-zeros in a block of 4, but Conforms says yes")
	}
	w[1] = 0
	if !sparsity.Conforms(w, 5, 2, p, sparsity.AlongColumn) {
		t.Error("every column block has ≤ 2 non-zeros, but Conforms says no")
	}
	if sparsity.Conforms(w, 5, 2, p, sparsity.AlongRow) == false {
		t.Error("rows of 2 values hold at most 2 non-zeros")
	}
}

func TestMaskHandExamples(t *testing.T) {
	for _, c := range []struct {
		name  string
		score []float64
		p     sparsity.Pattern
		want  []bool
	}{
		{"2:4 plain", []float64{0.1, 0.9, 0.5, 0.2}, sparsity.Pattern{N: 2, M: 4}, []bool{false, true, true, false}},
		{"2:4 ties to lower index", []float64{1, 1, 1, 1}, sparsity.Pattern{N: 2, M: 4}, []bool{true, true, false, false}},
		{"1:2 tie", []float64{3, 3, 2, 5}, sparsity.Pattern{N: 1, M: 2}, []bool{true, false, false, true}},
		{"NaN below -Inf's index", []float64{math.NaN(), math.Inf(-1), 0, 0}, sparsity.Pattern{N: 3, M: 4}, []bool{true, false, true, true}},
		{"partial block keeps min(N, r)", []float64{4, 3, 2, 1, 5, 6}, sparsity.Pattern{N: 2, M: 4}, []bool{true, true, false, false, true, true}},
		{"partial block of one", []float64{4, 3, 2, 1, 5}, sparsity.Pattern{N: 1, M: 4}, []bool{true, false, false, false, true}},
		{"dense", []float64{1, 2, 3}, sparsity.Pattern{}, []bool{true, true, true}},
	} {
		keep := make([]bool, len(c.score))
		sparsity.Mask(keep, c.score, 1, len(c.score), c.p, sparsity.AlongRow)
		for i := range keep {
			if keep[i] != c.want[i] {
				t.Errorf("%s: keep = %v, want %v", c.name, keep, c.want)
				break
			}
		}
	}
}

func TestMaskPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"length": func() {
			sparsity.Mask(make([]bool, 3), make([]float64, 4), 2, 2, sparsity.Pattern{N: 1, M: 2}, sparsity.AlongRow)
		},
		"pattern": func() {
			sparsity.Mask(make([]bool, 4), make([]float64, 4), 2, 2, sparsity.Pattern{N: 3, M: 2}, sparsity.AlongRow)
		},
		"apply": func() { sparsity.Apply(make([]float32, 2), make([]float32, 3), make([]bool, 3)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestRandomScorer(t *testing.T) {
	k := sparsity.Key{Seed: 7, Step: 100, Tensor: sparsity.TensorID("g.fc1.w")}
	a := make([]float64, 64)
	sparsity.Random(a, a, k)
	b := make([]float64, 64)
	sparsity.Random(b, b, k)
	for i := range a {
		if a[i] != b[i] || a[i] < 0 || a[i] >= 1 {
			t.Fatalf("Random not reproducible or out of [0,1): %g, %g", a[i], b[i])
		}
	}
	// Scoring a tail alone would need the index offset; the score depends
	// on the index, the key and nothing else, so a second step differs.
	k2 := k
	k2.Step++
	c := make([]float64, 64)
	sparsity.Random(c, c, k2)
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same > 1 {
		t.Errorf("steps %d and %d share %d of 64 random scores", k.Step, k2.Step, same)
	}
	// The masks random scores give keep about N/M of the values, chosen
	// differently at different steps.
	keep1, keep2 := make([]bool, 4096), make([]bool, 4096)
	w := ones(4096)
	p := sparsity.Pattern{N: 2, M: 4}
	sparsity.MaskValues(keep1, w, 64, 64, p, sparsity.AlongRow, sparsity.Random, k, nil)
	sparsity.MaskValues(keep2, w, 64, 64, p, sparsity.AlongRow, sparsity.Random, k2, nil)
	diff := 0
	for i := range keep1 {
		if keep1[i] != keep2[i] {
			diff++
		}
	}
	if sparsity.Kept(keep1) != 2048 || diff < 1000 {
		t.Errorf("random 2:4 masks: %d kept, %d differ between steps", sparsity.Kept(keep1), diff)
	}
}

func TestRegister(t *testing.T) {
	neg := func(dst, w []float64, _ sparsity.Key) {
		for i, v := range w {
			dst[i] = -math.Abs(v)
		}
	}
	if err := sparsity.Register("smallest", neg); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"abs", "random", "smallest", "Bad", "", "1x"} {
		if err := sparsity.Register(bad, neg); err == nil {
			t.Errorf("Register(%q) succeeded", bad)
		}
	}
	if err := sparsity.Register("nilscorer", nil); err == nil {
		t.Error("Register of a nil Scorer succeeded")
	}
	s, err := sparsity.Lookup("smallest")
	if err != nil {
		t.Fatal(err)
	}
	keep := make([]bool, 4)
	sparsity.MaskValues(keep, []float32{1, -4, 2, 0.5}, 1, 4, sparsity.Pattern{N: 2, M: 4}, sparsity.AlongRow, s, sparsity.Key{}, nil)
	if want := []bool{true, false, false, true}; keep[0] != want[0] || keep[1] != want[1] || keep[2] != want[2] || keep[3] != want[3] {
		t.Errorf("smallest-magnitude 2:4 mask = %v, want %v", keep, want)
	}
	if _, err := sparsity.Lookup("nosuch"); err == nil {
		t.Error("Lookup(nosuch) succeeded")
	}
	if s, err := sparsity.Lookup(""); err != nil || s == nil {
		t.Errorf("Lookup(\"\") = %v, %v; want abs", s, err)
	}
}

// MaskAbs is MaskValues with Abs, in float32 and float64.
func TestMaskAbs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range patterns() {
		for _, axis := range []sparsity.Axis{sparsity.AlongRow, sparsity.AlongColumn} {
			rows, cols := 1+r.IntN(9), 1+r.IntN(33)
			s := randScores(r, rows*cols)
			for i := range s {
				if r.IntN(2) == 0 {
					s[i] = -s[i]
				}
			}
			w32 := make([]float32, len(s))
			for i, v := range s {
				w32[i] = float32(v)
			}
			want := make([]bool, len(s))
			sparsity.MaskValues(want, w32, rows, cols, p, axis, sparsity.Abs, sparsity.Key{}, nil)
			got := make([]bool, len(s))
			sparsity.MaskAbs(got, w32, rows, cols, p, axis)
			want64 := make([]bool, len(s))
			sparsity.MaskValues(want64, s, rows, cols, p, axis, sparsity.Abs, sparsity.Key{}, nil)
			got64 := make([]bool, len(s))
			sparsity.MaskAbs(got64, s, rows, cols, p, axis)
			for i := range got {
				if got[i] != want[i] || got64[i] != want64[i] {
					t.Fatalf("%v axis %d: MaskAbs differs from MaskValues(Abs) at %d", p, axis, i)
				}
			}
		}
	}
}
