package datasets

import (
	"image"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// slowBicubic is imresize written from the kernel's definition, one
// output value at a time in two dimensions: the weight of input (r, c) is
// k(u_y - r)·k(u_x - c) over every integer position within reach of the
// kernel, normalised per dimension, positions outside the image reflected
// with the edge repeated.
func slowBicubic(src []float64, h, w int, scale float64) ([]float64, int, int) {
	oh, ow := int(math.Ceil(float64(h)*scale)), int(math.Ceil(float64(w)*scale))
	k := func(x float64) float64 {
		if scale < 1 {
			x *= scale
		}
		a, t := -0.5, math.Abs(x)
		var v float64
		switch {
		case t <= 1:
			v = (a+2)*t*t*t - (a+3)*t*t + 1
		case t < 2:
			v = a*t*t*t - 5*a*t*t + 8*a*t - 4*a
		}
		if scale < 1 {
			v *= scale
		}
		return v
	}
	reflect := func(j, n int) int { // 1-based
		for j < 1 || j > n {
			if j < 1 {
				j = 1 - j
			} else {
				j = 2*n + 1 - j
			}
		}
		return j
	}
	reach := int(2/math.Min(scale, 1)) + 2
	out := make([]float64, oh*ow)
	for i := 1; i <= oh; i++ {
		uy := float64(i)/scale + 0.5*(1-1/scale)
		for j := 1; j <= ow; j++ {
			ux := float64(j)/scale + 0.5*(1-1/scale)
			var s, sy, sx float64
			for r := int(uy) - reach; r <= int(uy)+reach; r++ {
				sy += k(uy - float64(r))
			}
			for c := int(ux) - reach; c <= int(ux)+reach; c++ {
				sx += k(ux - float64(c))
			}
			for r := int(uy) - reach; r <= int(uy)+reach; r++ {
				for c := int(ux) - reach; c <= int(ux)+reach; c++ {
					s += k(uy-float64(r)) * k(ux-float64(c)) * src[(reflect(r, h)-1)*w+reflect(c, w)-1]
				}
			}
			out[(i-1)*ow+j-1] = s / (sy * sx)
		}
	}
	return out, oh, ow
}

func TestCubicKernel(t *testing.T) {
	// Keys' kernel, a = -0.5, by hand.
	for _, tc := range []struct{ x, want float64 }{
		{0, 1}, {1, 0}, {2, 0}, {-2.5, 0}, {0.5, 0.5625}, {-0.5, 0.5625},
		{0.25, 0.8671875}, {0.75, 0.2265625}, {1.25, -0.0703125}, {1.5, -0.0625}, {1.75, -0.0234375},
	} {
		if got := cubicKernel(tc.x); got != tc.want {
			t.Errorf("cubic(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}

// Shrinking 1..8 by 2: outputs centred on 1.5, 3.5, 5.5, 7.5 (1-based)
// with the kernel stretched to 8 pixels, weights ½cubic(d/2) at
// d = ±0.5, ±1.5, ±2.5, ±3.5: 0.43359375, 0.11328125, -0.03515625,
// -0.01171875 (summing to 1). A ramp is kept except where the mirrored
// border changes it: out[0] = 1.5 - 5·0.01171875 - 3·0.03515625 +
// 0.11328125 (indices -2, -1, 0 read 3, 2, 1), and so on.
func TestBicubicByHand(t *testing.T) {
	src := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	want := []float64{1.44921875, 3.48828125, 5.51171875, 7.55078125}
	got, oh, ow := Bicubic(src, 1, 1, 8, 0.5)
	_ = oh
	// A 1-row image shrinks to ⌈0.5⌉ = 1 row, all mirrored copies of itself.
	if ow != 4 || len(got) != 4 {
		t.Fatalf("size %dx%d", oh, ow)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-14 {
			t.Errorf("out[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// The weights: 8 non-zero of the 10 taps, the stretched kernel's width.
	rw := bicubicWeights(8, 4, 0.5)
	if rw.p != 10 {
		t.Errorf("taps %d, want 10", rw.p)
	}
	wantW := []float64{0, -0.01171875, -0.03515625, 0.11328125, 0.43359375, 0.43359375, 0.11328125, -0.03515625, -0.01171875, 0}
	for k, w := range wantW {
		if math.Abs(rw.w[k]-w) > 1e-15 {
			t.Errorf("weight %d = %v, want %v", k, rw.w[k], w)
		}
	}
	// Antialiasing: shrinking by K stretches the kernel to 4K pixels. For
	// even K the centres fall between pixels and all 4K taps within reach
	// are non-zero; for odd K they fall on pixels, and the taps at
	// distances K and 2K (kernel zeros at 1 and 2) vanish: 4K - 3.
	for k, want := range map[int]int{2: 8, 3: 9, 4: 16} {
		rw := bicubicWeights(16*k, 16, 1/float64(k))
		nz := 0
		for _, w := range rw.w[5*rw.p : 6*rw.p] {
			if w != 0 {
				nz++
			}
		}
		if nz != want {
			t.Errorf("scale 1/%d: %d non-zero weights, want %d", k, nz, want)
		}
	}
	// Enlarging by 2: no stretching, outputs at u = i/2 + 1/4; a constant
	// stays constant and a ramp's interior is kept.
	up, _, _ := Bicubic([]float64{1, 2, 3, 4, 5, 6}, 1, 1, 6, 2)
	if math.Abs(up[5]-3.25) > 1e-14 || math.Abs(up[6]-3.75) > 1e-14 {
		t.Errorf("x2 of a ramp: %v", up)
	}
}

func TestBicubicAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		h, w  int
		scale float64
	}{{8, 8, 0.5}, {12, 9, 0.25}, {7, 10, 1.0 / 3}, {5, 4, 2}, {6, 3, 4}, {3, 2, 0.5}} {
		src := make([]float64, tc.h*tc.w)
		for i := range src {
			src[i] = float64(rng.IntN(256))
		}
		got, oh, ow := Bicubic(src, 1, tc.h, tc.w, tc.scale)
		want, wh, ww := slowBicubic(src, tc.h, tc.w, tc.scale)
		if oh != wh || ow != ww {
			t.Fatalf("%+v: size %dx%d, want %dx%d", tc, oh, ow, wh, ww)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Errorf("%+v: out[%d] = %v, want %v", tc, i, got[i], want[i])
				break
			}
		}
	}
}

func TestRound8(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want uint8
	}{{-3, 0}, {0.49, 0}, {0.5, 1}, {1.5, 2}, {2.5, 3}, {254.5, 255}, {300, 255}, {math.NaN(), 0}} {
		if got := Round8(tc.v); got != tc.want {
			t.Errorf("Round8(%v) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

func TestDownscaleAndLowRes(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 9, 6))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 37)
	}
	lr := Downscale(img, 2) // cropped to 8x6 first
	if b := lr.Bounds(); b.Dx() != 4 || b.Dy() != 3 {
		t.Fatalf("size %v", b)
	}
	// LowRes on the same pixels as a batch in [-1, 1] gives the same.
	p, h, w := Planes(ModCrop(img, 2))
	hr := make([]float32, len(p))
	for i, v := range p {
		hr[i] = toUnit[uint8(v)]
	}
	got := make([]float32, 3*3*4)
	LowRes(got, hr, h, w, 2)
	q, _, _ := Planes(lr)
	for i := range got {
		if got[i] != toUnit[uint8(q[i])] {
			t.Fatalf("LowRes[%d] = %v, Downscale %v", i, got[i], q[i])
		}
	}
}

func TestSRPhotos(t *testing.T) {
	for _, f := range SRTestFiles {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s not installed (apt-get install opencv-doc)", f)
		}
	}
	ph, err := LoadPhotos(SRPhotos, Test)
	if err != nil {
		t.Fatal(err)
	}
	if ph.Len() != 2 || ph.Size(0) != image.Pt(256, 256) {
		t.Fatalf("%d images, first %v", ph.Len(), ph.Size(0))
	}
	p, err := NewPatches(ph, 32, 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float32, 3*32*32), make([]float32, 3*32*32)
	p.ImageAt(a, 3, 1)
	p.ImageAt(b, 3, 1)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same patch differs")
		}
	}
	y0, x0, _ := p.PatchParams(3, 1)
	y1, x1, _ := p.PatchParams(3, 2)
	if y0 == y1 && x0 == x1 {
		t.Error("epochs 1 and 2 draw the same crop")
	}
}
