package eval

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/internal/pyref"
)

// TestStatsFeatures round-trips the features array (ASCII and not) and
// checks that numpy reads it as the string and still reads mu and sigma
// as pytorch-fid does (skipped without numpy).
func TestStatsFeatures(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"Inception-v3, pytorch-fid", "LeNet-MNIST", "réseau ✓", ""} {
		path := filepath.Join(dir, "s.npz")
		s := Stats{Mu: []float64{1, 2}, Sigma: mat.NewSymDense(2, []float64{1, 0, 0, 1}), Features: name}
		if err := WriteStats(path, s); err != nil {
			t.Fatal(err)
		}
		got, err := ReadStats(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Features != name {
			t.Errorf("features %q, wrote %q", got.Features, name)
		}
		if name == "" {
			continue
		}
		py := pyref.Python("numpy")
		if py == "" {
			continue
		}
		out, err := exec.Command(py, "-c", `import sys, numpy as np
f = np.load(sys.argv[1])
m, s = f["mu"][:], f["sigma"][:]
sys.stdout.buffer.write((str(f["features"]) + "|" + str(m.shape)).encode())`, path).CombinedOutput()
		if err != nil {
			t.Fatalf("numpy: %v\n%s", err, out)
		}
		if want := name + "|(2,)"; strings.TrimSpace(string(out)) != want {
			t.Errorf("numpy read %q, want %q", out, want)
		}
	}
}
