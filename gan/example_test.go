package gan_test

import (
	"fmt"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// Adam's first step moves every parameter by about the learning rate
// against the sign of its gradient, whatever the gradient's size; loss
// scaling (here 1024) is undone before the update.
func ExampleAdam() {
	a := gan.NewAdam([]int{3})
	p := []float32{1, -1, 0.5}
	g := []float32{0.5 * 1024, -2 * 1024, 1e-3 * 1024} // gradients times the loss scale
	a.Step([][]float32{p}, [][]float32{g}, 1024)
	fmt.Printf("%.6f %.6f %.6f (t=%d)\n", p[0], p[1], p[2], a.T)
	// Output: 0.999800 -0.999800 0.499800 (t=1)
}

// Train a small conditional GAN for two steps under the posit8+ policy:
// the trainer runs the model's updates (D, then G) and reports each
// update's loss and the model's metrics, in the order of LogColumns.
func ExampleNewTrainer() {
	cfg := models.Config{Arch: models.CGAN, ZDim: 8, Classes: 2, Channels: 1, Height: 8, Width: 8, Features: 8}
	m, err := models.New(cfg)
	if err != nil {
		panic(err)
	}
	pix := make([]uint8, 32*64)
	for i := range pix {
		pix[i] = uint8(i * 37)
	}
	labels := make([]int, 32)
	for i := range labels {
		labels[i] = i % 2
	}
	data, err := datasets.NewSet("toy", datasets.Shape{C: 1, H: 8, W: 8}, pix, labels, nil)
	if err != nil {
		panic(err)
	}
	pol, err := policy.Parse("posit8+")
	if err != nil {
		panic(err)
	}
	t, err := gan.NewTrainer(m, []datasets.Dataset{data}, gan.Options{Policy: pol, Batch: 8, Seed: 1})
	if err != nil {
		panic(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := t.TrainStep(); err != nil {
			panic(err)
		}
	}
	fmt.Println(t.Step(), t.LogColumns())
	fmt.Println(t.Formats("G/fc1").Weight, t.Adam("G").T)
	// Output:
	// 2 [d_loss g_loss d_real d_fake loss_scale_d loss_scale_g skipped_d skipped_g]
	// posit(8,1,scale=4) 2
}
