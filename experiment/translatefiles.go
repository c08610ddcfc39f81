package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/imageio"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// Translates reports whether the model of configuration cfg maps images
// to images of their own size by the map named dir (models.ImageMapper),
// as positgan translate needs.
func Translates(cfg models.Config, dir string) bool {
	maps, err := models.MapsOf(cfg)
	return err == nil && slices.ContainsFunc(maps, func(m models.ImageMap) bool { return m.Name == dir && m.Scale == 1 })
}

// TranslationSource returns the images positgan translate --in names, of
// shape sh, and the file names their translations get: every image of a
// folder (datasets.IsImageFolder) under its own name, or the first n
// images of a data set's test split (mnist, fashion-mnist, an IDX
// directory), named test_00000.png, ...
func TranslationSource(in string, n int, sh datasets.Shape) (datasets.Dataset, []string, error) {
	opt := datasets.Options{Height: sh.H, Width: sh.W, Channels: sh.C}
	if datasets.IsImageFolder(in) {
		return datasets.LoadImages(in, opt)
	}
	opt.Split = datasets.Test
	ds, err := datasets.Load(in, opt)
	if err != nil {
		return nil, nil, err
	}
	first, err := datasets.First(ds, n)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, first.Len())
	for i := range names {
		names[i] = fmt.Sprintf("test_%05d.png", i)
	}
	return first, names, nil
}

// WriteImages writes images (N, C, H, W of shape sh, values in [-1, 1])
// to dir as the 8-bit files names (ImageOf), one per image.
func WriteImages(dir string, images []float32, sh datasets.Shape, names []string) error {
	for i, name := range names {
		if err := imageio.Save(filepath.Join(dir, name), ImageOf(images[i*sh.Size():(i+1)*sh.Size()], sh)); err != nil {
			return err
		}
	}
	return nil
}

// TranslateFiles translates src, whose file names are names
// (TranslationSource), by the generator group of checkpoint c run in pol
// (nil: the checkpoint's policy), batch images at a time, and writes each
// translation to the folder dir, made if missing, under its name
// (WriteImages). It returns the translations, (N, C, H, W) in [-1, 1],
// as the generator made them: for CompareToFP32 or a .npy file.
func TranslateFiles(c *ckpt.Checkpoint, pol *policy.Policy, group string, src datasets.Dataset, names []string, batch int, dir string) ([]float32, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	got, err := models.Translate(c, pol, group, src, batch)
	if err != nil {
		return nil, err
	}
	if err := WriteImages(dir, got, src.Shape(), names); err != nil {
		return nil, fmt.Errorf("translate: %w", err)
	}
	return got, nil
}

// CompareToFP32 translates src by the generator group of checkpoint c in
// fp32, batch images at a time, and compares got, its translations in
// another policy, with those (CompareTranslations), image by image:
// how the posit CycleGAN deployment study measures a policy.
func CompareToFP32(c *ckpt.Checkpoint, group string, src datasets.Dataset, batch int, got []float32, names []string) (TranslationComparison, error) {
	fp32, err := policy.Parse("fp32")
	if err != nil {
		return TranslationComparison{}, err
	}
	ref, err := models.Translate(c, fp32, group, src, batch)
	if err != nil {
		return TranslationComparison{}, err
	}
	return CompareTranslations(got, ref, src.Shape(), names)
}

// A NotTranslatorError is a checkpoint of a model that does not translate
// images (Translates) in the directions asked for.
type NotTranslatorError struct {
	Path string
	Arch string // the checkpoint's model
}

func (e *NotTranslatorError) Error() string {
	return fmt.Sprintf("experiment: %s holds a %s model, which does not translate images", e.Path, e.Arch)
}

// LoadTranslator loads the checkpoint at path and its model configuration,
// and checks that the model translates images by at least one of the maps
// dirs (Translates); if not, the error is a *NotTranslatorError.
func LoadTranslator(path string, dirs ...string) (*ckpt.Checkpoint, models.Config, error) {
	c, err := ckpt.Load(path)
	if err != nil {
		return nil, models.Config{}, err
	}
	cfg, err := models.ConfigOf(c)
	if err != nil {
		return nil, models.Config{}, err
	}
	if !slices.ContainsFunc(dirs, func(d string) bool { return Translates(cfg, d) }) {
		return nil, cfg, &NotTranslatorError{Path: path, Arch: cfg.Arch}
	}
	return c, cfg, nil
}
