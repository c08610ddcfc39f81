package eval_test

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/eval"
)

// meanAbs is the toy metric of docs/adding-a-metric.md: the mean
// absolute difference of two images on the 8-bit scale. It is the whole
// of a new metric: a type, its methods, and an init function that
// registers it.
type meanAbs struct{}

func init() { eval.Register("meanabs", meanAbs{}) }

func (meanAbs) Summary() string { return "mean absolute difference of the pixels, on the 8-bit scale" }

func (meanAbs) ComparePair(ref, test eval.Pixels, _ eval.Options) (float64, error) {
	if ref.Width != test.Width || ref.Height != test.Height || ref.Channels != test.Channels {
		return 0, fmt.Errorf("meanabs: images of %dx%dx%d and %dx%dx%d",
			ref.Width, ref.Height, ref.Channels, test.Width, test.Height, test.Channels)
	}
	var sum float64
	for i, v := range ref.Pix {
		sum += math.Abs(float64(v - test.Pix[i]))
	}
	return sum / float64(len(ref.Pix)), nil
}

// writeGray writes a w×h gray PNG whose pixel i is pix(i) and returns
// its path.
func writeGray(t *testing.T, dir, name string, w, h int, pix func(i int) uint8) string {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = pix(i)
	}
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return p
}

// The toy metric is measured as positgan eval measures a registered pair
// metric: looked up by name, then on two image files.
func TestToyMetric(t *testing.T) {
	if !slices.Contains(eval.Metrics(), "meanabs") {
		t.Fatalf("Metrics() = %v, without meanabs", eval.Metrics())
	}
	m, err := eval.LookupPair("meanabs")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Every pixel of b is 3 above a's but the first 4 of 16, which are 7 below.
	a := writeGray(t, dir, "a.png", 4, 4, func(i int) uint8 { return uint8(100 + i) })
	b := writeGray(t, dir, "b.png", 4, 4, func(i int) uint8 {
		if i < 4 {
			return uint8(93 + i)
		}
		return uint8(103 + i)
	})
	got, err := eval.ComparePairFiles(m, a, b, eval.Options{})
	if want := (4*7 + 12*3) / 16.0; err != nil || got != want {
		t.Errorf("meanabs = %v, %v; want %v", got, err, want)
	}
	c := writeGray(t, dir, "c.png", 5, 4, func(int) uint8 { return 0 })
	if _, err := eval.ComparePairFiles(m, a, c, eval.Options{}); err == nil || !strings.Contains(err.Error(), "c.png") {
		t.Errorf("images of different sizes: %v, want an error naming the files", err)
	}
}

// randomPixels returns a w×h image of c channels with random 8-bit
// values, as PixelsOf would give it.
func randomPixels(rng *rand.Rand, w, h, c int) eval.Pixels {
	p := eval.Pixels{Width: w, Height: h, Channels: c, Pix: make([]float32, w*h*c)}
	for i := range p.Pix {
		p.Pix[i] = float32(rng.IntN(256))
	}
	return p
}

// crop returns the image p without k pixels at each border, through the
// standard library's SubImage instead of the registry's shaving.
func crop(p eval.Pixels, k int) eval.Pixels {
	img := image.NewRGBA(image.Rect(0, 0, p.Width, p.Height))
	for i := range p.Width * p.Height {
		v := func(ch int) uint8 { return uint8(p.Pix[i*p.Channels+min(ch, p.Channels-1)]) }
		img.Set(i%p.Width, i/p.Width, color.RGBA{v(0), v(1), v(2), 255})
	}
	q := eval.PixelsOf(img.SubImage(image.Rect(k, k, p.Width-k, p.Height-k)))
	if p.Channels == 1 {
		g := eval.Pixels{Width: q.Width, Height: q.Height, Channels: 1}
		for i := 0; i < len(q.Pix); i += 3 {
			g.Pix = append(g.Pix, q.Pix[i])
		}
		return g
	}
	return q
}

