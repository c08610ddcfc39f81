package models_test

import (
	"fmt"
	"log"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// The FID of each direction of a CycleGAN trained on the mnist-fashion
// toy (positgan train --model cyclegan --out cyc/fp32), with its
// generators run in posit8+ instead of the policy they were trained in:
// 2000 translated test images against 2000 real ones of the target
// domain, judged by LeNet-Fashion (A→B) and LeNet-MNIST (B→A).
func ExampleTranslationFID() {
	c, err := ckpt.Load("cyc/fp32/checkpoint.safetensors")
	if err != nil {
		log.Fatal(err)
	}
	pol, err := policy.Parse("posit8+")
	if err != nil {
		log.Fatal(err)
	}
	for _, dir := range []string{models.AtoB, models.BtoA} {
		fid, metric, err := models.TranslationFID{Dataset: "mnist-fashion", Direction: dir, N: 2000, Seed: 1, Policy: pol}.Measure(c)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %s %.2f\n", dir, metric, fid)
	}
}
