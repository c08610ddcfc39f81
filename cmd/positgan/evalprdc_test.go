package main

import (
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/eval"
)

// prdcFolders writes two folders of n different 28×28 gray images each:
// random strokes, the second set's brighter.
func prdcFolders(t *testing.T, n int) (string, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(33, 2))
	var dirs [2]string
	for s := range dirs {
		dirs[s] = filepath.Join(t.TempDir(), "set"+strconv.Itoa(s))
		if err := os.MkdirAll(dirs[s], 0o755); err != nil {
			t.Fatal(err)
		}
		for k := range n {
			g := image.NewGray(image.Rect(0, 0, 28, 28))
			for range 40 + 40*s {
				x, y := 4+rng.IntN(20), 4+rng.IntN(20)
				for d := range 4 {
					g.SetGray(x+d, y, color.Gray{Y: 255})
					g.SetGray(x, y+d, color.Gray{Y: 128 + uint8(rng.IntN(128))})
				}
			}
			f, err := os.Create(filepath.Join(dirs[s], strconv.Itoa(k)+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, g); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	return dirs[0], dirs[1]
}

// TestEvalPRDC: eval prdc prints the four figures as CSV; the same from
// the features eval stats --save-features wrote, whose statistics are
// those eval stats writes without it; a statistics file, or k as large
// as a set, is an error.
func TestEvalPRDC(t *testing.T) {
	a, b := prdcFolders(t, 8)
	out, stderr, code := runCLI(t, "", "eval", "prdc", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 || lines[0] != "metric,value" {
		t.Fatalf("output %q, want a header and four rows", out)
	}
	for i, name := range []string{"precision", "recall", "density", "coverage"} {
		f := strings.Split(lines[i+1], ",")
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if len(f) != 2 || f[0] != name || err != nil || v < 0 || name != "density" && v > 1 {
			t.Errorf("row %q, want %s,value", lines[i+1], name)
		}
	}

	dir := t.TempDir()
	fa, fb, sa := filepath.Join(dir, "a.npz"), filepath.Join(dir, "b.npz"), filepath.Join(dir, "stats.npz")
	for _, c := range [][]string{{a, "--out", fa, "--save-features"}, {b, "--out", fb, "--save-features"}, {a, "--out", sa}} {
		if o, stderr, code := runCLI(t, "", append([]string{"eval", "stats"}, c...)...); code != 0 {
			t.Fatalf("eval stats %v: exit %d: %s", c, code, stderr)
		} else if c[len(c)-1] == "--save-features" && !strings.Contains(o, "84 features of 8 images (LeNet-MNIST)") {
			t.Errorf("eval stats %v printed %q", c, o)
		}
	}
	for _, c := range [][]string{{fa, fb}, {fa, b}, {a, fb}} {
		got, stderr, code := runCLI(t, "", append([]string{"eval", "prdc"}, c...)...)
		if code != 0 || got != out || stderr != "" {
			t.Errorf("eval prdc %v: exit %d, stdout %q, stderr %q; want stdout %q", c, code, got, stderr, out)
		}
	}
	withRows, err := eval.ReadStats(fa)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := eval.ReadStats(sa)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(withRows.Sigma, plain.Sigma) || withRows.Features != plain.Features || withRows.Mu[0] != plain.Mu[0] {
		t.Errorf("statistics with --save-features differ from those without")
	}

	if _, stderr, code := runCLI(t, "", "eval", "prdc", sa, fb); code == 0 || !strings.Contains(stderr, "--save-features") {
		t.Errorf("a statistics file: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "eval", "prdc", fa, fb, "--k", "8"); code == 0 || !strings.Contains(stderr, "k = 8") {
		t.Errorf("--k 8 of 8 images: exit %d, stderr %q", code, stderr)
	}
	k7, _, code := runCLI(t, "", "eval", "prdc", fa, fb, "--k", "7")
	if code != 0 || k7 == out {
		t.Errorf("--k 7: exit %d, stdout %q", code, k7)
	}
	for _, c := range [][]string{{fa}, {fa, fb, "--k", "-1"}} {
		if _, _, code := runCLI(t, "", append([]string{"eval", "prdc"}, c...)...); code != 2 {
			t.Errorf("eval prdc %v: exit %d, want 2", c, code)
		}
	}
}
