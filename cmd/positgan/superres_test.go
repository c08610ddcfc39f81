package main

import (
	"image"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disintegration/imaging"
)

// downscale writes imresize's LR image; eval psnr --y --shave compares.
func TestDownscaleAndYPSNR(t *testing.T) {
	dir := t.TempDir()
	img := image.NewNRGBA(image.Rect(0, 0, 18, 16))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	hr := filepath.Join(dir, "hr.png")
	if err := imaging.Save(img, hr); err != nil {
		t.Fatal(err)
	}
	lr := filepath.Join(dir, "lr.png")
	if out, errOut, code := runCLI(t, "", "downscale", "--scale", "4", hr, lr); code != 0 || !strings.Contains(out, "(4x4)") {
		t.Fatalf("downscale: %d %q %q", code, out, errOut)
	}
	if out, errOut, code := runCLI(t, "", "eval", "psnr", "--y", "--shave", "2", hr, hr); code != 0 || !strings.Contains(out, "inf") {
		t.Fatalf("eval psnr --y: %d %q %q", code, out, errOut)
	}
	if _, _, code := runCLI(t, "", "downscale", "--scale", "1", hr, lr); code != 2 {
		t.Errorf("--scale 1: exit %d, want 2", code)
	}
}
