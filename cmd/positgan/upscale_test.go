package main

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disintegration/imaging"
)

// upscale --compare writes the crop comparison: one row per image, four
// panels, the captions holding the Y-PSNR printed in the table.
func TestUpscaleCompare(t *testing.T) {
	dir := writePhotos(t, 24, 20)
	run := t.TempDir()
	if _, errOut, code := runCLI(t, "", "train", "--model", "esrgan", "--dataset", dir, "--image-size", "16", "--features", "4",
		"--batch", "2", "--steps", "2", "--policy", "fp32", "--out", run, "--sample-every", "0",
		"--option", "scale=2", "--option", "blocks=1", "--option", "gc=2", "--option", "pretrain=1"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	ck := filepath.Join(run, "checkpoint.safetensors")
	out := t.TempDir()
	cmp := filepath.Join(out, "crops.png")
	stdout, errOut, code := runCLI(t, "", "upscale", "--checkpoint", ck, "--in", dir, "--out", out, "--compare", cmp, "--crop", "15", "--zoom", "3")
	if code != 0 {
		t.Fatalf("upscale: exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "centre crops of 14x14") {
		t.Errorf("output %q does not name the 14x14 crops (15 down to the scale's grid)", stdout)
	}
	img, err := imaging.Open(cmp)
	if err != nil {
		t.Fatal(err)
	}
	const gap, label = 6, 16 // as models.CropComparison draws
	if got, want := img.Bounds().Size(), image.Pt(gap+4*(14*3+gap), gap+2*(label+14*3+gap)); got != want {
		t.Errorf("comparison %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(out, "pa_sr.png")); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{{"--lr"}, {"--zoom", "0"}, {"--crop", "0"}} {
		args := append([]string{"upscale", "--checkpoint", ck, "--in", dir, "--out", out, "--compare", cmp}, bad...)
		if _, _, code := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// writePhotos writes two w×h RGB test images, pa.png and pb.png, to a new
// folder and returns it.
func writePhotos(t *testing.T, w, h int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 2 {
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for j := range img.Pix {
			img.Pix[j] = uint8(j*(i+3) + j/96)
		}
		if err := imaging.Save(img, filepath.Join(dir, "p"+string(rune('a'+i))+".png")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
