package eval

import (
	"archive/zip"
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/internal/pyref"
)

// TestFeaturesRoundTrip: WriteFeatures keeps the rows bit for bit, the
// statistics and the network's name; ReadStats still reads the file as
// statistics, and a statistics file written before, whose features array
// is the network's name, is still read by ReadStats and refused by
// ReadFeatures with a hint.
func TestFeaturesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	x, _ := prdcSets(false, 7, 3, 4)
	x.Set(2, 1, 1.0/3) // a value with all 53 bits
	for _, name := range []string{"LeNet-MNIST", ""} {
		path := filepath.Join(dir, "f.npz")
		if err := WriteFeatures(path, Features{Rows: x, Stats: Stats{Features: name}}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFeatures(path)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got.Rows, x) {
			t.Errorf("rows %v, wrote %v", mat.Formatted(got.Rows), mat.Formatted(x))
		}
		want, _ := StatsOf(x)
		st, err := ReadStats(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Stats{got.Stats, st} {
			if s.Features != name || !mat.Equal(s.Sigma, want.Sigma) || !slices.Equal(s.Mu, want.Mu) {
				t.Errorf("statistics %+v, want %+v named %q", s, want, name)
			}
		}
	}

	old := filepath.Join(dir, "old.npz")
	s, _ := StatsOf(x)
	s.Features = "LeNet-MNIST"
	if err := WriteStats(old, s); err != nil {
		t.Fatal(err)
	}
	if st, err := ReadStats(old); err != nil || st.Features != "LeNet-MNIST" {
		t.Errorf("statistics file: %q, %v", st.Features, err)
	}
	if _, err := ReadFeatures(old); err == nil || !strings.Contains(err.Error(), "--save-features") {
		t.Errorf("ReadFeatures of statistics: %v, want a hint at --save-features", err)
	}
	if err := WriteFeatures(old, Features{Stats: s}); err == nil {
		t.Error("WriteFeatures without rows: no error")
	}
}

// TestFeaturesNumpy: numpy reads what WriteFeatures writes (features,
// mu, sigma, network), and ReadFeatures reads a file numpy.savez writes
// with features alone, float32 or Fortran order (skipped without numpy).
func TestFeaturesNumpy(t *testing.T) {
	py := pyref.Python("numpy")
	if py == "" {
		t.Skip("no python3 with numpy")
	}
	dir := t.TempDir()
	x, _ := prdcSets(false, 5, 3, 3)
	ours := filepath.Join(dir, "ours.npz")
	if err := WriteFeatures(ours, Features{Rows: x, Stats: Stats{Features: "LeNet-MNIST"}}); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(dir, "theirs.npz")
	out, err := exec.Command(py, "-c", `import sys, numpy as np
f = np.load(sys.argv[1])
x = f["features"]
assert x.dtype == np.float64 and x.shape == (5, 3), (x.dtype, x.shape)
assert np.allclose(f["mu"], x.mean(axis=0), rtol=0, atol=1e-12)
assert np.allclose(f["sigma"], np.cov(x, rowvar=False), rtol=0, atol=1e-12)
assert str(f["network"]) == "LeNet-MNIST"
np.savez(sys.argv[2], features=np.asfortranarray(x.astype(np.float32)))
`, ours, theirs).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	got, err := ReadFeatures(theirs)
	if err != nil {
		t.Fatal(err)
	}
	r, c := x.Dims()
	for i := range r {
		for j := range c {
			if g, w := got.Rows.At(i, j), float64(float32(x.At(i, j))); g != w {
				t.Fatalf("features[%d,%d] = %v, want %v", i, j, g, w)
			}
		}
	}
	if got.Stats.Dim() != 0 || got.Stats.Features != "" {
		t.Errorf("statistics %+v from a file of features alone", got.Stats)
	}
}

// TestFeaturesShape: the features array must be a matrix of at least one
// row and one column, as wide as mu.
func TestFeaturesShape(t *testing.T) {
	npz := func(members map[string]any) []byte {
		var b bytes.Buffer
		z := zip.NewWriter(&b)
		for _, name := range []string{"mu", "sigma", "features"} {
			if v, ok := members[name]; ok {
				w, err := z.Create(name + ".npy")
				if err != nil {
					t.Fatal(err)
				}
				if err := npy.Write(w, v); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	sigma := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	for _, tc := range []struct {
		name    string
		members map[string]any
		want    string
	}{
		{"vector", map[string]any{"features": []float64{1, 2}}, "shape [2], want (N, d)"},
		{"one row", map[string]any{"features": mat.NewDense(1, 2, nil)}, ""},
		{"narrower than mu", map[string]any{"mu": []float64{0, 0}, "sigma": sigma, "features": mat.NewDense(3, 1, nil)}, "1 columns, mu 2"},
		{"no features", map[string]any{"mu": []float64{0, 0}, "sigma": sigma}, "--save-features"},
	} {
		raw := npz(tc.members)
		_, err := DecodeFeatures(bytes.NewReader(raw), int64(len(raw)))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	s := Stats{Mu: []float64{1, 2}, Sigma: mat.NewSymDense(2, []float64{1, 0, 0, 1})}
	if err := EncodeFeatures(io.Discard, Features{Rows: mat.NewDense(2, 3, nil), Stats: s}); err == nil || !strings.Contains(err.Error(), "3-d features with 2-d statistics") {
		t.Errorf("mismatched statistics: %v", err)
	}
}
