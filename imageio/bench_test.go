package imageio

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
)

// benchJPEG is a 1024×768 4:2:0 JPEG (Go's encoder, quality 90) of a
// smooth pattern with detail.
func benchJPEG(b *testing.B) []byte {
	m := image.NewRGBA(image.Rect(0, 0, 1024, 768))
	for i := range m.Pix {
		m.Pix[i] = uint8(i*7 ^ i>>9)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkDecodeJPEG compares our libjpeg-exact decoding (to RGB) with
// Go's image/jpeg, to RGB through toPIL and to its subsampled YCbCr
// planes alone.
func BenchmarkDecodeJPEG(b *testing.B) {
	data := benchJPEG(b)
	b.Run("imageio", func(b *testing.B) {
		b.SetBytes(1024 * 768)
		for b.Loop() {
			if _, err := Decode(bytes.NewReader(data), Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("image-jpeg", func(b *testing.B) {
		b.SetBytes(1024 * 768)
		for b.Loop() {
			img, err := jpeg.Decode(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			toPIL(img, false)
		}
	})
	b.Run("image-jpeg-ycbcr-only", func(b *testing.B) {
		b.SetBytes(1024 * 768)
		for b.Loop() {
			if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
