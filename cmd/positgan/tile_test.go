package main

import (
	"bytes"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disintegration/imaging"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// tinySRCheckpoint writes a freshly initialised x2 ESRGAN (one RRDB,
// receptive radius 19) to dir and returns its path.
func tinySRCheckpoint(t *testing.T, dir string) string {
	t.Helper()
	cfg, err := models.DefaultConfig(models.ESRGAN, datasets.Shape{C: 3, H: 16, W: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options = map[string]string{"scale": "2", "blocks": "1", "gc": "2", "pretrain": "1"}
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.NewSet("toy", datasets.Shape{C: 3, H: 16, W: 16}, make([]uint8, 2*3*16*16), make([]int, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sr.safetensors")
	if err := ckpt.Save(p, c); err != nil {
		t.Fatal(err)
	}
	return p
}

// upscale --tile with a pad of the receptive radius writes the float32
// outputs of untiled upscaling, to the bit; bad tile flags are usage
// errors.
func TestUpscaleTile(t *testing.T) {
	dir := t.TempDir()
	ck := tinySRCheckpoint(t, dir)
	in := writePhotos(t, 24, 20)
	var npy [2][]byte
	for i, tile := range [][]string{nil, {"--tile", "8", "--tile-pad", "19"}} {
		p := filepath.Join(dir, "out"+string(rune('a'+i))+".npy")
		args := append([]string{"upscale", "--checkpoint", ck, "--in", in, "--lr", "--out", filepath.Join(dir, "out"), "--npy", p}, tile...)
		mustRun(t, args...)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		npy[i] = b
	}
	if !bytes.Equal(npy[0], npy[1]) || len(npy[0]) < 2*3*40*48*4 {
		t.Errorf("tiled outputs (%d bytes) differ from untiled (%d bytes)", len(npy[1]), len(npy[0]))
	}
	for _, bad := range [][]string{{"--tile", "-1"}, {"--tile", "8", "--tile-pad", "-2"}} {
		args := append([]string{"upscale", "--checkpoint", ck, "--in", in, "--lr", "--out", filepath.Join(dir, "bad")}, bad...)
		_, errOut, code := runCLI(t, "", args...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, bad[len(bad)-2]) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line naming the flag", bad, code, errOut)
		}
	}
}

// deploy-compare --in judges an image map's rows by PSNR and SSIM
// against FP32 (and Y-PSNR with --hr); a missing or empty folder is a
// usage error naming it.
func TestDeployCompareImages(t *testing.T) {
	dir := t.TempDir()
	ck := tinySRCheckpoint(t, dir)
	in := writePhotos(t, 12, 11)
	hr := filepath.Join(dir, "hr")
	if err := os.Mkdir(hr, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"pa.png", "pb.png"} {
		if err := imaging.Save(image.NewNRGBA(image.Rect(0, 0, 24, 22)), filepath.Join(hr, n)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "table")
	stdout := mustRun(t, "deploy-compare", "--checkpoint", ck, "--in", in, "--hr", hr, "--out", out, "--bits", "4", "--search-n", "2")
	for _, want := range []string{"| FP32 | float32 | – | ∞ | 1.0000 |", "Y-PSNR vs HR (dB, shave 2)", "| P4+ | `posit(4,0)` |", "outputs of 7 rows"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"deploy.md", "deploy.csv", "search.csv", "outputs/FP32/pa.png", "outputs/P4/pb.png"} {
		if !exists(filepath.Join(out, f)) {
			t.Errorf("no %s", f)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{filepath.Join(dir, "missing"), empty} {
		_, errOut, code := runCLI(t, "", "deploy-compare", "--checkpoint", ck, "--in", bad, "--out", filepath.Join(dir, "t2"))
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "--in") || !strings.Contains(errOut, bad) {
			t.Errorf("--in %s: exit %d, stderr %q; want 2 and one line naming the folder", bad, code, errOut)
		}
	}
	if exists(filepath.Join(dir, "t2")) {
		t.Error("a failed deploy-compare left its new output folder behind")
	}
}
