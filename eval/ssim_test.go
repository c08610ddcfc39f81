package eval

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func randPixels(rng *rand.Rand, w, h, c int) Pixels {
	p := Pixels{Width: w, Height: h, Channels: c, Pix: make([]float32, w*h*c)}
	for i := range p.Pix {
		p.Pix[i] = float32(rng.IntN(256))
	}
	return p
}

func constPixels(w, h int, v float32) Pixels {
	p := Pixels{Width: w, Height: h, Channels: 1, Pix: make([]float32, w*h)}
	for i := range p.Pix {
		p.Pix[i] = v
	}
	return p
}

// Cases worked by hand from the definition.
func TestSSIMByHand(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	img := randPixels(rng, 16, 13, 3)
	if s, err := SSIM(img, img, 255); err != nil || s != 1 {
		t.Errorf("SSIM(x, x) = %v, %v; want 1", s, err)
	}
	// Constant images c1, c2: means c1, c2, no variance, so SSIM is the
	// luminance term (2c1c2 + C1)/(c1² + c2² + C1) with C1 = (0.01·255)².
	for _, c := range [][2]float32{{100, 110}, {0, 255}, {30, 30}} {
		c1, c2 := float64(c[0]), float64(c[1])
		C1 := 2.55 * 2.55
		want := (2*c1*c2 + C1) / (c1*c1 + c2*c2 + C1)
		got, err := SSIM(constPixels(12, 11, c[0]), constPixels(12, 11, c[1]), 255)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("constants %v: SSIM %v (%v), want %v", c, got, err, want)
		}
	}
	// {100, 110}: 22006.5025/22106.5025 = 0.99547644409...
	got, _ := SSIM(constPixels(11, 11, 100), constPixels(11, 11, 110), 255)
	if math.Abs(got-0.9954764441) > 1e-10 {
		t.Errorf("constants 100, 110: %v, want 0.9954764441", got)
	}
	// x against 255 - x: the same variance, covariance -σ², so where the
	// local mean is 127.5 the contrast-structure term is
	// (C2 - 2σ²)/(2σ² + C2), and the luminance term 1. A checkerboard of
	// 0 and 255 has mean 127.5 and σ² = 127.5² everywhere only in the
	// limit of a flat window; check the sign and the bound instead.
	neg := img
	neg.Pix = make([]float32, len(img.Pix))
	for i, v := range img.Pix {
		neg.Pix[i] = 255 - v
	}
	if s, _ := SSIM(img, neg, 255); !(s < 0 && s > -1) {
		t.Errorf("SSIM(x, 255-x) = %v, want in (-1, 0)", s)
	}
	// Errors.
	for _, tc := range []struct {
		a, b Pixels
		r    float64
	}{
		{constPixels(10, 11, 1), constPixels(10, 11, 1), 255},
		{constPixels(11, 11, 1), constPixels(12, 11, 1), 255},
		{constPixels(11, 11, 1), constPixels(11, 11, 1), 0},
		{randPixels(rng, 11, 11, 3), constPixels(11, 11, 1), 255},
	} {
		if _, err := SSIM(tc.a, tc.b, tc.r); err == nil {
			t.Errorf("SSIM of %dx%dx%d and %dx%dx%d, range %g: no error", tc.a.Width, tc.a.Height, tc.a.Channels, tc.b.Width, tc.b.Height, tc.b.Channels, tc.r)
		}
	}
}

