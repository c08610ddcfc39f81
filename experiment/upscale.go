package experiment

// Super-resolution of image files by a generator, measured as SR papers
// measure it (positgan upscale): each image of ground truth shrunk,
// enlarged by the generator and by bicubic imresize, and scored.

import (
	"fmt"
	"image"
	"image/png"
	"io"
	"path/filepath"

	"github.com/positgan/positgan/imageio"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/models"
)

// Upscaled is one image of ground truth, upscaled: its test
// (models.NewSRTest: HR, LR and the bicubic baseline), the generator's
// enlargement of LR and, once Score has run, the scores
// (models.ScoreSR) of the bicubic baseline and of the enlargement
// against HR.
type Upscaled struct {
	models.SRTest
	Scale          int // of the generator
	SR             image.Image
	Out            []float32 // SR as the generator made it, (1, 3, H, W), before rounding to 8 bits
	Bicubic, Model models.SRScores
}

// Upscale prepares the test of ground truth img, called name, at u's
// scale and enlarges its LR image with u.
func Upscale(u *models.Upscaler, name string, img image.Image) (*Upscaled, error) {
	return UpscaleTiled(u, models.Tiling{}, name, img)
}

// UpscaleTiled is Upscale with the LR image enlarged tile by tile as t
// cuts it (models.Upscaler.EnlargeTiled).
func UpscaleTiled(u *models.Upscaler, t models.Tiling, name string, img image.Image) (*Upscaled, error) {
	r := &Upscaled{SRTest: models.NewSRTest(name, img, u.Scale()), Scale: u.Scale()}
	y, err := u.EnlargeTiled(r.LR, t)
	if err != nil {
		return nil, err
	}
	b := r.LR.Bounds()
	r.Out, r.SR = y, u.Image(y, b.Dy(), b.Dx())
	return r, nil
}

// Score scores the bicubic baseline and the enlargement against HR,
// with Scale pixels shaved from each border.
func (r *Upscaled) Score() (err error) {
	if r.Bicubic, err = models.ScoreSR(r.SRTest.Bicubic, r.HR, r.Scale); err != nil {
		return err
	}
	r.Model, err = models.ScoreSR(r.SR, r.HR, r.Scale)
	return err
}

// WriteFiles writes the enlargement, the bicubic baseline and the LR
// image to dir as <name>_sr.png, <name>_bicubic.png and <name>_lr.png.
func (r *Upscaled) WriteFiles(dir string) error {
	for name, m := range map[string]image.Image{"_sr.png": r.SR, "_bicubic.png": r.SRTest.Bicubic, "_lr.png": r.LR} {
		if err := imageio.Save(filepath.Join(dir, r.Name+name), m); err != nil {
			return err
		}
	}
	return nil
}

// CropRow returns the image's row of a crop comparison: LR | bicubic |
// the enlargement | HR, the two enlargements captioned with their
// Y-PSNR, the generator's called label. Its region is set by
// WriteCropComparison.
func (r *Upscaled) CropRow(label string) models.CropRow {
	return models.CropRow{Panels: []models.CropPanel{
		{Image: r.LR, Label: fmt.Sprintf("%s LR x%d", r.Name, r.Scale), Scale: r.Scale},
		{Image: r.SRTest.Bicubic, Label: fmt.Sprintf("%s %.2f dB", "bicubic", r.Bicubic.YPSNR)},
		{Image: r.SR, Label: fmt.Sprintf("%s %.2f dB", label, r.Model.YPSNR)},
		{Image: r.HR, Label: "HR"},
	}}
}

// WriteCropComparison writes the crop comparison of rows
// (models.CropComparison, enlarged zoom times) as a PNG file: the centre
// crop of each row's HR image (its last panel), of the same side in every
// row, crop pixels or less to fit every image, rounded down to a multiple
// of the scale k. It returns that side.
func WriteCropComparison(path string, rows []models.CropRow, crop, k, zoom int) (side int, err error) {
	for _, r := range rows {
		b := r.Panels[len(r.Panels)-1].Image.Bounds()
		crop = min(crop, b.Dx(), b.Dy())
	}
	crop = crop / k * k
	for i, r := range rows {
		b := r.Panels[len(r.Panels)-1].Image.Bounds()
		rows[i].Region = models.CentreCrop(b.Dx(), b.Dy(), crop, k)
	}
	img, err := models.CropComparison(rows, zoom)
	if err != nil {
		return crop, err
	}
	return crop, atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}
