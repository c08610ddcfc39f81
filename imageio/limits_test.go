package imageio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// scanSegments returns the [start, end) byte ranges of the scans of a JPEG
// file: each SOS segment with the entropy-coded data after it.
func scanSegments(data []byte) [][2]int {
	var out [][2]int
	i := 2
	for i+4 <= len(data) {
		if data[i] != 0xff {
			i++
			continue
		}
		m := data[i+1]
		if m == 0xd9 {
			break
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		end := i + 2 + n
		if m == 0xda {
			// Entropy-coded data runs to the next marker that is neither a
			// stuffed 0xff nor a restart marker.
			for end+1 < len(data) && (data[end] != 0xff || data[end+1] == 0 || data[end+1] >= 0xd0 && data[end+1] <= 0xd7) {
				end++
			}
			out = append(out, [2]int{i, end})
		}
		i = end
	}
	return out
}

// withScans returns the JPEG file data with n more copies of its scan k
// right after it.
func withScans(t *testing.T, data []byte, k, n int) []byte {
	t.Helper()
	segs := scanSegments(data)
	if k >= len(segs) {
		t.Fatalf("scan %d of %d", k, len(segs))
	}
	s := segs[k]
	var b bytes.Buffer
	b.Write(data[:s[1]])
	for range n {
		b.Write(data[s[0]:s[1]])
	}
	b.Write(data[s[1]:])
	return b.Bytes()
}

// scanComps returns how many components scan seg codes.
func scanComps(data []byte, seg [2]int) int { return int(data[seg[0]+4]) }

// TestJPEGScanLimits: a file of many scans (issue 29: 138 KB, 3,000 scans,
// 58 s) is refused at the limit, quickly, while the same file with a few
// extra scans still decodes to the same pixels.
func TestJPEGScanLimits(t *testing.T) {
	prog, err := os.ReadFile("testdata/pil/cj_420_prog_rst.jpg")
	if err != nil {
		t.Fatal(err)
	}
	segs := scanSegments(prog)
	dc, ac := -1, -1
	for k, s := range segs {
		switch n := scanComps(prog, s); {
		case n == 3 && dc < 0:
			dc = k
		case n == 1 && ac < 0 && k > 0 && prog[s[0]+5] != 1: // not the luma
			ac = k
		}
	}
	if dc < 0 || ac < 0 {
		t.Fatalf("no DC or chroma scan among %d scans", len(segs))
	}
	want, err := Decode(bytes.NewReader(prog), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A few repeated scans decode the same coefficients again.
	if got, err := Decode(bytes.NewReader(withScans(t, prog, dc, 3)), Options{}); err != nil {
		t.Errorf("3 extra scans: %v", err)
	} else if !bytes.Equal(got.(*image.NRGBA).Pix, want.(*image.NRGBA).Pix) {
		t.Errorf("3 extra DC scans change the pixels")
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"3000 DC scans", withScans(t, prog, dc, 3000), "imageio.MaxJPEGPasses"},
		{"300 chroma scans", withScans(t, prog, ac, 300), "imageio.MaxJPEGScans"},
	} {
		start := time.Now()
		_, err := Decode(bytes.NewReader(tc.data), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line error naming %s", tc.name, err, tc.want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refused after %v", tc.name, d)
		}
	}

	// A sequential file codes each component once.
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	_, err = Decode(bytes.NewReader(withScans(t, b.Bytes(), 0, 1)), Options{})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("sequential file scanning its components twice: %v", err)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// zeros reads as endless zero bytes, as /dev/zero does.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestDecodeMagicFirst: data that is no image is refused from its first
// bytes (issue 29: 1 GB was read first), and an image stream is read to
// Options.MaxBytes at most.
func TestDecodeMagicFirst(t *testing.T) {
	c := &countingReader{r: zeros{}}
	if _, err := Decode(c, Options{}); !errors.Is(err, ErrFormat) {
		t.Errorf("zeros: %v, want ErrFormat", err)
	}
	if c.n > headBytes {
		t.Errorf("zeros: read %d bytes before refusing them", c.n)
	}
	c = &countingReader{r: io.MultiReader(strings.NewReader("\x89PNG\r\n\x1a\n"), zeros{})}
	_, err := Decode(c, Options{MaxBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "MaxBytes") {
		t.Errorf("endless PNG: %v, want the size limit", err)
	}
	if c.n > 1<<20+1 {
		t.Errorf("endless PNG: read %d bytes, limit %d", c.n, 1<<20)
	}
}

// TestOpenLimits: Open reads a regular file only, refuses a file larger
// than the byte limit before reading it (issue 29: a sparse 1 GB big.png
// took 2.1 GB), and names the file in a one-line error.
func TestOpenLimits(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.png")
	if err := os.WriteFile(big, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 1<<30); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.png")
	if err := os.WriteFile(junk, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{big, "larger than"},
		{junk, "unknown image format"},
		{dir, "a directory, not a regular file"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := Open(tc.path, Options{})
		runtime.ReadMemStats(&after)
		oneLine(t, err, tc.path, tc.want)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refused after %v", tc.path, d)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%s: allocated %d bytes", tc.path, got)
		}
	}
	if _, err := Open(filepath.Join(dir, "absent.png"), Options{}); err == nil || !strings.HasPrefix(err.Error(), "open ") {
		t.Errorf("absent file: %v, want os.Open's error", err)
	}
}

// oneLine fails unless err is a one-line error naming path and saying want.
func oneLine(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %q", path, want)
		return
	}
	if s := err.Error(); !strings.Contains(s, path) || !strings.Contains(s, want) || strings.Contains(s, "\n") {
		t.Errorf("%s: %q, want one line naming the file and saying %q", path, s, want)
	}
}

// TestWebPFrameSize: a WebP file whose VP8X canvas is 1×1 but whose frame
// is 16384×16384 is refused from the headers, not decoded at the frame's
// size.
func TestWebPFrameSize(t *testing.T) {
	chunk := func(id string, data []byte) []byte {
		b := append([]byte(id), byte(len(data)), 0, 0, 0)
		b = append(b, data...)
		if len(data)%2 == 1 {
			b = append(b, 0)
		}
		return b
	}
	body := []byte("WEBP")
	body = append(body, chunk("VP8X", make([]byte, 10))...)                     // canvas 1×1
	body = append(body, chunk("VP8L", []byte{0x2f, 0xff, 0xff, 0xff, 0x0f})...) // 16384×16384
	data := append([]byte("RIFF"), byte(len(body)), byte(len(body)>>8), 0, 0)
	data = append(data, body...)
	_, err := Decode(bytes.NewReader(data), Options{})
	if err == nil || !strings.Contains(err.Error(), "canvas") {
		t.Errorf("1x1 canvas, 16384x16384 frame: %v", err)
	}
}

// TestPNGPixelLimit: a small PNG whose header claims 100000×100000 pixels
// is refused from its header (a *LimitError), allocating nothing like the
// image.
func TestPNGPixelLimit(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	binary.BigEndian.PutUint32(data[16:], 100000)
	binary.BigEndian.PutUint32(data[20:], 100000)
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29])) // IHDR's CRC
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Decode(bytes.NewReader(data), Options{})
	runtime.ReadMemStats(&after)
	var le *LimitError
	if !errors.As(err, &le) || le.Width != 100000 {
		t.Errorf("100000x100000 PNG: %v, want a *LimitError", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("allocated %d bytes", got)
	}
}
