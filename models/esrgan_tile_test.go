package models_test

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// tinyESRGAN returns the checkpoint of a freshly initialised ESRGAN of
// the given scale with one RRDB, 4 features and 2 growth channels.
func tinyESRGAN(t *testing.T, scale string) *ckpt.Checkpoint {
	t.Helper()
	cfg, err := models.DefaultConfig(models.ESRGAN, datasets.Shape{C: 3, H: 16, W: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options = map[string]string{"scale": scale, "blocks": "1", "gc": "2", "pretrain": "1"}
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pix := make([]uint8, 2*3*16*16)
	ds, err := datasets.NewSet("toy", datasets.Shape{C: 3, H: 16, W: 16}, pix, make([]int, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Batch: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tileTestImage is a w×h image with structure at every scale.
func tileTestImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x*9 + y*y), uint8(y*13 ^ x*5), uint8((x * y) % 251), 255})
		}
	}
	return img
}

// With a pad of the generator's receptive radius, tiled enlargement is
// untiled enlargement to the bit, in float32 and under posit6-deploy,
// whatever the tiles' sizes at the image's edges.
func TestEnlargeTiledExact(t *testing.T) {
	for _, tc := range []struct {
		scale, policy string
		tile, w, h    int
	}{
		{"4", "", 20, 70, 52},
		{"2", "", 16, 45, 37},
		{"4", "posit6-deploy", 20, 70, 52},
		{"4", "mxfp4-deploy", 24, 61, 50},
	} {
		var pol *policy.Policy
		if tc.policy != "" {
			var err error
			if pol, err = policy.Parse(tc.policy); err != nil {
				t.Fatal(err)
			}
		}
		u, err := models.NewUpscaler(tinyESRGAN(t, tc.scale), pol)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.ReceptiveRadius(); got != 19 {
			t.Fatalf("ReceptiveRadius of one RRDB = %d, want 15+4", got)
		}
		img := tileTestImage(tc.w, tc.h)
		want, err := u.Enlarge(img)
		if err != nil {
			t.Fatal(err)
		}
		got, err := u.EnlargeTiled(img, models.Tiling{Tile: tc.tile, Pad: u.ReceptiveRadius()})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%+v: %d values, want %d", tc, len(got), len(want))
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%+v: value %d = %g tiled, %g untiled", tc, i, got[i], want[i])
			}
		}
	}
}

// With a small pad, tiled enlargement differs from untiled, and only at
// pixels within the receptive radius less the pad of a seam between
// tiles.
func TestEnlargeTiledSeams(t *testing.T) {
	u, err := models.NewUpscaler(tinyESRGAN(t, "4"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const w, h, tile, pad, k = 72, 48, 24, 3, 4
	img := tileTestImage(w, h)
	want, err := u.Enlarge(img)
	if err != nil {
		t.Fatal(err)
	}
	got, err := u.EnlargeTiled(img, models.Tiling{Tile: tile, Pad: pad})
	if err != nil {
		t.Fatal(err)
	}
	band := u.ReceptiveRadius() - pad
	// nearSeam reports whether input coordinate v is within band of a
	// seam (a multiple of tile inside the image of side n).
	nearSeam := func(v, n int) bool {
		for s := tile; s < n; s += tile {
			if v >= s-band && v < s+band {
				return true
			}
		}
		return false
	}
	H, W := h*k, w*k
	differ := 0
	for c := range 3 {
		for y := range H {
			for x := range W {
				i := (c*H+y)*W + x
				if got[i] == want[i] {
					continue
				}
				differ++
				if !nearSeam(x/k, w) && !nearSeam(y/k, h) {
					t.Fatalf("pixel (%d, %d, channel %d) differs (%g tiled, %g untiled), %d input pixels or more from every seam", x, y, c, got[i], want[i], band)
				}
			}
		}
	}
	if differ == 0 {
		t.Errorf("a pad of %d below the receptive radius %d changed no pixel", pad, u.ReceptiveRadius())
	}
}

// Tiling.Check refuses negative sizes.
func TestTilingCheck(t *testing.T) {
	for _, tl := range []models.Tiling{{Tile: -1}, {Tile: 8, Pad: -1}} {
		if tl.Check() == nil {
			t.Errorf("%+v: no error", tl)
		}
	}
	if err := (models.Tiling{Tile: 8, Pad: 0}).Check(); err != nil {
		t.Error(err)
	}
}

// BenchmarkEnlargeTiled enlarges a 48×48 image x4 with one RRDB of the
// published width (64 features, growth 32) in tiles of 16 with a pad of
// 8: nine tiles of three sizes, 6400 padded input pixels. B/op is what
// the tiles' graphs allocate (each size's graph is built once per row or
// column it starts); padded-px/s is the throughput that sets the time of
// a large image.
func BenchmarkEnlargeTiled(b *testing.B) {
	cfg, err := models.DefaultConfig(models.ESRGAN, datasets.Shape{C: 3, H: 16, W: 16}, 0)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Features = 64
	cfg.Options = map[string]string{"scale": "4", "blocks": "1", "gc": "32", "pretrain": "1"}
	m, err := models.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ds, err := datasets.NewSet("toy", datasets.Shape{C: 3, H: 16, W: 16}, make([]uint8, 2*3*16*16), make([]int, 2), nil)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Batch: 2, Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		b.Fatal(err)
	}
	u, err := models.NewUpscaler(c, nil)
	if err != nil {
		b.Fatal(err)
	}
	img := tileTestImage(48, 48)
	const padded = (24 + 32 + 24) * (24 + 32 + 24)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.EnlargeTiled(img, models.Tiling{Tile: 16, Pad: 8}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(padded*b.N)/b.Elapsed().Seconds(), "padded-px/s")
}
