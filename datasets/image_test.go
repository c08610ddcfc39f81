package datasets

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hugePNG returns a valid 1x1 PNG whose header claims w×h pixels: a
// decompression bomb in a few dozen bytes.
func hugePNG(t *testing.T, w, h uint32) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	// Signature (8), IHDR length (4), "IHDR" (4), width, height, ...
	binary.BigEndian.PutUint32(p[16:], w)
	binary.BigEndian.PutUint32(p[20:], h)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}

// Issue 15: a 100000x100000 PNG took train --dataset DIR and eval psnr to
// 9.8 GB and an out-of-memory crash. Its size is checked before decoding.
func TestOpenImageTooLarge(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.png")
	os.WriteFile(bomb, hugePNG(t, 100000, 100000), 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := OpenImage(bomb)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "100000x100000") || !strings.Contains(err.Error(), "bomb.png") {
		t.Errorf("err = %v, want one naming the file and its size", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("allocated %d MB", got>>20)
	}
	if _, err := LoadFolder(dir, Options{Height: 8, Width: 8}); err == nil || !strings.Contains(err.Error(), "pixels") {
		t.Errorf("LoadFolder: %v", err)
	}
	zero := filepath.Join(t.TempDir(), "zero.png")
	os.WriteFile(zero, hugePNG(t, 0, 5), 0o644)
	if _, err := OpenImage(zero); err == nil {
		t.Error("an image of width 0 decoded")
	}
	small := filepath.Join(t.TempDir(), "one.png")
	os.WriteFile(small, hugePNG(t, 1, 1), 0o644)
	if img, err := OpenImage(small); err != nil || img.Bounds().Dx() != 1 {
		t.Errorf("1x1 image: %v", err)
	}
}
