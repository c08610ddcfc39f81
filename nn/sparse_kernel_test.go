package nn

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/sparsity"
)

// atEachLevel runs f with the mask kernels of each level this CPU runs
// (whatever quant.CPUEnv says), generic first, and restores sparseLevel.
func atEachLevel(t *testing.T, f func(t *testing.T)) {
	defer func(l quant.Level) { sparseLevel = l }(sparseLevel)
	for i, name := range quant.KernelLevels() {
		sparseLevel = quant.Level(i)
		t.Run(name, f)
	}
}

// defMask32 is the abs N:M mask of a rows × cols float32 matrix along its
// rows, from the definition: in every block of m consecutive values of a
// row, the n of largest |w| are kept, NaN scoring below everything, ties
// to the lower index; a row's last, partial block keeps min(n, r) of r.
func defMask32(w []float32, rows, cols, n, m int) []bool {
	keep := make([]bool, len(w))
	score := func(i int) float64 {
		if v := float64(w[i]); v == v {
			return math.Abs(v)
		}
		return math.Inf(-1)
	}
	for r := range rows {
		for b := 0; b < cols; b += m {
			var idx []int
			for p := b; p < b+m && p < cols; p++ {
				idx = append(idx, r*cols+p)
			}
			sort.SliceStable(idx, func(i, j int) bool { return score(idx[i]) > score(idx[j]) })
			for k := 0; k < n && k < len(idx); k++ {
				keep[idx[k]] = true
			}
		}
	}
	return keep
}

// hostileWeights returns n float32 values drawn to make masks hard: many
// ties (a few magnitudes of both signs), ±0, ±Inf, NaNs of both signs and
// several payloads, subnormals, and ordinary values.
func hostileWeights(r *rand.Rand, n int) []float32 {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
		math.Float32frombits(1), math.Float32frombits(0x80000001), math.MaxFloat32, -math.MaxFloat32,
		1, -1, 0.5, -0.5, 2, -2}
	w := make([]float32, n)
	for i := range w {
		switch r.IntN(3) {
		case 0:
			w[i] = special[r.IntN(len(special))]
		case 1:
			w[i] = float32(r.IntN(3)) * float32(1-2*r.IntN(2)) // ties
		default:
			w[i] = float32(r.NormFloat64())
		}
	}
	return w
}

func TestMaskTableLayout(t *testing.T) {
	var m maskTable
	if o := unsafe.Offsetof(m.n); o != 1920 {
		t.Errorf("maskTable.n at %d; sparse_amd64.s reads it at 1920", o)
	}
	if o := unsafe.Offsetof(m.count); o != 1924 {
		t.Errorf("maskTable.count at %d; sparse_amd64.s reads it at 1924", o)
	}
}

// TestMaskApply32 checks the fast mask against the definition and against
// sparsity.MaskAbs + Apply (the generic path it replaces), bit for bit, on
// hostile data: every pattern of M 2, 4, 8, 16, rows whose length is and
// is not a multiple of M (and of the 16-value chunk), the output apart
// from and on top of the weights; nothing past the end is written. It
// runs at each kernel level.
func TestMaskApply32(t *testing.T) { atEachLevel(t, testMaskApply32) }

func testMaskApply32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	shapes := [][2]int{{1, 1}, {1, 3}, {3, 5}, {2, 16}, {5, 17}, {4, 31}, {7, 33}, {3, 64}, {9, 102}, {4, 130}, {2, 1000}, {6, 16 * 9}}
	for _, m := range []int{2, 4, 8, 16} {
		for n := 1; n < m; n++ {
			p := sparsity.Pattern{N: n, M: m}
			if !hasMaskKernel(p, sparsity.AlongRow) {
				t.Fatalf("%v: no fast path", p)
			}
			tab := newMaskTable(p)
			for _, sh := range shapes {
				rows, cols := sh[0], sh[1]
				w := hostileWeights(r, rows*cols)
				want := defMask32(w, rows, cols, n, m)
				gen := make([]bool, len(w))
				sparsity.MaskAbs(gen, w, rows, cols, p, sparsity.AlongRow)
				genY := sparsity.Apply(make([]float32, len(w)), w, gen)

				keepBuf := make([]bool, len(w)+16)
				yBuf := make([]float32, len(w)+16)
				for i := len(w); i < len(yBuf); i++ {
					keepBuf[i], yBuf[i] = true, 7
				}
				keep, y := keepBuf[:len(w)], yBuf[:len(w)]
				zeros := maskApply32(keep, y, w, rows, cols, tab, m)
				wantZeros := 0
				for _, v := range genY {
					if v == 0 {
						wantZeros++
					}
				}
				if zeros != wantZeros {
					t.Fatalf("%v %d×%d: %d zeros, want %d", p, rows, cols, zeros, wantZeros)
				}
				for i := range w {
					if keep[i] != want[i] || keep[i] != gen[i] {
						t.Fatalf("%v %d×%d: keep[%d] = %v, definition %v, generic %v (w %v)", p, rows, cols, i, keep[i], want[i], gen[i], w[i])
					}
					if math.Float32bits(y[i]) != math.Float32bits(genY[i]) {
						t.Fatalf("%v %d×%d: y[%d] bits %#x, generic %#x", p, rows, cols, i, math.Float32bits(y[i]), math.Float32bits(genY[i]))
					}
				}
				for i := len(w); i < len(yBuf); i++ {
					if !keepBuf[i] || yBuf[i] != 7 {
						t.Fatalf("%v %d×%d: wrote past the end at %d", p, rows, cols, i)
					}
				}
				inPlace := append([]float32(nil), w...)
				maskApply32(keep, inPlace, inPlace, rows, cols, tab, m)
				for i := range w {
					if math.Float32bits(inPlace[i]) != math.Float32bits(genY[i]) {
						t.Fatalf("%v %d×%d in place: y[%d] bits %#x, generic %#x", p, rows, cols, i, math.Float32bits(inPlace[i]), math.Float32bits(genY[i]))
					}
				}
			}
		}
	}
}

