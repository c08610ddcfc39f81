package eval

import (
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPSNR(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float32
		peak float64
		want float64
	}{
		// One of four values off by 51: MSE = 51²/4 = 650.25 = 255²/100.
		{"20dB", []float32{0, 0, 0, 0}, []float32{51, 0, 0, 0}, 255, 20},
		// MSE = 1 = peak²: 0 dB.
		{"0dB", []float32{0, 0, 0, 0}, []float32{1, -1, 1, -1}, 1, 0},
		// MSE = (0.25² + 0.25²)/2 = 1/16: 10 log10 16.
		{"unit", []float32{0.5, 0.5}, []float32{0.25, 0.75}, 1, 10 * math.Log10(16)},
		// MSE = (1 + 4 + 9)/3 = 14/3, peak 255: 10 log10(65025·3/14).
		{"odd length", []float32{10, 20, 30}, []float32{11, 18, 33}, 255, 10 * math.Log10(65025*3.0/14)},
		// Symmetric in a and b.
		{"swapped", []float32{51, 0, 0, 0}, []float32{0, 0, 0, 0}, 255, 20},
		{"identical", []float32{1, 2, 3}, []float32{1, 2, 3}, 255, math.Inf(1)},
	} {
		got, err := PSNR(tc.a, tc.b, tc.peak)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want && math.Abs(got-tc.want) > 1e-12*math.Abs(tc.want)+1e-13 {
			t.Errorf("%s: PSNR = %.17g, want %.17g", tc.name, got, tc.want)
		}
	}
}

func TestPSNRErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float32
		peak float64
		want string
	}{
		{"length", []float32{1, 2}, []float32{1}, 1, "2 and 1 values"},
		{"empty", nil, nil, 1, "no values"},
		{"zero peak", []float32{1}, []float32{2}, 0, "not positive"},
		{"nan peak", []float32{1}, []float32{2}, math.NaN(), "not positive"},
		{"inf peak", []float32{1}, []float32{2}, math.Inf(1), "not positive"},
		{"nan data", []float32{float32(math.NaN())}, []float32{2}, 1, "not finite"},
		{"inf data", []float32{1}, []float32{float32(math.Inf(-1))}, 1, "not finite"},
	} {
		_, err := PSNR(tc.a, tc.b, tc.peak)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestPixelsOf(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 2, 1))
	g.Pix = []uint8{7, 200}
	g16 := image.NewGray16(image.Rect(0, 0, 2, 1))
	g16.SetGray16(0, 0, color.Gray16{Y: 7 * 257})
	g16.SetGray16(1, 0, color.Gray16{Y: 1000}) // 1000/257
	n := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	n.SetNRGBA(0, 0, color.NRGBA{R: 10, G: 20, B: 30, A: 128}) // alpha ignored
	n0 := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	n0.SetNRGBA(0, 0, color.NRGBA{R: 10, G: 20, B: 30, A: 0}) // kept at alpha 0
	pal := image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.Gray{Y: 9}, color.RGBA{R: 4, G: 5, B: 6, A: 255}})
	pal.SetColorIndex(0, 0, 1)
	rgba := image.NewRGBA(image.Rect(5, 5, 6, 6)) // offset bounds
	rgba.SetRGBA(5, 5, color.RGBA{R: 1, G: 2, B: 3, A: 255})
	for _, tc := range []struct {
		name string
		img  image.Image
		ch   int
		want []float32
	}{
		{"gray", g, 1, []float32{7, 200}},
		{"gray16", g16, 1, []float32{7, float32(1000.0 / 257)}},
		{"nrgba", n, 3, []float32{10, 20, 30}},
		{"rgba", rgba, 3, []float32{1, 2, 3}},
		{"nrgba alpha 0", n0, 3, []float32{10, 20, 30}},
		{"paletted", pal, 3, []float32{4, 5, 6}},
	} {
		p := PixelsOf(tc.img)
		if p.Channels != tc.ch || len(p.Pix) != len(tc.want) {
			t.Errorf("%s: %d channels, %d values; want %d, %d", tc.name, p.Channels, len(p.Pix), tc.ch, len(tc.want))
			continue
		}
		for i := range tc.want {
			if p.Pix[i] != tc.want[i] {
				t.Errorf("%s: Pix = %v, want %v", tc.name, p.Pix, tc.want)
				break
			}
		}
	}
}

func TestImagePSNR(t *testing.T) {
	a := image.NewGray(image.Rect(0, 0, 2, 2))
	b := image.NewGray(image.Rect(0, 0, 2, 2))
	b.Pix[3] = 51 // 20 dB, as in TestPSNR
	if got, err := ImagePSNR(a, b, 255); err != nil || math.Abs(got-20) > 1e-12 {
		t.Errorf("gray: %v, %v; want 20", got, err)
	}
	// RGB: one channel of one of two pixels off by 51: MSE = 51²/6, so
	// PSNR = 20 + 10 log10(6/4).
	c := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	d := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	for i := range c.Pix {
		c.Pix[i], d.Pix[i] = 255, 255
	}
	d.Pix[1] = 255 - 51
	d.Pix[7] = 0 // alpha of pixel 1: ignored
	want := 20 + 10*math.Log10(1.5)
	if got, err := ImagePSNR(c, d, 255); err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("rgb: %v, %v; want %v", got, err, want)
	}
	if _, err := ImagePSNR(a, c, 255); err == nil || !strings.Contains(err.Error(), "sizes differ") {
		t.Errorf("size mismatch: err = %v", err)
	}
	e := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	if _, err := ImagePSNR(a, e, 255); err == nil || !strings.Contains(err.Error(), "channel counts differ: 1 and 3") {
		t.Errorf("channel mismatch: err = %v", err)
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
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

func TestFilePSNR(t *testing.T) {
	dir := t.TempDir()
	a := image.NewGray(image.Rect(0, 0, 2, 2))
	b := image.NewGray(image.Rect(0, 0, 2, 2))
	b.Pix[0] = 51
	pa, pb := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	writePNG(t, pa, a)
	writePNG(t, pb, b)
	if got, err := FilePSNR(pa, pb, 255); err != nil || math.Abs(got-20) > 1e-12 {
		t.Errorf("FilePSNR = %v, %v; want 20", got, err)
	}
	// A gray JPEG decodes to one channel, like the gray PNG, and a colour
	// JPEG to three.
	for _, tc := range []struct {
		img  image.Image
		want string
	}{
		{a, ""},
		{image.NewRGBA(image.Rect(0, 0, 2, 2)), "channel counts differ: 1 and 3"},
	} {
		pj := filepath.Join(dir, "c.jpg")
		f, err := os.Create(pj)
		if err != nil {
			t.Fatal(err)
		}
		if err := jpeg.Encode(f, tc.img, &jpeg.Options{Quality: 100}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		_, err = FilePSNR(pa, pj, 255)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("PNG against %T as JPEG: err = %v, want %q", tc.img, err, tc.want)
		}
	}
	if _, err := FilePSNR(pa, filepath.Join(dir, "none.png"), 255); err == nil {
		t.Errorf("missing file: no error")
	}
}
