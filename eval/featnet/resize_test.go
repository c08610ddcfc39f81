package featnet

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestResizeAxis checks one axis against source positions worked out by
// hand from PyTorch's rule src = (i + 0.5)·in/out - 0.5, clamped at 0,
// interpolating between floor(src) and the next index (the last index
// repeats).
func TestResizeAxis(t *testing.T) {
	x := []float32{1, 2, 4, 8}
	for _, tc := range []struct {
		name string
		in   []float32
		want []float64
	}{
		// 2→4: src = -0.25 (→0), 0.25, 0.75, 1.25 (→ index 1 alone).
		{"2 to 4", x[:2], []float64{1, 0.75*1 + 0.25*2, 0.25*1 + 0.75*2, 2}},
		// 4→3: scale 4/3; src = 1/6, 3/2, 17/6.
		{"4 to 3", x, []float64{5.0/6*1 + 1.0/6*2, 0.5*2 + 0.5*4, 1.0/6*4 + 5.0/6*8}},
		// 3→2: scale 3/2; src = 0.25, 1.75.
		{"3 to 2", x[:3], []float64{0.75*1 + 0.25*2, 0.25*2 + 0.75*4}},
		// Same size: src = i exactly, the identity.
		{"4 to 4", x, []float64{1, 2, 4, 8}},
		// 1→3: every output is the single input.
		{"1 to 3", x[:1], []float64{1, 1, 1}},
	} {
		out := len(tc.want)
		// As a row (1×in → 1×out) and as a column (in×1 → out×1).
		row := make([]float32, out)
		Resize(row, tc.in, 1, 1, len(tc.in), 1, out)
		col := make([]float32, out)
		Resize(col, tc.in, 1, len(tc.in), 1, out, 1)
		for i, w := range tc.want {
			for _, got := range []float32{row[i], col[i]} {
				if math.Abs(float64(got)-w) > 1e-6*math.Abs(w) {
					t.Errorf("%s: [%d] = %v, want %v", tc.name, i, got, w)
				}
			}
		}
	}
}

// TestResize2D checks a 2×2 → 3×3 resize of two planes: scale 2/3, src
// positions 0 (clamped from -1/6), 0.5 and 1 (the last row repeats): the
// centre is the mean of the four pixels, the edges means of two.
func TestResize2D(t *testing.T) {
	src := []float32{1, 2, 3, 5, -1, -1, -1, -1}
	dst := make([]float32, 18)
	Resize(dst, src, 2, 2, 2, 3, 3)
	want := []float32{
		1, 1.5, 2,
		2, 2.75, 3.5,
		3, 4, 5,
		-1, -1, -1, -1, -1, -1, -1, -1, -1,
	}
	for i, w := range want {
		if dst[i] != w {
			t.Errorf("dst[%d] = %v, want %v", i, dst[i], w)
		}
	}
}

func TestResizePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("short dst: no panic")
		}
	}()
	Resize(make([]float32, 3), make([]float32, 4), 1, 2, 2, 2, 2)
}

// TestFMA32 checks fma32 against a·b + c computed exactly (math/big) and
// rounded once to float32, on random and on tie-prone operands.
func TestFMA32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	exact := func(a, b, c float32) float32 {
		x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
		x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
		x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
		f, _ := x.Float32()
		return f
	}
	for i := range 200000 {
		a, b, c := rng.Float32(), rng.Float32(), rng.Float32()
		switch i % 4 {
		case 1: // c far smaller: the sum's low bits decide the rounding
			c = float32(math.Ldexp(float64(c), -30))
		case 2: // near-cancellation
			c = -a * b
		case 3:
			a, b = float32(int(a*4096))/4096, float32(int(b*4096))/4096
		}
		if got, want := fma32(a, b, c), exact(a, b, c); got != want {
			t.Fatalf("fma32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
	}
}
