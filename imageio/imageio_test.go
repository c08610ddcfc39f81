package imageio

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"runtime"
	"testing"
)

// TestLimit wants files that declare more pixels than the limit, or
// none, refused from their header, before the decoder allocates.
func TestLimit(t *testing.T) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	small := b.Bytes()
	// The SOF0 segment: FF C0, length (2), precision (1), height, width.
	sof := bytes.Index(small, []byte{0xff, 0xc0})
	withSize := func(w, h int) []byte {
		d := bytes.Clone(small)
		d[sof+5], d[sof+6] = byte(h>>8), byte(h)
		d[sof+7], d[sof+8] = byte(w>>8), byte(w)
		return d
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		limit int64
		ok    bool
	}{
		{"8x8", small, 64, true},
		{"8x8 over a limit of 63", small, 63, false},
		{"65535x65535", withSize(65535, 65535), 0, false},
		{"width 0", withSize(0, 8), 0, false},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		img, err := Decode(bytes.NewReader(tc.data), Options{MaxPixels: tc.limit})
		runtime.ReadMemStats(&after)
		if tc.ok {
			if err != nil || img.Bounds().Dx() != 8 {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: decoded", tc.name)
		}
		var le *LimitError
		if tc.name != "width 0" && !errors.As(err, &le) {
			t.Errorf("%s: %v, want a *LimitError", tc.name, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%s: allocated %d bytes", tc.name, got)
		}
	}
}

// TestFormat wants each format named from its magic bytes, and unknown
// data refused with ErrFormat.
func TestFormat(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"\xff\xd8\xff\xe0", "jpeg"}, {"\x89PNG\r\n\x1a\n", "png"}, {"GIF89a", "gif"},
		{"BM", "bmp"}, {"II*\x00", "tiff"}, {"MM\x00*", "tiff"}, {"RIFF\x00\x00\x00\x00WEBPVP8 ", "webp"},
		{"P6\n", ""}, {"", ""},
	} {
		if got := Format([]byte(tc.data)); got != tc.want {
			t.Errorf("Format(%q) = %q, want %q", tc.data, got, tc.want)
		}
	}
	if _, err := Decode(bytes.NewReader([]byte("P6\n1 1\n255\n\x00\x00\x00")), Options{}); !errors.Is(err, ErrFormat) {
		t.Errorf("PPM: %v, want ErrFormat", err)
	}
}
