package models_test

// This file is a whole model with an evaluation of its own, written as a
// contributor would write one: a paired image-to-image model (a small
// denoiser) whose generator maps a noisy image to the clean one, and
// which a sweep measures by the PSNR of its outputs against the clean
// images instead of an FID. It uses only exported API, registers itself,
// and needs no edit anywhere else: experiment.Compare finds its Evaluator
// through the registry, models.Translate runs its generator through
// ImageMaps. docs/adding-a-model.md walks through it; the test in
// newmodel_eval_train_test.go trains it and measures it.

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
)

// 1. Register the model, with its Evaluator.
func init() {
	models.Register(models.Spec{
		Name:    "denoise-mini",
		Summary: "a small denoiser measured by PSNR (the second example of docs/adding-a-model.md)",
		Default: func(img datasets.Shape, _ int) models.Config {
			return models.Config{Channels: img.C, Height: img.H, Width: img.W, Features: 8,
				Options: map[string]string{"noise": "25"}}
		},
		Options: map[string]string{"noise": "standard deviation of the Gaussian noise, in 8-bit levels"},
		Check: func(c models.Config) error {
			_, err := c.Int("noise", 25)
			return err
		},
		New: func(c models.Config) (gan.Model, error) {
			level, err := c.Int("noise", 25)
			if err != nil {
				return nil, err
			}
			return &denoiser{cfg: c, sigma: float32(level) / 127.5}, nil
		},
		Evaluator: func() models.Evaluator { return denoiseEval{} },
	})
}

type denoiser struct {
	cfg   models.Config
	sigma float32 // of the noise, in the [-1, 1] units of the images
}

func (m *denoiser) Config() string                      { return m.cfg.String() }
func (m *denoiser) Check(data []datasets.Dataset) error { return models.CheckData(m.cfg, data) }

// 2. One network, G: the noisy image plus a correction it learns.
func (m *denoiser) Build(s *nn.Scope) ([]gan.Group, error) {
	c, F := m.cfg, m.cfg.Features
	g := s.Sub("G")
	net := nn.Residual(nn.Seq(
		g.Conv("conv1", c.Channels, F, 3, 1, 1), g.ReLU(),
		g.Conv("conv2", F, c.Channels, 3, 1, 1)))
	return []gan.Group{{Name: "G", Net: net}}, nil
}

// 3. A training pair is a clean image and the same image with noise
// drawn from the step's noise source.
func (m *denoiser) Inputs(batch int) []gan.Input {
	sh := tensor.Shape{batch, m.cfg.Channels, m.cfg.Height, m.cfg.Width}
	return []gan.Input{{Name: "clean", Shape: sh}, {Name: "noisy", Shape: sh}}
}

func (m *denoiser) Feed(in gan.Inputs, data []gan.Batch, noise *rand.Rand) {
	if data != nil {
		copy(in["clean"], data[0].X)
	}
	for i, v := range in["clean"] {
		in["noisy"][i] = v + m.sigma*float32(noise.NormFloat64())
	}
}

// 4. One update: G minimises the mean squared error to the clean image.
func (m *denoiser) Updates() []gan.Update { return []gan.Update{{Name: "G", Groups: []string{"G"}}} }

func (m *denoiser) Metrics() []string { return nil }

func (m *denoiser) Loss(u *gan.Graph) (*gorgonia.Node, error) {
	noisy, err := u.Input("noisy")
	if err != nil {
		return nil, err
	}
	clean, err := u.Input("clean")
	if err != nil {
		return nil, err
	}
	out, err := u.Forward("G", noisy, nil)
	if err != nil {
		return nil, err
	}
	return nn.MSELoss(out, clean, u.LossScale())
}

// 5. Inference and sample images: G maps noisy images to clean ones, of the same size.
// models.Translate(checkpoint, policy, "G", images, batch) runs it.
func (m *denoiser) ImageMaps() []models.ImageMap {
	return []models.ImageMap{{Name: "denoise", Group: "G", Scale: 1}}
}

// Visuals draws the sample grids of a run (gan.Visualizer): a row of
// clean images drawn with seed from the data, the same with noise, and
// what G makes of them.
func (m *denoiser) Visuals(nets *gan.Nets, data []datasets.Dataset, seed uint64) (image.Image, error) {
	sh := datasets.Shape{C: m.cfg.Channels, H: m.cfg.Height, W: m.cfg.Width}
	k := min(8, data[0].Len())
	s, err := datasets.Sample(data[0], k, seed)
	if err != nil {
		return nil, err
	}
	n := k * sh.Size()
	rows := make([]float32, 3*n)
	for i := range k {
		s.Image(rows[i*sh.Size():(i+1)*sh.Size()], i)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	for i, v := range rows[:n] {
		rows[n+i] = v + m.sigma*float32(rng.NormFloat64())
	}
	a, err := gan.NewApplier(nets, "G", []int{k, sh.C, sh.H, sh.W})
	if err != nil {
		return nil, err
	}
	if err := a.Apply(rows[2*n:], rows[n:2*n]); err != nil {
		return nil, err
	}
	return gan.Grid(rows, sh, 3, k), nil
}

// 6. Evaluation: the mean PSNR of the denoised test images against the
// clean ones, as the 8-bit images written to files.
type denoiseEval struct{}

// Data is the training split of the data set, one image per pair.
func (denoiseEval) Data(s models.EvalSettings) ([]datasets.Dataset, error) {
	ds, err := datasets.Load(s.Dataset, datasets.Options{Split: datasets.Train})
	if err != nil {
		return nil, err
	}
	return []datasets.Dataset{ds}, nil
}

func (denoiseEval) Metrics(models.EvalSettings) ([]string, error) { return []string{"PSNR (dB)"}, nil }

func (denoiseEval) Describe(s models.EvalSettings) string {
	return fmt.Sprintf("PSNR of %d denoised test images against the clean ones.", s.N)
}

func (denoiseEval) Evaluate(ctx context.Context, s models.EvalSettings, c *ckpt.Checkpoint) ([]float64, error) {
	cfg, err := models.ConfigOf(c)
	if err != nil {
		return nil, err
	}
	level, err := cfg.Int("noise", 25)
	if err != nil {
		return nil, err
	}
	test, err := datasets.Load(s.Dataset, datasets.Options{Split: datasets.Test, Channels: cfg.Channels, Height: cfg.Height, Width: cfg.Width})
	if err != nil {
		return nil, err
	}
	// The first N test images, with noise drawn with the sweep's seed:
	// the same pairs for every run.
	n, sh := min(s.N, test.Len()), test.Shape()
	clean, noisy := make([]float32, n*sh.Size()), make([]float32, n*sh.Size())
	for i := range n {
		test.Image(clean[i*sh.Size():(i+1)*sh.Size()], i)
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0))
	for i, v := range clean {
		noisy[i] = v + float32(level)/127.5*float32(rng.NormFloat64())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := models.Translate(c, nil, "G", gan.NewGenerated(gan.GeneratorSpec{Image: sh}, noisy, nil), 16)
	if err != nil {
		return nil, err
	}
	var sum float64
	for i := range n {
		p, err := eval.PSNR(pixels8(out[i*sh.Size():(i+1)*sh.Size()]), pixels8(clean[i*sh.Size():(i+1)*sh.Size()]), 255)
		if err != nil {
			return nil, err
		}
		sum += p
	}
	return []float64{sum / float64(n)}, nil
}

// pixels8 returns values in [-1, 1] as the 8-bit values of image files.
func pixels8(v []float32) []float32 {
	p := make([]float32, len(v))
	for i, x := range v {
		p[i] = float32(gan.Pixel8(x))
	}
	return p
}
