package imageio

import (
	"encoding/binary"
	"image"
	"image/color"
	"testing"

	"github.com/disintegration/imaging"
)

// TestOrientMatchesImaging checks orient against the transforms that
// disintegration/imaging's AutoOrientation applies for each EXIF
// orientation (an independent reading of the EXIF table), on gray and
// colour images that are not square, so that a rotation the wrong way or
// a swapped width and height shows.
func TestOrientMatchesImaging(t *testing.T) {
	want := map[int]func(image.Image) *image.NRGBA{
		1: imaging.Clone, 2: imaging.FlipH, 3: imaging.Rotate180, 4: imaging.FlipV,
		5: imaging.Transpose, 6: imaging.Rotate270, 7: imaging.Transverse, 8: imaging.Rotate90,
	}
	gray := image.NewGray(image.Rect(0, 0, 3, 2))
	rgb := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(10 * (i + 1))
		rgb.Pix[4*i], rgb.Pix[4*i+1], rgb.Pix[4*i+2], rgb.Pix[4*i+3] = uint8(i), uint8(20*i), uint8(255-i), 255
	}
	for o := 1; o <= 8; o++ {
		for _, img := range []image.Image{gray, rgb} {
			got, ref := orient(img, o), want[o](img)
			if got.Bounds() != ref.Bounds() {
				t.Errorf("orientation %d, %T: bounds %v, imaging %v", o, img, got.Bounds(), ref.Bounds())
				continue
			}
			b := ref.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if g, r := color.NRGBAModel.Convert(got.At(x, y)), ref.At(x, y); g != r {
						t.Errorf("orientation %d, %T: (%d, %d) = %v, imaging %v", o, img, x, y, g, r)
					}
				}
			}
		}
	}
}

// TestExifOrientation reads the orientation tag from APP1 segments in
// either byte order, after other segments and entries, and falls back to
// 1 without one or with a value out of range.
func TestExifOrientation(t *testing.T) {
	app1 := func(bo binary.AppendByteOrder, magic string, o uint16) []byte {
		tiff := []byte(magic)
		tiff = bo.AppendUint32(tiff, 8)
		tiff = bo.AppendUint16(tiff, 2) // two entries: another tag, then orientation
		tiff = bo.AppendUint16(tiff, 0x010f)
		tiff = bo.AppendUint16(tiff, 2)
		tiff = bo.AppendUint32(tiff, 4)
		tiff = bo.AppendUint32(tiff, 0)
		tiff = bo.AppendUint16(tiff, 0x0112)
		tiff = bo.AppendUint16(tiff, 3)
		tiff = bo.AppendUint32(tiff, 1)
		tiff = bo.AppendUint16(tiff, o)
		tiff = append(tiff, 0, 0, 0, 0, 0, 0)
		seg := append([]byte("Exif\x00\x00"), tiff...)
		return append(binary.BigEndian.AppendUint16([]byte{0xff, 0xe1}, uint16(len(seg)+2)), seg...)
	}
	app0 := []byte{0xff, 0xe0, 0, 4, 'x', 'y'}
	soi, sos := []byte{0xff, 0xd8}, []byte{0xff, 0xda, 0, 2}
	file := func(segs ...[]byte) []byte {
		d := append([]byte{}, soi...)
		for _, s := range segs {
			d = append(d, s...)
		}
		return append(d, sos...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want int
	}{
		{"little-endian 6", file(app0, app1(binary.LittleEndian, "II*\x00", 6)), 6},
		{"big-endian 8", file(app1(binary.BigEndian, "MM\x00*", 8), app0), 8},
		{"out of range", file(app1(binary.LittleEndian, "II*\x00", 9)), 1},
		{"none", file(app0), 1},
		{"after the scan", append(file(app0), app1(binary.LittleEndian, "II*\x00", 3)...), 1},
	} {
		if got := exifOrientation(tc.data); got != tc.want {
			t.Errorf("%s: orientation %d, want %d", tc.name, got, tc.want)
		}
	}
}
