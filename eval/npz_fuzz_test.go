package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeStats: any bytes give statistics or an error, never a panic.
// The seeds are the numpy-written fixtures; testdata/fuzz/FuzzDecodeStats
// holds more.
func FuzzDecodeStats(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "stats_*.npz"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeStats(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if s.Sigma == nil || s.Dim() != len(s.Mu) {
			t.Fatalf("stats of dimension %d with %d means", s.Dim(), len(s.Mu))
		}
	})
}

// FuzzDecodeFeatures: any bytes give features or an error, never a
// panic. The seeds are files WriteFeatures writes, with and without a
// network's name, and the statistics fixtures.
func FuzzDecodeFeatures(f *testing.F) {
	x, _ := prdcSets(false, 4, 2, 3)
	for _, name := range []string{"LeNet-MNIST", ""} {
		var b bytes.Buffer
		if err := EncodeFeatures(&b, Features{Rows: x, Stats: Stats{Features: name}}); err == nil {
			f.Add(b.Bytes())
		}
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "stats_*.npz"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ft, err := DecodeFeatures(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		n, d := ft.Rows.Dims()
		if n == 0 || d == 0 || ft.Stats.Dim() != 0 && ft.Stats.Dim() != d {
			t.Fatalf("%d×%d features with %d-d statistics", n, d, ft.Stats.Dim())
		}
	})
}