// The registered metrics give the figures of the functions they wrap,
// with their options, and set metrics are labelled with their network.
func TestRegisteredMetrics(t *testing.T) {
	for _, name := range []string{"fid", "kid", "psnr", "ssim", "y-psnr"} {
		if !slices.Contains(eval.Metrics(), name) {
			t.Errorf("Metrics() = %v, without %s", eval.Metrics(), name)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []int{1, 3} {
		a, b := randomPixels(rng, 20, 16, c), randomPixels(rng, 20, 16, c)
		psnr, _ := eval.LookupPair("psnr")
		ypsnr, _ := eval.LookupPair("y-psnr")
		ssim, _ := eval.LookupPair("ssim")
		type pair struct {
			name      string
			got, want func() (float64, error)
		}
		for _, tc := range []pair{
			{"psnr", func() (float64, error) { return psnr.ComparePair(a, b, eval.Options{}) }, func() (float64, error) { return eval.PSNR(a.Pix, b.Pix, 255) }},
			{"psnr peak 1", func() (float64, error) { return psnr.ComparePair(a, b, eval.Options{Peak: 1}) }, func() (float64, error) { return eval.PSNR(a.Pix, b.Pix, 1) }},
			{"psnr shave 2", func() (float64, error) { return psnr.ComparePair(a, b, eval.Options{Shave: 2}) }, func() (float64, error) { return eval.SRPSNR(a, b, 2, false) }},
			{"y-psnr", func() (float64, error) { return ypsnr.ComparePair(a, b, eval.Options{}) }, func() (float64, error) { return eval.SRPSNR(a, b, 0, true) }},
			{"y-psnr shave 3", func() (float64, error) { return ypsnr.ComparePair(a, b, eval.Options{Shave: 3}) }, func() (float64, error) { return eval.SRPSNR(a, b, 3, true) }},
			{"ssim", func() (float64, error) { return ssim.ComparePair(a, b, eval.Options{}) }, func() (float64, error) { return eval.SSIM(a, b, 255) }},
			{"ssim shave 2", func() (float64, error) { return ssim.ComparePair(a, b, eval.Options{Shave: 2}) }, func() (float64, error) { return eval.SSIM(crop(a, 2), crop(b, 2), 255) }},
		} {
			got, err := tc.got()
			want, werr := tc.want()
			if err != nil || werr != nil || got != want {
				t.Errorf("%d channels, %s: %v, %v; want %v, %v", c, tc.name, got, err, want, werr)
			}
		}
		for _, tc := range []struct {
			m    eval.PairMetric
			o    eval.Options
			want string
		}{
			{psnr, eval.Options{Shave: 2, Peak: 1}, "peak 255"},
			{ypsnr, eval.Options{Peak: 2}, "peak 255"},
			{ypsnr, eval.Options{Shave: 8}, "leaves nothing"},
			{ssim, eval.Options{Shave: -1}, "leaves nothing"},
		} {
			if _, err := tc.m.ComparePair(a, b, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%d channels, %+v: %v, want an error with %q", c, tc.o, err, tc.want)
			}
		}
	}

	x, y := mat.NewDense(40, 3, nil), mat.NewDense(30, 3, nil)
	for _, m := range []*mat.Dense{x, y} {
		r, c := m.Dims()
		for i := range r {
			for j := range c {
				m.Set(i, j, rng.NormFloat64()+float64(j*r%7))
			}
		}
	}
	sx, _ := eval.StatsOf(x)
	sy, _ := eval.StatsOf(y)
	want, err := eval.FrechetDistance(sx, sy)
	if err != nil {
		t.Fatal(err)
	}
	fid, _ := eval.LookupSet("fid")
	for _, tc := range []struct {
		name string
		a, b eval.Features
	}{
		{"rows", eval.Features{Rows: x}, eval.Features{Rows: y}},
		{"statistics", eval.Features{Stats: sx}, eval.Features{Stats: sy}},
		{"both", eval.Features{Rows: x, Stats: sx}, eval.Features{Stats: sy}},
	} {
		if got, err := fid.CompareSets(tc.a, tc.b, eval.Options{}); err != nil || !slices.Equal(got, []float64{want}) {
			t.Errorf("fid of %s: %v, %v; want [%v]", tc.name, got, err, want)
		}
	}
	opt := eval.KIDOptions{Subsets: 5, SubsetSize: 10, Seed: 3}
	mean, std, err := eval.KID(x, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	kid, _ := eval.LookupSet("kid")
	if got, err := kid.CompareSets(eval.Features{Rows: x}, eval.Features{Rows: y}, eval.Options{KID: opt}); err != nil || !slices.Equal(got, []float64{mean, std}) {
		t.Errorf("kid: %v, %v; want [%v %v]", got, err, mean, std)
	}
	if _, err := kid.CompareSets(eval.Features{Stats: sx}, eval.Features{Rows: y}, eval.Options{}); err == nil {
		t.Error("kid of statistics: no error")
	}
	if fid.NeedsRows() || !kid.NeedsRows() {
		t.Errorf("NeedsRows: fid %v, kid %v", fid.NeedsRows(), kid.NeedsRows())
	}
	if l := fid.Label("LeNet-MNIST") + ", " + kid.Label("Inception-v3"); l != "FID (LeNet-MNIST), KID (Inception-v3)" {
		t.Errorf("labels %q", l)
	}
}

func TestLookupErrors(t *testing.T) {
	if _, err := eval.Lookup("nosuch"); err == nil || !strings.Contains(err.Error(), `unknown metric "nosuch"`) || !strings.Contains(err.Error(), "psnr") {
		t.Errorf("Lookup(nosuch): %v", err)
	}
	if _, err := eval.LookupSet("psnr"); err == nil {
		t.Error("LookupSet(psnr): no error")
	}
	if _, err := eval.LookupPair("fid"); err == nil {
		t.Error("LookupPair(fid): no error")
	}
}

// neither is a Metric of neither kind.
type neither struct{}

func (neither) Summary() string { return "" }

func TestRegisterPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    eval.Metric
	}{
		{"psnr", meanAbs{}}, // taken
		{"", meanAbs{}},
		{"mean abs", meanAbs{}},
		{"neither", neither{}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q, %T) did not panic", tc.name, tc.m)
				}
			}()
			eval.Register(tc.name, tc.m)
		}()
	}
}

// Every Go block of docs/adding-a-metric.md is code of this file, so the
// page shows code that compiles and runs.
func TestAddingAMetricPage(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "adding-a-metric.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("registry_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, part := range strings.Split(string(page), "```go\n")[1:] {
		block, _, ok := strings.Cut(part, "```")
		if !ok {
			t.Fatalf("unterminated code block:\n%s", part)
		}
		blocks++
		if !strings.Contains(string(src), block) {
			t.Errorf("docs/adding-a-metric.md shows code that is not in registry_test.go:\n%s", block)
		}
	}
	if blocks < 3 {
		t.Errorf("%d Go blocks in docs/adding-a-metric.md, want the metric and its use", blocks)
	}
}
