package experiment_test

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// Upscale enlarges an image's LR version by the generator's scale and
// scores it beside bicubic; the crop comparison shows the same square of
// every row, a multiple of the scale that fits every image.
func TestUpscale(t *testing.T) {
	cfg, err := models.DefaultConfig(models.ESRGAN, datasets.Shape{C: 3, H: 16, W: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options = map[string]string{"scale": "2", "blocks": "1", "gc": "2", "pretrain": "1"}
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pix := make([]uint8, 4*3*16*16)
	for i := range pix {
		pix[i] = uint8(i * 7)
	}
	ds, err := datasets.NewSet("toy", datasets.Shape{C: 3, H: 16, W: 16}, pix, make([]int, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	u, err := models.NewUpscaler(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 31, 24))
	for y := range 24 {
		for x := range 31 {
			img.Set(x, y, color.NRGBA{uint8(x * 8), uint8(y * 10), 90, 255})
		}
	}
	r, err := experiment.Upscale(u, "toy", img)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Score(); err != nil {
		t.Fatal(err)
	}
	if b := r.SR.Bounds(); b.Dx() != 30 || b.Dy() != 24 || r.Scale != 2 || !(r.Bicubic.SSIM > 0) || !(r.Model.PSNR > 0) {
		t.Errorf("SR %v at scale %d, scores %+v and %+v", b, r.Scale, r.Bicubic, r.Model)
	}
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"toy_sr.png", "toy_bicubic.png", "toy_lr.png"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Error(err)
		}
	}
	side, err := experiment.WriteCropComparison(filepath.Join(dir, "crops.png"), []models.CropRow{r.CropRow("esrgan")}, 96, 2, 2)
	if err != nil || side != 24 {
		t.Errorf("WriteCropComparison: side %d, %v; want 24 (the image's height)", side, err)
	}
}
