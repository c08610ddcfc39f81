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
