package imageio

import (
	"fmt"
	"image"
	"io"

	"github.com/disintegration/imaging"

	"github.com/positgan/positgan/internal/atomicfile"
)

// Save writes img to path in the format its extension names, with the
// settings imaging.Save uses (PNG, JPEG at quality 95, GIF, TIFF, BMP),
// through a temporary file renamed into place: an interrupted write never
// leaves a partial image under path.
func Save(path string, img image.Image) error {
	f, err := imaging.FormatFromFilename(path)
	if err != nil {
		return fmt.Errorf("imageio: %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return imaging.Encode(w, img, f) })
}
