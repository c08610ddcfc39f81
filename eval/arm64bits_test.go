package eval

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// arm64BitsEnv makes TestArm64Bits print metricBits instead of testing:
// the mode its arm64 copy runs in under qemu.
const arm64BitsEnv = "POSITGAN_EVAL_METRIC_BITS"

// metricBits computes each metric once on fixed pseudo-random inputs.
// The pure-Go figures (PSNR, Y-PSNR, PRDC) are computed entirely by this
// module's code, which keeps arm64's compiler from fusing multiply-adds
// (internal/archtest's TestNoArm64Fusion), so they must match amd64's to
// the bit. FID and KID go through gonum's Go BLAS and LAPACK, which the
// compiler does fuse on arm64, and SSIM's window through math.Exp, whose
// amd64 assembly rounds some arguments differently from arm64's: those are
// held to a relative 1e-11 only (close says which).
func metricBits(t *testing.T) (names []string, vals []float64, close map[string]bool) {
	rng := rand.New(rand.NewPCG(30, 64))
	feat := func(n, d int, s float64) *mat.Dense {
		m := mat.NewDense(n, d, nil)
		for i := range n {
			for j := range d {
				m.Set(i, j, s*rng.NormFloat64()+0.1*float64(j))
			}
		}
		return m
	}
	pix := func(w, h, c int) Pixels {
		p := Pixels{Width: w, Height: h, Channels: c, Pix: make([]float32, w*h*c)}
		for i := range p.Pix {
			p.Pix[i] = float32(rng.Float64() * 255)
		}
		return p
	}
	add := func(name string, v float64, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		names, vals = append(names, name), append(vals, v)
	}
	close = map[string]bool{"FID": true, "KID mean": true, "KID std": true, "SSIM": true}

	a, b := feat(300, 64, 1), feat(300, 64, 1.3)
	sa, err := StatsOf(a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := StatsOf(b)
	if err != nil {
		t.Fatal(err)
	}
	fid, err := FrechetDistance(sa, sb)
	add("FID", fid, err)
	km, ks, err := KID(a, b, KIDOptions{Subsets: 5, SubsetSize: 100, Seed: 1})
	add("KID mean", km, err)
	add("KID std", ks, err)
	p, err := PRDCOf(a, b, PRDCKPrecisionRecall, PRDCKDensityCoverage)
	add("precision", p.Precision, err)
	add("recall", p.Recall, err)
	add("density", p.Density, err)
	add("coverage", p.Coverage, err)

	x, y := pix(64, 48, 3), pix(64, 48, 3)
	v, err := PSNR(x.Pix, y.Pix, 255)
	add("PSNR", v, err)
	v, err = SRPSNR(x, y, 2, true)
	add("Y-PSNR", v, err)
	v, err = SRPSNR(x, y, 3, false)
	add("SR-PSNR", v, err)
	v, err = SSIM(x, y, 255)
	add("SSIM", v, err)
	return names, vals, close
}

// TestArm64Bits: same inputs, same bits on arm64 as on amd64. On amd64
// with qemu-aarch64-static on the PATH it builds this package's tests for
// linux/arm64, runs this test there in printing mode and compares what
// it prints with the figures computed here. The reference is amd64's own
// computation on purpose: the contract is equality with it.
func TestArm64Bits(t *testing.T) {
	if os.Getenv(arm64BitsEnv) != "" {
		names, vals, _ := metricBits(t)
		for i, n := range names {
			fmt.Printf("%s=%016x\n", n, math.Float64bits(vals[i]))
		}
		return
	}
	if testing.Short() {
		t.Skip("builds this package for arm64 and runs it under qemu")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("compares arm64 with amd64; runs on amd64")
	}
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		t.Skip("qemu-aarch64-static not installed")
	}
	bin := filepath.Join(t.TempDir(), "eval.arm64.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c for arm64: %v\n%s", err, out)
	}
	run := exec.Command(qemu, bin, "-test.run=^TestArm64Bits$", "-test.count=1")
	run.Env = append(os.Environ(), arm64BitsEnv+"=1")
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("arm64 run under qemu: %v\n%s", err, out)
	}
	arm := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, hex, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		u, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			continue
		}
		arm[name] = math.Float64frombits(u)
	}
	names, vals, close := metricBits(t)
	for i, n := range names {
		got, ok := arm[n]
		switch {
		case !ok:
			t.Errorf("%s: not printed by the arm64 run:\n%s", n, out)
		case close[n]:
			if d := math.Abs(got - vals[i]); !(d <= 1e-11*math.Abs(vals[i])) {
				t.Errorf("%s: arm64 %v, amd64 %v: beyond 1e-11 relative", n, got, vals[i])
			} else if got != vals[i] {
				t.Logf("%s: arm64 %v, amd64 %v (%d ulp; outside this module's code)", n, got, vals[i],
					int64(math.Float64bits(got))-int64(math.Float64bits(vals[i])))
			}
		case math.Float64bits(got) != math.Float64bits(vals[i]):
			t.Errorf("%s: arm64 %v (%#016x), amd64 %v (%#016x): arm64 must give amd64's bits",
				n, got, math.Float64bits(got), vals[i], math.Float64bits(vals[i]))
		}
	}
}
