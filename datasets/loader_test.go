package datasets

import (
	"math/big"
	"slices"
	"strconv"
	"testing"
)

// TestToUnit checks every 8-bit value against the exact p/127.5 - 1,
// rounded once to float32.
func TestToUnit(t *testing.T) {
	for p := range 256 {
		want, _ := new(big.Rat).Sub(new(big.Rat).SetFrac64(int64(p)*2, 255), big.NewRat(1, 1)).Float32()
		if toUnit[p] != want {
			t.Errorf("toUnit[%d] = %g, want %g", p, toUnit[p], want)
		}
	}
	if toUnit[0] != -1 || toUnit[255] != 1 {
		t.Errorf("toUnit[0], toUnit[255] = %g, %g; want -1, 1", toUnit[0], toUnit[255])
	}
}

// indexSet is a data set whose sample i has one pixel, i mod 256, and label
// i: the labels tell which samples a batch holds.
func indexSet(t testing.TB, n int) *Set {
	pix := make([]uint8, n)
	labels := make([]int, n)
	for i := range n {
		pix[i] = uint8(i)
		labels[i] = i
	}
	s, err := NewSet("index", Shape{1, 1, 1}, pix, labels, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newLoader(t testing.TB, ds Dataset, batch int, seed uint64) *Loader {
	l, err := NewLoader(ds, batch, seed)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// order returns the sample indices of the next k batches.
func order(l *Loader, k int) []int {
	var idx []int
	for range k {
		_, labels := l.Next()
		idx = append(idx, labels...)
	}
	return idx
}

func TestLoaderBatch(t *testing.T) {
	s := indexSet(t, 10)
	l := newLoader(t, s, 4, 1)
	images, labels := l.Next()
	if len(images) != 4 || len(labels) != 4 {
		t.Fatalf("batch of %d images, %d labels; want 4, 4", len(images), len(labels))
	}
	for k, i := range labels {
		if want := float32(2*i-255) / 255; images[k] != want {
			t.Errorf("image of sample %d = %g, want %g", i, images[k], want)
		}
	}
}

func TestLoaderDeterministic(t *testing.T) {
	s := indexSet(t, 100)
	a := order(newLoader(t, s, 8, 42), 40) // 3+ epochs
	b := order(newLoader(t, s, 8, 42), 40)
	c := order(newLoader(t, s, 8, 43), 40)
	if !slices.Equal(a, b) {
		t.Error("same seed, different order")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds, same order")
	}
	if slices.Equal(a[:96], a[96:192]) {
		t.Error("two epochs in the same order")
	}
}

func TestLoaderEpochCoverage(t *testing.T) {
	for _, tc := range []struct{ n, batch int }{{12, 4}, {12, 12}, {12, 1}, {13, 4}, {7, 6}} {
		l := newLoader(t, indexSet(t, tc.n), tc.batch, 7)
		per := tc.n / tc.batch
		if l.BatchesPerEpoch() != per {
			t.Errorf("n=%d batch=%d: %d batches per epoch, want %d", tc.n, tc.batch, l.BatchesPerEpoch(), per)
		}
		for epoch := range 3 {
			seen := make([]int, tc.n)
			for range per {
				_, labels := l.Next()
				if l.Epoch() != epoch {
					t.Fatalf("n=%d batch=%d: Epoch() = %d, want %d", tc.n, tc.batch, l.Epoch(), epoch)
				}
				for _, i := range labels {
					seen[i]++
				}
			}
			total := 0
			for i, c := range seen {
				if c > 1 {
					t.Fatalf("n=%d batch=%d epoch %d: sample %d served %d times", tc.n, tc.batch, epoch, i, c)
				}
				total += c
			}
			if total != per*tc.batch {
				t.Fatalf("n=%d batch=%d epoch %d: %d samples served, want %d", tc.n, tc.batch, epoch, total, per*tc.batch)
			}
		}
	}
}

// Every permutation of 4 samples must be about equally likely: a χ² test
// over 24000 epochs (fixed seed, so it cannot flake).
func TestLoaderShuffleUniform(t *testing.T) {
	l := newLoader(t, indexSet(t, 4), 4, 2026)
	count := map[string]int{}
	const epochs = 24000
	for range epochs {
		_, labels := l.Next()
		count[strconv.Itoa(labels[0])+strconv.Itoa(labels[1])+strconv.Itoa(labels[2])+strconv.Itoa(labels[3])]++
	}
	if len(count) != 24 {
		t.Fatalf("%d distinct permutations of 4, want 24", len(count))
	}
	chi2 := 0.0
	for _, c := range count {
		d := float64(c) - epochs/24
		chi2 += d * d / (epochs / 24)
	}
	if chi2 > 49.73 { // 23 degrees of freedom, p = 0.001
		t.Errorf("χ² = %.1f over 24 permutations, want < 49.73", chi2)
	}
}

func TestLoaderResume(t *testing.T) {
	s := indexSet(t, 50)
	for _, skip := range []int{0, 1, 5, 6, 7, 13} { // 6 batches per epoch
		l := newLoader(t, s, 8, 99)
		order(l, skip)
		st := l.State()
		want := order(l, 20)

		r := newLoader(t, s, 8, 12345) // the seed comes from the state
		order(r, 3)
		if err := r.Restore(st); err != nil {
			t.Fatal(err)
		}
		if got := order(r, 20); !slices.Equal(got, want) {
			t.Errorf("after %d batches: resumed order differs", skip)
		}
		if r.State() != l.State() {
			t.Errorf("after %d batches: state %+v, want %+v", skip, r.State(), l.State())
		}
	}
}

func TestLoaderErrors(t *testing.T) {
	s := indexSet(t, 10)
	for _, batch := range []int{0, -1, 11} {
		if _, err := NewLoader(s, batch, 1); err == nil {
			t.Errorf("NewLoader(batch %d): no error", batch)
		}
	}
	l := newLoader(t, s, 2, 1)
	good := l.State()
	for _, st := range []LoaderState{
		{Seed: 1, Len: 11, BatchSize: 2},
		{Seed: 1, Len: 10, BatchSize: 3},
		{Seed: 1, Len: 10, BatchSize: 2, Next: 11},
		{Seed: 1, Len: 10, BatchSize: 2, Epoch: -1},
	} {
		if err := l.Restore(st); err == nil {
			t.Errorf("Restore(%+v): no error", st)
		}
	}
	if l.State() != good {
		t.Errorf("a failed Restore moved the loader")
	}
}

func TestNewSetErrors(t *testing.T) {
	for _, tc := range []struct {
		shape   Shape
		pix     int
		labels  []int
		classes []string
	}{
		{Shape{0, 1, 1}, 0, nil, nil},
		{Shape{1, 2, 2}, 7, []int{0, 0}, nil},
		{Shape{1, 1, 1}, 2, []int{0, -1}, nil},
		{Shape{1, 1, 1}, 2, []int{0, 2}, []string{"a", "b"}},
	} {
		if _, err := NewSet("x", tc.shape, make([]uint8, tc.pix), tc.labels, tc.classes); err == nil {
			t.Errorf("NewSet(%v, %d pixels, labels %v, classes %v): no error", tc.shape, tc.pix, tc.labels, tc.classes)
		}
	}
}

func TestImagePanicsOnLength(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	indexSet(t, 2).Image(make([]float32, 2), 0)
}

func BenchmarkLoaderNext(b *testing.B) {
	// MNIST-sized: 60000 samples of 1x28x28, batches of 64.
	const n, size, batch = 60000, 28 * 28, 64
	pix := make([]uint8, n*size)
	for i := range pix {
		pix[i] = uint8(i * 31)
	}
	s, err := NewSet("bench", Shape{1, 28, 28}, pix, make([]int, n), nil)
	if err != nil {
		b.Fatal(err)
	}
	l := newLoader(b, s, batch, 1)
	b.ReportAllocs()
	for b.Loop() {
		l.Next()
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "samples/s")
}
