package models_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// squares returns n 8x8 images of a bright square at a random place.
func squares(t *testing.T, n int) datasets.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	pix := make([]uint8, n*64)
	for i := 0; i < n; i++ {
		x0, y0 := rng.IntN(5), rng.IntN(5)
		for y := y0; y < y0+3; y++ {
			for x := x0; x < x0+3; x++ {
				pix[i*64+y*8+x] = 230
			}
		}
	}
	s, err := datasets.NewSet("squares", datasets.Shape{C: 1, H: 8, W: 8}, pix, make([]int, n), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The model of newmodel_test.go, defined outside package models with
// exported API only, trains through the generic trainer under a
// quantization policy that names its layers, writes a run's outputs and
// resumes bit for bit from its checkpoint.
func TestModelInOneFile(t *testing.T) {
	if !slices.Contains(models.Names(), "lsgan-mini") {
		t.Fatalf("lsgan-mini not registered: %v", models.Names())
	}
	data := squares(t, 48)
	cfg, err := models.DefaultConfig("lsgan-mini", data.Shape(), 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Options["blocks"] = "2"
	pol, err := policy.Parse("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	if err := pol.Apply("G/res2/*:weight=posit(6,1)"); err != nil {
		t.Fatal(err)
	}
	opt := gan.Options{Policy: pol, Batch: 16, Seed: 7, LR: 1e-3}
	newTrainer := func() *gan.Trainer {
		m, err := models.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := gan.NewTrainer(m, []datasets.Dataset{data}, opt)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	tr := newTrainer()
	if got, want := tr.Formats("G/res2/conv1").Weight.String(), "posit(6,1)"; got != want {
		t.Errorf("G/res2/conv1 weight format %s, want %s", got, want)
	}
	var layers []string
	for _, g := range tr.Nets().Groups {
		layers = append(layers, nn.Layers(g.Net)...)
	}
	if want := []string{"G/fc", "G/res1/conv1", "G/res1/conv2", "G/res2/conv1", "G/res2/conv2", "G/out", "D/conv1", "D/dense", "D/conv2"}; !slices.Equal(layers, want) {
		t.Errorf("layers %v, want %v", layers, want)
	}
	if got := tr.LogColumns(); !slices.Equal(got, []string{"d_loss", "g_loss", "d_real", "loss_scale_d", "loss_scale_g", "skipped_d", "skipped_g"}) {
		t.Errorf("log columns %v", got)
	}

	// Straight: 6 steps. Split: 3 steps, Run writes the outputs, resume, 3 more.
	var want []gan.StepStats
	for i := 0; i < 6; i++ {
		st, err := tr.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range st.Losses {
			if math.IsNaN(l) || math.IsInf(l, 0) {
				t.Fatalf("step %d: losses %v", st.Step, st.Losses)
			}
		}
		want = append(want, st)
	}
	if want[0].Losses[0] == want[5].Losses[0] {
		t.Errorf("D loss did not move: %v", want[0].Losses)
	}
	dir := t.TempDir()
	first := newTrainer()
	if _, err := first.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 3}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"log.csv", "samples.png", "checkpoint.safetensors"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	c, err := ckpt.Load(filepath.Join(dir, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := models.Resume(c, data)
	if err != nil {
		t.Fatal(err)
	}
	for i := 3; i < 6; i++ {
		st, err := resumed.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(st, want[i]) {
			t.Errorf("step %d: resumed %+v, straight %+v", i+1, st, want[i])
		}
	}
	sp, rp := tr.Nets().Params(), resumed.Nets().Params()
	for i := range sp {
		if !slices.Equal(sp[i].Data(), rp[i].Data()) {
			t.Errorf("%s differs after resuming", sp[i].Name)
		}
	}

	// The trained generator, loaded from its checkpoint alone, makes images.
	nets, _, err := models.Load(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gan.GenerateSet(nets, 5, 1, 0, gan.SampleOptions{})
	if err != nil || g.Len() != 5 {
		t.Fatalf("GenerateSet: %v", err)
	}
}
