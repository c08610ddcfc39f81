package lns_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/positgan/positgan/datasets"
	_ "github.com/positgan/positgan/examples/lns" // registers lns(n,f)
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// Importing the package registers "lns": quant.Parse then knows lns(n,f),
// and rounding comes from its Encode and Decode alone.
func Example() {
	f, err := quant.Parse("lns(8,2)")
	if err != nil {
		panic(err)
	}
	// Values are 2^(L/4): 1, 1.189, 1.414, 1.682, 2, ...
	fmt.Println(f, f.Bits(), f.Round(1.3), f.Round(-3), f.Round(1e9), f.Round(1e-9))
	// Output: lns(8,2) 8 1.4142135 -2.828427 55108.99 0
}

// Train the conditional GAN for two steps with weights, activations and
// gradients in lns(8,2), through a policy file — as `positgan train
// --policy lns.toml` would in a program that imports this package.
func Example_train() {
	dir, err := os.MkdirTemp("", "lns")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "lns.toml")
	toml := "name = \"lns8\"\npreset = \"fp32\"\n\n[default]\nall = \"lns(8,2)\"\n"
	if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
		panic(err)
	}
	pol, err := policy.Parse(file)
	if err != nil {
		panic(err)
	}

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
	t, err := gan.NewTrainer(m, []datasets.Dataset{data}, gan.Options{Policy: pol, Batch: 8, Seed: 1})
	if err != nil {
		panic(err)
	}
	finite := true
	for range 2 {
		st, err := t.TrainStep()
		if err != nil {
			panic(err)
		}
		for _, l := range st.Losses {
			finite = finite && !math.IsNaN(l) && !math.IsInf(l, 0)
		}
	}
	fmt.Println(t.Step(), t.Formats("G/fc1").Weight, t.Formats("D/fc1").Err, finite)
	// Output: 2 lns(8,2) lns(8,2) true
}
