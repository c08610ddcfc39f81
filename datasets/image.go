package datasets

import (
	"fmt"
	"image"
	"os"

	"github.com/positgan/positgan/imageio"
)

// MaxImagePixels bounds the width × height of an image file OpenImage
// decodes: 16.7 million pixels (4096×4096), at most 128 MB decoded. A
// small file can declare a huge image (a 1.2 MB PNG of 100000×100000
// pixels); its size is read from the header and checked first.
const MaxImagePixels = imageio.DefaultMaxPixels

// OpenImage decodes an image file (JPEG, PNG, GIF, TIFF, BMP or WebP)
// with imageio, into the pixels PIL's Image.open(path).convert("RGB")
// gives (JPEG bit-exact with libjpeg; EXIF orientation not applied, as
// in PIL, pytorch-fid, torchvision and the reference CycleGAN code): an
// *image.Gray for gray files, an opaque *image.NRGBA otherwise. Its size
// is checked from the header first (positive, within MaxImagePixels).
// Errors are *FileErrors naming the file.
func OpenImage(path string) (image.Image, error) { return openImage(path, false) }

// openImage is OpenImage, applying the EXIF orientation if exif.
func openImage(path string, exif bool) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	img, err := imageio.Decode(f, imageio.Options{MaxPixels: MaxImagePixels, ExifOrientation: exif})
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return img, nil
}
