package eval

import (
	"math"
	"testing"
)

func rgb(w, h int, px func(x, y int) (r, g, b float32)) Pixels {
	p := Pixels{Width: w, Height: h, Channels: 3}
	for y := range h {
		for x := range w {
			r, g, b := px(x, y)
			p.Pix = append(p.Pix, r, g, b)
		}
	}
	return p
}

func TestLuma(t *testing.T) {
	p := rgb(4, 1, func(x, _ int) (float32, float32, float32) {
		return [][3]float32{{0, 0, 0}, {255, 255, 255}, {255, 0, 0}, {10.4, 20.6, 30.5}}[x][0],
			[][3]float32{{0, 0, 0}, {255, 255, 255}, {255, 0, 0}, {10.4, 20.6, 30.5}}[x][1],
			[][3]float32{{0, 0, 0}, {255, 255, 255}, {255, 0, 0}, {10.4, 20.6, 30.5}}[x][2]
	})
	// Black 16, white 16 + 219 = 235, red 16 + 65.481; the last pixel is
	// rounded to (10, 21, 31) first.
	want := []float64{16, 235, 81.481, 16 + (65.481*10+128.553*21+24.966*31)/255}
	for i, y := range Luma(p) {
		if math.Abs(y-want[i]) > 1e-12 {
			t.Errorf("Y[%d] = %v, want %v", i, y, want[i])
		}
	}
}

func TestSRPSNRByHand(t *testing.T) {
	black := rgb(3, 3, func(int, int) (float32, float32, float32) { return 0, 0, 0 })
	red := rgb(3, 3, func(int, int) (float32, float32, float32) { return 255, 0, 0 })
	// Y differs by 65.481 everywhere: 20·log10(255/65.481).
	got, err := SRPSNR(black, red, 0, true)
	if want := 20 * math.Log10(255/65.481); err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("Y-PSNR black/red = %v, %v; want %v", got, err, want)
	}
	// RGB: one channel in three differs by 255: 10·log10(3).
	got, err = SRPSNR(black, red, 0, false)
	if want := 10 * math.Log10(3); err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("RGB PSNR black/red = %v, %v; want %v", got, err, want)
	}
	// Borders differ, the centre by 2 grey levels: shaving 1 leaves the
	// centre, Y difference 2·219/255, PSNR 20·log10(255²/(2·219)).
	border := rgb(3, 3, func(x, y int) (float32, float32, float32) {
		if x == 1 && y == 1 {
			return 2, 2, 2
		}
		return 200, 100, 50
	})
	got, err = SRPSNR(black, border, 1, true)
	if want := 20 * math.Log10(255*255/(2*219.0)); err != nil || math.Abs(got-want) > 1e-9 {
		t.Errorf("shaved Y-PSNR = %v, %v; want %v", got, err, want)
	}
	// Values are rounded to 8 bits first: 0.4 is 0.
	almost := rgb(3, 3, func(int, int) (float32, float32, float32) { return 0.4, 0.4, 0.4 })
	if got, _ := SRPSNR(black, almost, 0, true); !math.IsInf(got, 1) {
		t.Errorf("PSNR after rounding = %v, want +Inf", got)
	}
	if _, err := SRPSNR(black, black, 2, true); err == nil {
		t.Error("shave 2 of 3x3 accepted")
	}
}
