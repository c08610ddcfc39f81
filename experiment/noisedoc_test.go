package experiment

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
)

// docPCG is the generator docs/deployment.md describes ("The noise
// generate --seed draws"), written from the text: a 128-bit LCG with the
// DXSM output function.
type docPCG struct{ hi, lo uint64 }

func (p *docPCG) Uint64() uint64 {
	const mulHi, mulLo = 0x2360ed051fc65da4, 0x4385df649fccf645
	const incHi, incLo = 0x5851f42d4c957f2d, 0x14057b7ef767814f
	hi, lo := bits.Mul64(p.lo, mulLo)
	hi += p.hi*mulLo + p.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	p.hi, p.lo = hi, lo
	hi ^= hi >> 32
	hi *= 0xda942042e4dd58b5
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// docValues draws n values as the documentation says: NormFloat64 over
// the generator, each rounded to float32.
func docValues(p *docPCG, n int) []float32 {
	r := rand.New(p)
	z := make([]float32, n)
	for i := range z {
		z[i] = float32(r.NormFloat64())
	}
	return z
}

// docGrid is the grid shape of step 1.
func docGrid(classes, n int) (rows, cols int) {
	if classes > 0 {
		return classes, max(1, (n+classes-1)/classes)
	}
	cols = int(math.Ceil(math.Sqrt(float64(n))))
	return (n + cols - 1) / cols, cols
}

// The procedure docs/deployment.md gives for the noise of generate
// --seed (gan.GridNoise) and of the training grids and export --hex
// (gan.FixedNoise) gives their numbers (issue 29 item 14).
func TestNoiseAsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"rand.NewPCG(seed, 0x5a4d91e)", "0x2360ed051fc65da44385df649fccf645", "0x5851f42d4c957f2d14057b7ef767814f",
		"0xda942042e4dd58b5", "FNV-1a hash of the\ntext `fixed noise` XOR `seed·0x9e3779b97f4a7c15`", "image i has class `i / cols`", "labels `row mod classes`"} {
		if !strings.Contains(string(doc), c) {
			t.Errorf("docs/deployment.md no longer says %q", c)
		}
	}
	img := datasets.Shape{C: 1, H: 28, W: 28}
	for _, tc := range []struct {
		spec         gan.GeneratorSpec
		n, class     int
		seed         uint64
		wantRows     int
		wantCols     int
		wantLabelsOf func(i, cols int) int
	}{
		{gan.GeneratorSpec{Z: []int{100, 1, 1}, Image: img}, 5, -1, 1, 2, 3, nil},
		{gan.GeneratorSpec{Z: []int{100}, Classes: 10, Image: img}, 25, -1, 7, 10, 3, func(i, cols int) int { return i / cols }},
		{gan.GeneratorSpec{Z: []int{100}, Classes: 10, Image: img}, 4, 3, 1 << 40, 2, 2, func(int, int) int { return 3 }},
	} {
		z, labels, rows, cols := gan.GridNoise(tc.spec, tc.n, tc.seed, tc.class)
		classes := tc.spec.Classes
		if tc.class >= 0 {
			classes = 0
		}
		dr, dc := docGrid(classes, tc.n)
		if rows != dr || cols != dc || rows != tc.wantRows || cols != tc.wantCols {
			t.Errorf("%+v: grid %dx%d, documented %dx%d, want %dx%d", tc.spec, rows, cols, dr, dc, tc.wantRows, tc.wantCols)
		}
		want := docValues(&docPCG{hi: tc.seed, lo: 0x5a4d91e}, rows*cols*tc.spec.ZSize())
		if tc.spec.Classes == 0 || tc.class >= 0 {
			want = want[:tc.n*tc.spec.ZSize()]
		}
		if !equalBits(z, want) {
			t.Errorf("%+v seed %d: GridNoise's values differ from the documented ones", tc.spec, tc.seed)
		}
		for i, l := range labels {
			if w := tc.wantLabelsOf(i, cols); l != w {
				t.Errorf("%+v: label of image %d is %d, documented %d", tc.spec, i, l, w)
				break
			}
		}

		// FixedNoise: the PCG seeded (seed, FNV-1a("fixed noise") ^ seed·φ).
		h := fnv.New64a()
		h.Write([]byte("fixed noise"))
		seed2 := binary.BigEndian.Uint64(h.Sum(nil)) ^ tc.seed*0x9e3779b97f4a7c15
		fz, fl := gan.FixedNoise(tc.spec, tc.seed, rows, cols)
		if !equalBits(fz, docValues(&docPCG{hi: tc.seed, lo: seed2}, rows*cols*tc.spec.ZSize())) {
			t.Errorf("%+v seed %d: FixedNoise's values differ from the documented ones", tc.spec, tc.seed)
		}
		for i, l := range fl {
			if w := (i / cols) % tc.spec.Classes; l != w {
				t.Errorf("%+v: FixedNoise's label of image %d is %d, documented %d", tc.spec, i, l, w)
				break
			}
		}
	}
}

func equalBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
