package eval

import (
	"archive/zip"
	"bytes"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestEncodeStatsDate checks that the members of a written .npz file carry
// a valid MS-DOS date (zip tools warn about month 0) and that the file's
// bytes depend on the statistics alone.
func TestEncodeStatsDate(t *testing.T) {
	s := Stats{Mu: []float64{1, 2}, Sigma: mat.NewSymDense(2, []float64{1, 0.5, 0.5, 2})}
	var a, b bytes.Buffer
	if err := EncodeStats(&a, s); err != nil {
		t.Fatal(err)
	}
	if err := EncodeStats(&b, s); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two encodings of the same statistics differ")
	}
	z, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range z.File {
		// MS-DOS date: bits 0-4 day (1-31), 5-8 month (1-12), 9-15 years since 1980.
		day, month := f.ModifiedDate&31, f.ModifiedDate>>5&15
		if day < 1 || month < 1 || month > 12 {
			t.Errorf("%s: MS-DOS date %#04x has day %d, month %d", f.Name, f.ModifiedDate, day, month)
		}
		if f.Method != zip.Deflate {
			t.Errorf("%s: method %d, want deflate", f.Name, f.Method)
		}
	}
	if got, err := DecodeStats(bytes.NewReader(a.Bytes()), int64(a.Len())); err != nil || got.Mu[1] != 2 || got.Sigma.At(0, 1) != 0.5 {
		t.Errorf("DecodeStats: %v, %v", got, err)
	}
}