// TestApply32 checks the fast apply against sparsity.Apply bit for bit,
// for every length up to 70 and a long one, in place too, at each
// kernel level.
func TestApply32(t *testing.T) { atEachLevel(t, testApply32) }

func testApply32(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range append(upTo(71), 4099) {
		src := hostileWeights(r, n)
		keep := make([]bool, n)
		for i := range keep {
			keep[i] = r.IntN(2) == 0
		}
		want := sparsity.Apply(make([]float32, n), src, keep)
		buf := make([]float32, n+16)
		for i := n; i < len(buf); i++ {
			buf[i] = 7
		}
		apply32(buf[:n], src, keep)
		in := append([]float32(nil), src...)
		apply32(in, in, keep)
		for i := range n {
			if math.Float32bits(buf[i]) != math.Float32bits(want[i]) || math.Float32bits(in[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n %d: [%d] bits %#x (in place %#x), want %#x", n, i, math.Float32bits(buf[i]), math.Float32bits(in[i]), math.Float32bits(want[i]))
			}
		}
		for i := n; i < len(buf); i++ {
			if buf[i] != 7 {
				t.Fatalf("n %d: wrote past the end at %d", n, i)
			}
		}
	}
}

func upTo(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestSparseReadTwice: a layer read twice in one graph (a discriminator
// on real and on fake images) shares one mask op, and the gradient of
// the two reads still checks against finite differences.
func TestSparseReadTwice(t *testing.T) {
	for _, lc := range layerCases {
		f := LayerFormats{Sparsity: Sparsity{Weight: sparsity.Pattern{N: 2, M: 4}}}
		checkGrad(t, lc.name+" read twice", func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
			rng := rand.New(rand.NewPCG(21, 22))
			fwd, ps, err := lc.build(g, f, WithDtype(tensor.Float64), WithSeed(7))
			if err != nil {
				return nil, nil, err
			}
			fillRand(ps[1].Value().Data().([]float64), rng)
			x1 := input(g, "x1", lc.in, normal(rng))
			x2 := input(g, "x2", lc.in, normal(rng))
			y1, err := fwd(x1)
			if err != nil {
				return nil, nil, err
			}
			y2, err := fwd(x2)
			if err != nil {
				return nil, nil, err
			}
			masks := 0
			for _, n := range g.AllNodes() {
				if n.Op() != nil && strings.HasPrefix(n.Op().String(), "SparseMask[") {
					masks++
				}
			}
			if masks != 1 {
				t.Errorf("%s: %d mask ops for two reads, want 1", lc.name, masks)
			}
			l1, err := dotLoss(y1, rng)
			if err != nil {
				return nil, nil, err
			}
			l2, err := dotLoss(y2, rng)
			if err != nil {
				return nil, nil, err
			}
			loss, err := gorgonia.Add(l1, l2)
			return loss, append(gorgonia.Nodes{x1, x2}, ps...), err
		}, stepOpts)
	}
}

// TestSparseFastEqualsGeneric runs each float32 layer with a 2:4 and a
// 1:2 weight mask on the fast kernels and on the generic code
// (sparsity.MaskAbs, sparsity.Apply), and compares output and gradients
// bit for bit, at each kernel level.
func TestSparseFastEqualsGeneric(t *testing.T) { atEachLevel(t, testSparseFastEqualsGeneric) }

func testSparseFastEqualsGeneric(t *testing.T) {
	level := sparseLevel
	if level == quant.LevelGeneric {
		t.Skip("no kernel at the generic level")
	}
	defer func() { sparseLevel = level }()
	for _, lc := range layerCases {
		for _, p := range []sparsity.Pattern{{N: 2, M: 4}, {N: 1, M: 2}} {
			f := LayerFormats{Sparsity: Sparsity{Weight: p}}
			sparseLevel = level
			_, fast := runLayer32(t, lc, f, nil)
			sparseLevel = quant.LevelGeneric
			_, generic := runLayer32(t, lc, f, nil)
			for k, what := range []string{"y", "dx", "dw", "db"} {
				for i := range generic[k] {
					if math.Float32bits(fast[k][i]) != math.Float32bits(generic[k][i]) {
						t.Fatalf("%s %v: %s[%d] = %v fast, %v generic", lc.name, p, what, i, fast[k][i], generic[k][i])
					}
				}
			}
		}
	}
}
