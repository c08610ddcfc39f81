package datasets

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
)

// jpegWithOrientation returns a w×h JPEG carrying an EXIF orientation tag.
func jpegWithOrientation(t *testing.T, w, h int, o uint16) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	// APP1: "Exif\0\0", a little-endian TIFF header, IFD0 with one entry
	// (0x0112, SHORT, 1, o) and no next IFD.
	tiff := []byte("II*\x00\x08\x00\x00\x00")
	tiff = binary.LittleEndian.AppendUint16(tiff, 1)
	tiff = binary.LittleEndian.AppendUint16(tiff, 0x0112)
	tiff = binary.LittleEndian.AppendUint16(tiff, 3)
	tiff = binary.LittleEndian.AppendUint32(tiff, 1)
	tiff = binary.LittleEndian.AppendUint16(tiff, o)
	tiff = append(tiff, 0, 0, 0, 0, 0, 0)
	seg := append([]byte("Exif\x00\x00"), tiff...)
	app1 := []byte{0xff, 0xe1}
	app1 = binary.BigEndian.AppendUint16(app1, uint16(len(seg)+2))
	app1 = append(app1, seg...)
	data := b.Bytes()
	return append(append(append([]byte{}, data[:2]...), app1...), data[2:]...)
}

// TestExifOrientationOption: folders keep the stored pixels by default
// (as PIL's Image.open) and turn them upright with ExifOrientation.
func TestExifOrientationOption(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.jpg"), jpegWithOrientation(t, 3, 2, 6), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		exif bool
		want Shape
	}{{false, Shape{C: 3, H: 2, W: 3}}, {true, Shape{C: 3, H: 3, W: 2}}} {
		s, err := LoadFolder(dir, Options{ExifOrientation: tc.exif})
		if err != nil {
			t.Fatal(err)
		}
		if s.Shape() != tc.want {
			t.Errorf("ExifOrientation %v: shape %v, want %v", tc.exif, s.Shape(), tc.want)
		}
	}
}
