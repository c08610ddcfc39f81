package eval

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 15: eval psnr decoded a 100000x100000 PNG (a 1.2 MB file) before
// looking at its size, and ran out of memory.
func TestFilePSNRTooLarge(t *testing.T) {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	p := b.Bytes()
	binary.BigEndian.PutUint32(p[16:], 100000)
	binary.BigEndian.PutUint32(p[20:], 100000)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.png")
	os.WriteFile(bomb, p, 0o644)
	if _, err := FilePSNR(bomb, bomb, 255); err == nil || !strings.Contains(err.Error(), "pixels") {
		t.Errorf("err = %v, want one about the image's size", err)
	}
}
