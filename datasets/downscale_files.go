package datasets

import (
	"image"
	"os"
	"path/filepath"
	"strings"

	"github.com/positgan/positgan/imageio"
)

// DownscaleFile shrinks the image file in by k (Downscale) and writes it
// to the file out (imageio.Save: the format by out's extension). It
// returns the sizes of both images.
func DownscaleFile(in, out string, k int) (from, to image.Point, err error) {
	img, err := OpenImage(in)
	if err != nil {
		return from, to, err
	}
	lr := Downscale(img, k)
	if err := imageio.Save(out, lr); err != nil {
		return from, to, err
	}
	return img.Bounds().Size(), lr.Rect.Size(), nil
}

// DownscaleFiles shrinks each image file of files by k (Downscale) into
// the folder out, made if need be, each under its base name with the
// extension .png: the low-resolution images of a super-resolution
// benchmark.
func DownscaleFiles(files []string, out string, k int) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		n := filepath.Base(f)
		name := strings.TrimSuffix(n, filepath.Ext(n)) + ".png"
		if _, _, err := DownscaleFile(f, filepath.Join(out, name), k); err != nil {
			return err
		}
	}
	return nil
}
