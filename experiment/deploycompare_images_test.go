package experiment_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disintegration/imaging"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// freshCheckpoint returns the checkpoint of model cfg as initialised
// (seed 1), trained on nothing.
func freshCheckpoint(t *testing.T, cfg models.Config, data ...datasets.Dataset) *ckpt.Checkpoint {
	t.Helper()
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, data, gan.Options{Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tinySR returns a freshly initialised x2 ESRGAN: one RRDB, 4 features.
func tinySR(t *testing.T) *ckpt.Checkpoint {
	cfg, err := models.DefaultConfig(models.ESRGAN, datasets.Shape{C: 3, H: 16, W: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options = map[string]string{"scale": "2", "blocks": "1", "gc": "2", "pretrain": "1"}
	ds, err := datasets.NewSet("toy", datasets.Shape{C: 3, H: 16, W: 16}, make([]uint8, 2*3*16*16), make([]int, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	return freshCheckpoint(t, cfg, ds)
}

// tinyCycleGAN returns a freshly initialised RGB CycleGAN on 12×12 images:
// one residual block, 4 features.
func tinyCycleGAN(t *testing.T) *ckpt.Checkpoint {
	sh := datasets.Shape{C: 3, H: 12, W: 12}
	cfg, err := models.DefaultConfig(models.CycleGAN, sh, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options["blocks"] = "1"
	var data []datasets.Dataset
	for i := range 2 {
		pix := make([]uint8, 4*sh.Size())
		for k := range pix {
			pix[k] = uint8(k*(7+i) + k/5)
		}
		ds, err := datasets.NewSet("toy", sh, pix, make([]int, 4), nil)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, ds)
	}
	return freshCheckpoint(t, cfg, data...)
}

// writeImages writes an image of each size to dir as <name>.png, and
// returns dir.
func writeImages(t *testing.T, dir string, sizes map[string]image.Point) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, sz := range sizes {
		img := image.NewNRGBA(image.Rect(0, 0, sz.X, sz.Y))
		for y := range sz.Y {
			for x := range sz.X {
				img.Set(x, y, color.NRGBA{uint8(40 + x*150/sz.X), uint8(200 - y*120/sz.Y), uint8((x * y * 7) % 256), 255})
			}
		}
		if err := imaging.Save(img, filepath.Join(dir, name+".png")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// psnrFiles is the mean over names of the PSNR (peak 255, all channels)
// of dir/a/<name>.png against dir/b/<name>.png, from the definition.
func psnrFiles(t *testing.T, a, b string, names []string) float64 {
	t.Helper()
	mean := 0.0
	for _, n := range names {
		ia, err := imaging.Open(filepath.Join(a, n+".png"))
		if err != nil {
			t.Fatal(err)
		}
		ib, err := imaging.Open(filepath.Join(b, n+".png"))
		if err != nil {
			t.Fatal(err)
		}
		na, nb := imaging.Clone(ia), imaging.Clone(ib)
		sum, count := 0.0, 0
		for i := range na.Pix {
			if i%4 == 3 {
				continue
			}
			d := float64(na.Pix[i]) - float64(nb.Pix[i])
			sum += d * d
			count++
		}
		mean += 10 * math.Log10(255*255/(sum/float64(count))) / float64(len(names))
	}
	return mean
}

// A super-resolution generator's deployment table is judged on the
// user's images: FP32 against itself is +Inf dB and SSIM 1, a 4-bit row
// is worse, its PSNR is that of the outputs it writes, and with ground
// truth every row has a Y-PSNR.
func TestDeployCompareSuperResolution(t *testing.T) {
	dir := t.TempDir()
	in := writeImages(t, filepath.Join(dir, "lr"), map[string]image.Point{"a": {12, 10}, "b": {9, 11}})
	hr := writeImages(t, filepath.Join(dir, "hr"), map[string]image.Point{"a": {24, 20}, "b": {18, 22}})
	var log bytes.Buffer
	tab, err := experiment.DeployCompare(context.Background(), tinySR(t), experiment.DeployOptions{In: in, HR: hr, Bits: []int{4}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Map != "upscale" || tab.Scale != 2 || !tab.HR || tab.N != 2 {
		t.Fatalf("table of map %q, scale %d, HR %v, %d images", tab.Map, tab.Scale, tab.HR, tab.N)
	}
	labels := []string{}
	rows := map[string]experiment.DeployRow{}
	for _, r := range tab.Rows {
		labels = append(labels, r.Label)
		rows[r.Label] = r
	}
	if len(labels) != 7 || labels[0] != "FP32" || labels[1] != "P8" || labels[2] != "P8+" || !strings.HasPrefix(labels[3], "FP8 ") ||
		labels[4] != "P4" || labels[5] != "P4+" || !strings.HasPrefix(labels[6], "FP4 ") {
		t.Fatalf("rows %q, want FP32, P8, P8+, FP8 <split>, P4, P4+, FP4 <split>", labels)
	}
	fp32 := rows["FP32"]
	if !math.IsInf(fp32.PSNR, 1) || fp32.SSIM != 1 || math.IsNaN(fp32.YPSNR) || math.IsInf(fp32.YPSNR, 0) {
		t.Errorf("FP32 row: PSNR %g, SSIM %g, Y-PSNR %g; want +Inf, 1 and a finite Y-PSNR", fp32.PSNR, fp32.SSIM, fp32.YPSNR)
	}
	p4 := rows["P4"]
	if !(p4.PSNR < 100) || !(p4.SSIM < 1) || math.IsNaN(p4.YPSNR) {
		t.Errorf("P4 row: PSNR %g, SSIM %g, Y-PSNR %g; want below FP32's", p4.PSNR, p4.SSIM, p4.YPSNR)
	}
	out := t.TempDir()
	if _, err := tab.WriteFiles(out); err != nil {
		t.Fatal(err)
	}
	if got, want := p4.PSNR, psnrFiles(t, filepath.Join(out, "outputs", "P4"), filepath.Join(out, "outputs", "FP32"), []string{"a", "b"}); math.Abs(got-want) > 1e-9 {
		t.Errorf("P4 PSNR %.12g, the files it wrote give %.12g", got, want)
	}
	md, err := os.ReadFile(filepath.Join(out, "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"PSNR vs FP32 (dB), 2 images", "SSIM vs FP32", "Y-PSNR vs HR (dB, shave 2)", "| FP32 | float32 | – | ∞ | 1.0000 |"} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("deploy.md lacks %q:\n%s", s, md)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "deploy.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(csv, []byte("model,map,row,bits,format,weight_biases,act_biases,images,psnr_vs_fp32_db,ssim_vs_fp32,ypsnr_vs_hr_db,")) || bytes.Count(csv, []byte("\n")) != 8 {
		t.Errorf("deploy.csv:\n%s", csv)
	}
}

// A CycleGAN's table: FP32 is +Inf dB and SSIM 1 against itself, a
// narrow row below, and no Y-PSNR.
func TestDeployCompareTranslation(t *testing.T) {
	in := writeImages(t, t.TempDir(), map[string]image.Point{"x": {8, 8}, "y": {16, 12}, "z": {8, 8}})
	tab, err := experiment.DeployCompare(context.Background(), tinyCycleGAN(t), experiment.DeployOptions{In: in, Bits: []int{4}, Map: "BtoA", SearchN: 2})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Map != "BtoA" || tab.HR || tab.N != 3 || tab.SearchN != 2 {
		t.Fatalf("table of map %q, HR %v, %d images, search on %d", tab.Map, tab.HR, tab.N, tab.SearchN)
	}
	fp32, p4 := tab.Rows[0], tab.Rows[4]
	if fp32.Label != "FP32" || !math.IsInf(fp32.PSNR, 1) || fp32.SSIM != 1 || !math.IsNaN(fp32.YPSNR) {
		t.Errorf("row %s: PSNR %g, SSIM %g, Y-PSNR %g; want FP32, +Inf, 1, NaN", fp32.Label, fp32.PSNR, fp32.SSIM, fp32.YPSNR)
	}
	if p4.Label != "P4" || !(p4.PSNR < 100) || !(p4.SSIM < 1) {
		t.Errorf("row %s: PSNR %g, SSIM %g; want P4 below FP32", p4.Label, p4.PSNR, p4.SSIM)
	}
	if b := fp32.Outputs[0].Bounds(); b.Dx() != 12 || b.Dy() != 12 {
		t.Errorf("outputs %v, want the model's 12x12", b)
	}
}

// Bad inputs are refused before any row is measured, with one line naming
// the path and the option.
func TestDeployCompareImageErrors(t *testing.T) {
	dir := t.TempDir()
	sr, cg := tinySR(t), tinyCycleGAN(t)
	lr := writeImages(t, filepath.Join(dir, "lr"), map[string]image.Point{"a": {12, 10}})
	badHR := writeImages(t, filepath.Join(dir, "badhr"), map[string]image.Point{"a": {25, 20}})
	otherHR := writeImages(t, filepath.Join(dir, "otherhr"), map[string]image.Point{"q": {24, 20}})
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		c      *ckpt.Checkpoint
		o      experiment.DeployOptions
		option string
		want   []string
	}{
		{sr, experiment.DeployOptions{In: missing}, "In", []string{missing}},
		{sr, experiment.DeployOptions{In: empty}, "In", []string{"no images in " + empty}},
		{sr, experiment.DeployOptions{In: lr, HR: badHR}, "HR", []string{filepath.Join(badHR, "a.png"), "25x20", "want 24x20"}},
		{sr, experiment.DeployOptions{In: lr, HR: otherHR}, "HR", []string{"no ground truth named a"}},
		{sr, experiment.DeployOptions{In: lr, HR: missing}, "HR", []string{missing}},
		{sr, experiment.DeployOptions{In: lr, Map: "AtoB"}, "Map", []string{`"AtoB"`, "upscale"}},
		{sr, experiment.DeployOptions{}, "In", []string{"maps images to images"}},
		{cg, experiment.DeployOptions{In: lr, HR: lr}, "HR", []string{"does not enlarge"}},
		{cg, experiment.DeployOptions{In: filepath.Join(lr, "a.png")}, "In", []string{"want a folder"}},
		{cg, experiment.DeployOptions{HR: lr}, "HR", []string{"without input images"}},
	} {
		_, err := experiment.DeployCompare(context.Background(), tc.c, tc.o)
		var oe *experiment.DeployOptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%+v: error %v, want one about %s", tc.o, err, tc.option)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%+v: error %q, want one line naming %q", tc.o, err, w)
			}
		}
	}
}
