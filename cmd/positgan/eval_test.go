package main

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/eval"
	"gonum.org/v1/gonum/mat"
)

// evalRun runs the command line in-process and returns exit status,
// stdout and stderr.
func evalRun(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// evalGray writes a 2×2 gray PNG whose first k pixels are 51, the rest 0.
func evalGray(t *testing.T, path string, k int) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 2, 2))
	for i := range k {
		img.Pix[i] = 51
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// evalFirst parses the first line of out as a number.
func evalFirst(t *testing.T, out string) float64 {
	t.Helper()
	line, _, _ := strings.Cut(out, "\n")
	line, _, _ = strings.Cut(line, "\t") // the value comes first, the metric's name after it
	if line == "inf" {
		return math.Inf(1)
	}
	v, err := strconv.ParseFloat(line, 64)
	if err != nil {
		t.Fatalf("first line %q: %v", line, err)
	}
	return v
}

func TestEvalPSNR(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	// x.png: one of four pixels off by 51, MSE = 650.25 = 255²/100: 20 dB.
	// y.png: all four off by 51, MSE = 2601 = 255²/25: 10 log10 25 dB.
	evalGray(t, filepath.Join(a, "x.png"), 0)
	evalGray(t, filepath.Join(b, "x.png"), 1)
	evalGray(t, filepath.Join(a, "y.png"), 0)
	evalGray(t, filepath.Join(b, "y.png"), 4)
	os.WriteFile(filepath.Join(a, "notes.txt"), []byte("not an image"), 0o644)
	y := 10 * math.Log10(25)

	for _, tc := range []struct {
		name string
		args []string
		mean float64
		rest []string // per-image lines, name then value
	}{
		{"folders", []string{"eval", "psnr", a, b}, (20 + y) / 2, []string{"x.png", "20", "y.png", "13.9794000867"}},
		{"files", []string{"eval", "psnr", filepath.Join(a, "x.png"), filepath.Join(b, "x.png")}, 20, []string{"x.png", "20"}},
		// Peak 510 adds 20 log10 2 dB; flag after the arguments.
		{"max after", []string{"eval", "psnr", a, b, "--max", "510"}, (20+y)/2 + 20*math.Log10(2), nil},
		{"max before", []string{"eval", "psnr", "-max=510", a, b}, (20+y)/2 + 20*math.Log10(2), nil},
		{"identical", []string{"eval", "psnr", a, a}, math.Inf(1), []string{"x.png", "inf", "y.png", "inf"}},
	} {
		code, out, errs := evalRun(tc.args...)
		if code != 0 {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, errs)
			continue
		}
		got := evalFirst(t, out)
		if got != tc.mean && math.Abs(got-tc.mean) > 1e-10*tc.mean {
			t.Errorf("%s: mean %v, want %v", tc.name, got, tc.mean)
		}
		if tc.rest != nil {
			if f := strings.Fields(out)[1:]; strings.Join(f, " ") != strings.Join(tc.rest, " ") {
				t.Errorf("%s: per-image lines %q, want %q", tc.name, f, tc.rest)
			}
		}
	}
}

func TestEvalPSNRErrors(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	for _, d := range []string{a, b, c} {
		os.Mkdir(d, 0o755)
	}
	evalGray(t, filepath.Join(a, "x.png"), 0)
	evalGray(t, filepath.Join(b, "x.png"), 0)
	evalGray(t, filepath.Join(b, "z.png"), 0)
	rgb := filepath.Join(c, "x.png")
	f, _ := os.Create(rgb)
	png.Encode(f, image.NewNRGBA(image.Rect(0, 0, 2, 2)))
	f.Close()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one arg", []string{"eval", "psnr", a}, 2, "want two images or two folders, got 1 arguments"},
		{"bad max", []string{"eval", "psnr", a, b, "--max", "0"}, 2, "--max 0: must be positive"},
		{"max not a number", []string{"eval", "psnr", a, b, "--max", "x"}, 2, "invalid value"},
		{"mixed", []string{"eval", "psnr", a, filepath.Join(b, "x.png")}, 2, "one is a folder, the other a file"},
		{"missing image", []string{"eval", "psnr", a, b}, 1, "z.png is in " + b + " but not in " + a},
		{"no such path", []string{"eval", "psnr", a, filepath.Join(dir, "none")}, 1, "no such file"},
		{"gray vs rgb", []string{"eval", "psnr", a, c}, 1, "channel counts differ"},
		{"empty", []string{"eval", "psnr", filepath.Join(dir, "a", ".."), dir}, 1, "no images"},
	} {
		code, out, errs := evalRun(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line containing %q", tc.name, code, out, errs, tc.code, tc.want)
		}
	}
}