// slowSSIM follows the definition pixel by pixel: an 11x11 window of
// weights g(i)g(j) over the reflected image, no separable filtering.
func slowSSIM(a, b Pixels, L float64) float64 {
	k := ssimWindow()
	w, h, nc := a.Width, a.Height, a.Channels
	var total float64
	for c := range nc {
		var sum float64
		for r := 5; r < h-5; r++ {
			for q := 5; q < w-5; q++ {
				var mx, my, mxx, myy, mxy float64
				for i := -5; i <= 5; i++ {
					for j := -5; j <= 5; j++ {
						g := k[i+5] * k[j+5]
						p := (reflect(r+i, h)*w + reflect(q+j, w)) * nc
						x, y := float64(a.Pix[p+c]), float64(b.Pix[p+c])
						mx += g * x
						my += g * y
						mxx += g * x * x
						myy += g * y * y
						mxy += g * x * y
					}
				}
				c1, c2 := (0.01*L)*(0.01*L), (0.03*L)*(0.03*L)
				sum += (2*mx*my + c1) * (2*(mxy-mx*my) + c2) /
					((mx*mx + my*my + c1) * (mxx - mx*mx + myy - my*my + c2))
			}
		}
		total += sum / float64((h-10)*(w-10))
	}
	return total / float64(nc)
}

func TestSSIMSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{11, 11, 1}, {17, 12, 3}, {28, 28, 1}} {
		a := randPixels(rng, sz[0], sz[1], sz[2])
		b := a
		b.Pix = make([]float32, len(a.Pix))
		for i, v := range a.Pix {
			b.Pix[i] = float32(min(255, max(0, float64(v)+30*rng.NormFloat64())))
		}
		got, err := SSIM(a, b, 255)
		if err != nil {
			t.Fatal(err)
		}
		if want := slowSSIM(a, b, 255); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: SSIM %v, slow %v", sz, got, want)
		}
	}
}

func TestReflect(t *testing.T) {
	// scipy "reflect" of 0..3: 2 1 0 0 | 0 1 2 3 | 3 2 1 0 0 1
	want := []int{2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1}
	for i, w := range want {
		if got := reflect(i-3, 4); got != w {
			t.Errorf("reflect(%d, 4) = %d, want %d", i-3, got, w)
		}
	}
}

// The same images through scikit-image's structural_similarity (Debian
// python3-skimage), when it is installed.
func TestSSIMSkimage(t *testing.T) {
	script := `import sys, numpy as np
from skimage.io import imread
from skimage.metrics import structural_similarity as ssim
a, b = imread(sys.argv[1]), imread(sys.argv[2])
kw = dict(channel_axis=-1) if a.ndim == 3 else {}
print(repr(ssim(a, b, gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255, **kw)))`
	py := "/usr/bin/python3" // Debian's, where python3-skimage installs
	if _, err := os.Stat(py); err != nil {
		py = "python3"
	}
	if err := exec.Command(py, "-c", "import skimage.metrics, skimage.io").Run(); err != nil {
		t.Skip("python3-skimage not installed")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ w, h, c int }{{32, 32, 1}, {40, 23, 3}} {
		a, b := randPixels(rng, tc.w, tc.h, tc.c), randPixels(rng, tc.w, tc.h, tc.c)
		for i := range b.Pix { // correlated with a
			b.Pix[i] = float32(int(a.Pix[i]+b.Pix[i]) / 2)
		}
		pa, pb := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
		writePixels(t, pa, a)
		writePixels(t, pb, b)
		out, err := exec.Command(py, "-c", script, pa, pb).CombinedOutput()
		if err != nil {
			t.Fatalf("skimage: %v: %s", err, out)
		}
		want, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FileSSIM(pa, pb)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-10 {
			t.Errorf("%dx%dx%d: SSIM %v, skimage %v", tc.w, tc.h, tc.c, got, want)
		}
	}
}

func writePixels(t *testing.T, path string, p Pixels) {
	t.Helper()
	var img image.Image
	if p.Channels == 1 {
		g := image.NewGray(image.Rect(0, 0, p.Width, p.Height))
		for i, v := range p.Pix {
			g.Pix[i] = uint8(v)
		}
		img = g
	} else {
		m := image.NewNRGBA(image.Rect(0, 0, p.Width, p.Height))
		for i := range p.Width * p.Height {
			m.Pix[4*i], m.Pix[4*i+1], m.Pix[4*i+2], m.Pix[4*i+3] = uint8(p.Pix[3*i]), uint8(p.Pix[3*i+1]), uint8(p.Pix[3*i+2]), 255
		}
		img = m
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", path, err))
	}
}
