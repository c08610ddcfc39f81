package main

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeUnpaired writes an unpaired data set of 16x16 images: trainA and
// testA of bright discs, trainB and testB of dark bars.
func writeUnpaired(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{"trainA", "trainB", "testA", "testB"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			img := image.NewNRGBA(image.Rect(0, 0, 18, 18))
			for y := range 18 {
				for x := range 18 {
					v := uint8(40)
					if d[len(d)-1] == 'A' && (x-9-i%3)*(x-9-i%3)+(y-8)*(y-8) < 20 {
						v = 230
					}
					if d[len(d)-1] == 'B' && (x+i)%5 == 0 {
						v = 200
					}
					img.Set(x, y, color.NRGBA{v, v / 2, 255 - v, 255})
				}
			}
			f, err := os.Create(filepath.Join(dir, d, "img"+string(rune('0'+i))+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
}

// CycleGAN trains on an unpaired folder (cropped, flipped), resumes,
// writes its six-row grids, and translates a folder in another policy
// with PSNR and SSIM against fp32.
func TestTrainTranslateCycleGAN(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeUnpaired(t, data)
	out := filepath.Join(dir, "run")
	args := []string{"train", "--model", "cyclegan", "--dataset", data, "--image-size", "16", "--features", "4",
		"--policy", "fp32", "--batch", "2", "--steps", "2", "--sample-every", "1", "--out", out}
	mustRun(t, args...)
	args[len(args)-3] = "3"
	mustRun(t, append(args, "--resume")...)
	for _, f := range []string{"samples.png", "samples_000001.png", "checkpoint.safetensors"} {
		if !exists(filepath.Join(out, f)) {
			t.Errorf("no %s", f)
		}
	}
	f, err := os.Open(filepath.Join(out, "samples.png"))
	if err != nil {
		t.Fatal(err)
	}
	grid, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b := grid.Bounds(); b.Dy() != 6*18+2 || b.Dx() != 6*18+2 { // 6 rows of min(8, 6 images)
		t.Errorf("grid %v", b)
	}

	ck := filepath.Join(out, "checkpoint.safetensors")
	got := mustRun(t, "translate", "--checkpoint", ck, "--direction", "BtoA", "--in", filepath.Join(data, "testB"),
		"--out", filepath.Join(dir, "fakeA"), "--policy", "posit8+")
	if !strings.Contains(got, "img5.png") || !strings.Contains(got, "mean") {
		t.Errorf("translate output:\n%s", got)
	}
	if !exists(filepath.Join(dir, "fakeA", "img0.png")) {
		t.Error("no translated img0.png")
	}
	// A deployment policy against fp32: PSNR and SSIM per image, then the means.
	got = mustRun(t, "translate", "--checkpoint", ck, "--direction", "AtoB", "--in", filepath.Join(data, "testA"),
		"--out", filepath.Join(dir, "fakeB"), "--policy", "posit6-deploy")
	if lines := strings.Split(strings.TrimSpace(got), "\n"); len(lines) != 9 || !strings.HasPrefix(lines[2], "img0.png") || !strings.HasPrefix(lines[8], "mean ") {
		t.Errorf("translate in posit6-deploy:\n%s", got)
	}
	// The FID of each direction, on the test splits of the data set the
	// checkpoint names.
	got = mustRun(t, "translate", "--checkpoint", ck, "--fid", "--features", "lenet-mnist", "--n", "0")
	if lines := strings.Split(strings.TrimSpace(got), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "AtoB\t") ||
		!strings.HasPrefix(lines[1], "BtoA\t") || !strings.HasSuffix(lines[1], "\tFID (LeNet-MNIST)") {
		t.Errorf("translate --fid:\n%s", got)
	}
	for _, bad := range [][]string{
		{"--fid", "--in", data},        // --fid reads the test splits
		{"--fid", "--direction", "up"}, // not a direction
		{"--fid"},                      // a folder data set names no feature network
		{"--in", data, "--out", dir, "--features", "lenet-mnist"}, // a flag of --fid only
	} {
		if _, stderr, code := runCLI(t, "", append([]string{"translate", "--checkpoint", ck}, bad...)...); code != 2 {
			t.Errorf("translate %v: exit %d, %s", bad, code, stderr)
		}
	}
	ssim := mustRun(t, "eval", "ssim", filepath.Join(data, "testB"), filepath.Join(data, "testB"))
	if !strings.HasPrefix(ssim, "1\n") {
		t.Errorf("eval ssim of a folder with itself:\n%s", ssim)
	}
	if _, stderr, code := runCLI(t, "", "translate", "--checkpoint", ck, "--direction", "up", "--in", data, "--out", dir); code != 2 || !strings.Contains(stderr, "AtoB") {
		t.Errorf("bad direction: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "train", "--model", "cyclegan", "--dataset", filepath.Join(data, "trainA"), "--out", filepath.Join(dir, "x")); code == 0 || !strings.Contains(stderr, "no trainA folder") {
		t.Errorf("not an unpaired folder: exit %d, %s", code, stderr)
	}
}