func TestEvalFID(t *testing.T) {
	dir := t.TempDir()
	// Diagonal statistics: 1 + (1-2)² + (2-3)² = 3 (see eval's example).
	a, b := filepath.Join(dir, "a.npz"), filepath.Join(dir, "b.npz")
	if err := eval.WriteStats(a, eval.Stats{Mu: []float64{0, 0}, Sigma: mat.NewSymDense(2, []float64{1, 0, 0, 4})}); err != nil {
		t.Fatal(err)
	}
	if err := eval.WriteStats(b, eval.Stats{Mu: []float64{1, 0}, Sigma: mat.NewSymDense(2, []float64{4, 0, 0, 9})}); err != nil {
		t.Fatal(err)
	}
	// Files written by numpy; the value is pytorch-fid's (see
	// eval/testdata/make_fixtures.py).
	na, nb := filepath.Join("..", "..", "eval", "testdata", "stats_a.npz"), filepath.Join("..", "..", "eval", "testdata", "stats_b.npz")
	for _, tc := range []struct {
		name string
		args []string
		want float64
	}{
		{"diagonal", []string{"eval", "fid", a, b}, 3},
		{"numpy", []string{"eval", "fid", na, nb}, 3.715970481633498},
		{"same", []string{"eval", "fid", na, na}, 0},
	} {
		code, out, errs := evalRun(tc.args...)
		if code != 0 {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, errs)
			continue
		}
		got := evalFirst(t, out)
		if math.Abs(got-tc.want) > 1e-10*math.Max(tc.want, 1) {
			t.Errorf("%s: FID %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestEvalFIDErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "eval", "testdata", "stats_a.npz")
	img := filepath.Join(dir, "x.png")
	evalGray(t, img, 0)
	small := filepath.Join(dir, "small.npz")
	if err := eval.WriteStats(small, eval.Stats{Mu: []float64{0}, Sigma: mat.NewSymDense(1, []float64{1})}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"args", []string{"eval", "fid", good}, 2, "want two image sets or .npz statistics files, got 1"},
		{"one image", []string{"eval", "fid", dir, good}, 1, "statistics need at least 2 feature vectors, have 1"},
		{"image file", []string{"eval", "fid", good, img}, 1, img},
		{"missing npz", []string{"eval", "fid", good, filepath.Join(dir, "none.npz")}, 1, "no such file"},
		{"missing set", []string{"eval", "fid", good, filepath.Join(dir, "none.txt")}, 1, "is neither mnist, fashion-mnist, a file nor a directory"},
		{"dims", []string{"eval", "fid", good, small}, 1, "dimensions 6 and 1"},
		{"unknown features", []string{"eval", "fid", good, good, "--features", "x"}, 2, `unknown feature network "x"`},
		{"bad split", []string{"eval", "fid", "mnist", good, "--split", "dev"}, 2, `--split "dev"`},
		{"negative n", []string{"eval", "fid", good, good, "--n", "-1"}, 2, "--n -1"},
		{"unknown flag", []string{"eval", "fid", good, good, "--bogus"}, 2, "flag provided but not defined"},
	} {
		code, out, errs := evalRun(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line containing %q", tc.name, code, out, errs, tc.code, tc.want)
		}
	}
}

// FID between image sets names its feature network, and equals the FID of
// the statistics eval stats writes for the same images.
func TestEvalFIDImages(t *testing.T) {
	if testing.Short() {
		t.Skip("reads MNIST")
	}
	dir := t.TempDir()
	st := filepath.Join(dir, "m.npz")
	if code, _, errs := evalRun("eval", "stats", "mnist", "--n", "300", "--out", st); code != 0 {
		t.Fatalf("eval stats: exit %d: %s", code, errs)
	}
	code, direct, errs := evalRun("eval", "fid", "mnist", "fashion-mnist", "--n", "300", "--split", "test")
	if code != 0 {
		if strings.Contains(errs, "fashion") {
			t.Skip("Fashion-MNIST is not installed")
		}
		t.Fatalf("eval fid: exit %d: %s", code, errs)
	}
	if !strings.Contains(direct, "\tFID (LeNet-MNIST)\n") {
		t.Errorf("output %q does not name the feature network", direct)
	}
	// MNIST against Fashion-MNIST is far; MNIST against its own statistics is 0.
	if d := evalFirst(t, direct); d < 5 {
		t.Errorf("FID(MNIST, Fashion-MNIST) = %v, want a large distance", d)
	}
	_, same, _ := evalRun("eval", "fid", st, "mnist", "--n", "300")
	if d := evalFirst(t, same); math.Abs(d) > 1e-6 {
		t.Errorf("FID of MNIST against its own statistics = %v, want 0", d)
	}
}
