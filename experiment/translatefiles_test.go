package experiment_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// TranslationSource takes the first n test images of a data set, named
// test_00000.png, ...; WriteImages writes them under those names; only a
// model that maps images to images of their size Translates.
func TestTranslationSource(t *testing.T) {
	data := writeIDXSplits(t, filepath.Join(t.TempDir(), "data"), 12)
	sh := datasets.Shape{C: 1, H: 16, W: 16}
	src, names, err := experiment.TranslationSource(data, 5, sh)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 5 || len(names) != 5 || names[4] != "test_00004.png" || src.Shape() != sh {
		t.Fatalf("TranslationSource: %d images of %v, names %v", src.Len(), src.Shape(), names)
	}
	imgs := make([]float32, 5*sh.Size())
	for i := range 5 {
		src.Image(imgs[i*sh.Size():(i+1)*sh.Size()], i)
	}
	out := t.TempDir()
	if err := experiment.WriteImages(out, imgs, sh, names); err != nil {
		t.Fatal(err)
	}
	back, got, err := experiment.TranslationSource(out, 0, sh)
	if err != nil || back.Len() != 5 || got[0] != "test_00000.png" {
		t.Errorf("the written folder as a source: %v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(out, "test_00004.png")); err != nil {
		t.Error(err)
	}

	cfg, err := models.DefaultConfig(models.CycleGAN, datasets.Shape{C: 1, H: 28, W: 28}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !experiment.Translates(cfg, models.AtoB) || experiment.Translates(cfg, "upscale") {
		t.Error("Translates: wrong for cyclegan")
	}
	if cfg, err = models.DefaultConfig(models.DCGAN, datasets.Shape{C: 1, H: 28, W: 28}, 0); err != nil || experiment.Translates(cfg, models.AtoB) {
		t.Errorf("Translates: dcgan translates (%v)", err)
	}
}

// Translations in fp32 compared with the fp32 translations are the same
// images; in posit8 they are close.
func TestCompareToFP32(t *testing.T) {
	data := writeIDXSplits(t, filepath.Join(t.TempDir(), "data"), 8)
	ds, err := datasets.Load(data, datasets.Options{Split: datasets.Train, Height: 16, Width: 16})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := models.DefaultConfig(models.CycleGAN, ds.Shape(), 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg.Options["blocks"] = "1"
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds, ds}, gan.Options{Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	src, names, err := experiment.TranslationSource(data, 3, ds.Shape())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fp32", "posit8"} {
		pol, err := policy.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := models.Translate(c, pol, models.GroupGAB, src, 2)
		if err != nil {
			t.Fatal(err)
		}
		cmp, err := experiment.CompareToFP32(c, models.GroupGAB, src, 2, got, names)
		if err != nil {
			t.Fatal(err)
		}
		if len(cmp.Images) != 3 || (name == "fp32") != (cmp.Identical == 3) || !(cmp.MeanSSIM > 0.5) {
			t.Errorf("%s: %d images, %d identical, mean SSIM %v", name, len(cmp.Images), cmp.Identical, cmp.MeanSSIM)
		}
	}
}
