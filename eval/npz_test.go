package eval

import (
	"archive/zip"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// readFeatures reads the array "act" of a fixture made by
// testdata/make_fixtures.py.
func readFeatures(t *testing.T, path string) *mat.Dense {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	data, shape, err := readArray(z, int64(len(raw)), "act")
	if err != nil {
		t.Fatal(err)
	}
	return mat.NewDense(shape[0], shape[1], data)
}

func mustReadStats(t *testing.T, path string) Stats {
	t.Helper()
	s, err := ReadStats(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadStatsNumpy(t *testing.T) {
	// stats_*.npz were written by numpy.savez_compressed from features_*.npz
	// (mean and numpy.cov), as pytorch-fid does. StatsOf of the same
	// features must agree to rounding.
	for _, name := range []string{"a", "b"} {
		s := mustReadStats(t, filepath.Join("testdata", "stats_"+name+".npz"))
		want, err := StatsOf(readFeatures(t, filepath.Join("testdata", "features_"+name+".npz")))
		if err != nil {
			t.Fatal(err)
		}
		checkStats(t, "stats_"+name, s, want, 1e-14)
	}
}

func TestReadStatsFloat32Fortran(t *testing.T) {
	// Same statistics stored as float32 with sigma in Fortran order: equal
	// to the float64 file rounded to float32.
	s := mustReadStats(t, filepath.Join("testdata", "stats_a_f32_fortran.npz"))
	ref := mustReadStats(t, filepath.Join("testdata", "stats_a.npz"))
	d := ref.Dim()
	if s.Dim() != d {
		t.Fatalf("dim %d, want %d", s.Dim(), d)
	}
	for i := range d {
		if got, want := s.Mu[i], float64(float32(ref.Mu[i])); got != want {
			t.Errorf("mu[%d] = %g, want %g", i, got, want)
		}
		for j := range d {
			if got, want := s.Sigma.At(i, j), float64(float32(ref.Sigma.At(i, j))); got != want {
				t.Errorf("sigma[%d,%d] = %g, want %g", i, j, got, want)
			}
		}
	}
	// A non-symmetric Fortran file read as C order would have failed the
	// symmetry check or given the transpose; sigma[0,2] ≠ sigma[2,0] only
	// in a non-symmetric matrix, so check an off-diagonal by value.
	if s.Sigma.At(0, 1) == 0 {
		t.Errorf("sigma[0,1] = 0")
	}
}

func TestFrechetAgainstPytorchFID(t *testing.T) {
	// Values printed by testdata/make_fixtures.py: pytorch-fid's
	// calculate_frechet_distance (scipy 1.10.1 sqrtm) on the fixtures.
	a := mustReadStats(t, filepath.Join("testdata", "stats_a.npz"))
	b := mustReadStats(t, filepath.Join("testdata", "stats_b.npz"))
	got, err := FrechetDistance(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3.715970481633498; math.Abs(got-want) > 1e-12*want {
		t.Errorf("FID(a, b) = %.17g, pytorch-fid %.17g", got, want)
	}
	// Singular covariances (5 samples, 8 features). scipy's sqrtm is
	// accurate only to about √ε on a singular product; the exact value is
	// from a well-conditioned reduction to a full-rank 4×4 problem.
	c, err := StatsOf(readFeatures(t, filepath.Join("testdata", "features_c.npz")))
	if err != nil {
		t.Fatal(err)
	}
	d, err := StatsOf(readFeatures(t, filepath.Join("testdata", "features_d.npz")))
	if err != nil {
		t.Fatal(err)
	}
	got, err = FrechetDistance(c, d)
	if err != nil {
		t.Fatal(err)
	}
	if exact := 11.245089023617714; math.Abs(got-exact) > 1e-12*exact {
		t.Errorf("FID(c, d) = %.17g, exact %.17g", got, exact)
	}
	if torch := 11.245088957174403; math.Abs(got-torch) > 1e-7*torch {
		t.Errorf("FID(c, d) = %.17g, pytorch-fid %.17g", got, torch)
	}
}

func TestStatsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.npz")
	want := Stats{
		Mu:    []float64{0.5, -1.25, math.Pi, 1e-300},
		Sigma: mat.NewSymDense(4, []float64{2, 0.5, 0, 1e-20, 0.5, 1, 0.25, 0, 0, 0.25, 3, -0.125, 1e-20, 0, -0.125, math.E}),
	}
	if err := WriteStats(path, want); err != nil {
		t.Fatal(err)
	}
	got := mustReadStats(t, path)
	checkStats(t, "round trip", got, want, 0)
	// Nothing but the file is left in the directory.
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(es))
	}
	// The layout numpy.load expects: members mu.npy and sigma.npy, deflated,
	// each an NPY v1 array of little-endian float64 with the right shape.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := map[string]string{"mu.npy": "'shape': (4,)", "sigma.npy": "'shape': (4, 4)"}
	for _, f := range zr.File {
		shape, ok := wantHeader[f.Name]
		if !ok {
			t.Errorf("unexpected member %q", f.Name)
			continue
		}
		delete(wantHeader, f.Name)
		if f.Method != zip.Deflate {
			t.Errorf("%s: method %d, want deflate", f.Name, f.Method)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		// NPY v1 has a 2-byte header length, v2 (what npyio writes, and
		// numpy reads since 1.9) a 4-byte one.
		head := make([]byte, 12)
		if _, err := readFull(rc, head); err != nil {
			t.Fatal(err)
		}
		var n int
		switch string(head[:8]) {
		case "\x93NUMPY\x01\x00":
			n = int(head[8]) | int(head[9])<<8 - 2
		case "\x93NUMPY\x02\x00":
			n = int(head[8]) | int(head[9])<<8 | int(head[10])<<16 | int(head[11])<<24
		default:
			t.Fatalf("%s: magic %q", f.Name, head[:8])
		}
		h := make([]byte, n)
		if _, err := readFull(rc, h); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		hs := string(h)
		if !strings.Contains(hs, "'descr': '<f8'") || !strings.Contains(hs, "'fortran_order': False") || !strings.Contains(hs, shape) {
			t.Errorf("%s: header %q", f.Name, hs)
		}
	}
	if len(wantHeader) != 0 {
		t.Errorf("missing members %v", wantHeader)
	}
}

func readFull(r interface{ Read([]byte) (int, error) }, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// TestWriteStatsNumpyLoads checks that numpy reads what WriteStats writes.
// It needs python3 with numpy and is skipped without.
func TestWriteStatsNumpyLoads(t *testing.T) {
	py := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("python3 with numpy not available")
	}
	path := filepath.Join(t.TempDir(), "s.npz")
	s := Stats{Mu: []float64{1.5, -2}, Sigma: mat.NewSymDense(2, []float64{4, 0.1, 0.1, 0.3})}
	if err := WriteStats(path, s); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", `import sys, numpy as np
f = np.load(sys.argv[1])
m, s = f["mu"][:], f["sigma"][:]
print(m.dtype, m.shape, s.dtype, s.shape, repr(float(m.sum() + 10 * s.sum())))`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	// 1.5 - 2 + 10·(4 + 0.1 + 0.1 + 0.3) = 44.5 (sum order may round).
	f := strings.Fields(string(out))
	if len(f) != 6 || strings.Join(f[:5], " ") != "float64 (2,) float64 (2, 2)" {
		t.Fatalf("numpy read %q", out)
	}
	if v, _ := strconv.ParseFloat(f[5], 64); math.Abs(v-44.5) > 1e-12 {
		t.Errorf("numpy sum %v, want 44.5", v)
	}
}

func TestReadStatsErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, arrays map[string]any) string {
		var b bytes.Buffer
		z := npz.NewWriter(&b)
		for k, v := range arrays {
			if err := z.Write(k+".npy", v); err != nil {
				t.Fatal(err)
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notZip := filepath.Join(dir, "text.npz")
	os.WriteFile(notZip, []byte("hello"), 0o644)
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing file", filepath.Join(dir, "nope.npz"), "no such file"},
		{"not zip", notZip, "not a .npz file"},
		{"no sigma", write("nosigma.npz", map[string]any{"mu": []float64{1, 2}}), `no array "sigma"`},
		{"shape", write("shape.npz", map[string]any{"mu": []float64{1, 2}, "sigma": mat.NewDense(3, 3, nil)}), "want (2, 2)"},
		{"mu 2d", write("mu2d.npz", map[string]any{"mu": mat.NewDense(1, 2, nil), "sigma": mat.NewDense(2, 2, nil)}), "want (d,)"},
		{"asym", write("asym.npz", map[string]any{"mu": []float64{1, 2}, "sigma": mat.NewDense(2, 2, []float64{1, 0.5, 0.4, 1})}), "not symmetric"},
		{"dtype", write("int.npz", map[string]any{"mu": []int64{1, 2}, "sigma": mat.NewDense(2, 2, nil)}), "dtype <i8"},
	} {
		_, err := ReadStats(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
