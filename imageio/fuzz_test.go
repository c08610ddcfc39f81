package imageio

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must return an error or
// an image within the pixel limit, never panic (our JPEG decoder is not
// behind a recover). The seed corpus in testdata/fuzz/FuzzDecode holds
// progressive, restart-interval and 4:4:0 JPEGs and 16-bit PNGs.
func FuzzDecode(f *testing.F) {
	m := image.NewRGBA(image.Rect(0, 0, 19, 11))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 37)
	}
	for _, q := range []int{10, 90} {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: q}); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray16(image.Rect(0, 0, 3, 2))); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := Decode(bytes.NewReader(data), Options{MaxPixels: limit, ExifOrientation: true})
		if err != nil {
			return
		}
		bd := img.Bounds()
		if bd.Dx()*bd.Dy() > limit || bd.Empty() {
			t.Fatalf("decoded %v, limit %d pixels", bd, limit)
		}
		switch img.(type) {
		case *image.Gray, *image.NRGBA:
		default:
			t.Fatalf("decoded a %T", img)
		}
		if m, ok := img.(*image.NRGBA); ok {
			for i := 3; i < len(m.Pix); i += 4 {
				if m.Pix[i] != 255 {
					t.Fatalf("alpha %d at %d", m.Pix[i], i/4)
				}
			}
		}
	})
}
