package models_test

import (
	"fmt"
	"log"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/models"
)

// The figures of an ESRGAN checkpoint (positgan train --model esrgan) on
// the held-out images of sr-photos, beside the bicubic baseline, as
// positgan upscale prints them.
func ExampleUpscaler() {
	c, err := ckpt.Load("sr/fp32/checkpoint.safetensors")
	if err != nil {
		log.Fatal(err)
	}
	u, err := models.NewUpscaler(c, nil) // nil: the checkpoint's policy
	if err != nil {
		log.Fatal(err)
	}
	tests, err := models.SRTests("sr-photos", u.Scale())
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tests {
		sr, err := u.Apply(t.LR)
		if err != nil {
			log.Fatal(err)
		}
		s, err := models.ScoreSR(sr, t.HR, u.Scale())
		if err != nil {
			log.Fatal(err)
		}
		b, err := models.ScoreSR(t.Bicubic, t.HR, u.Scale())
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: Y-PSNR %.2f dB (bicubic %.2f dB), SSIM %.4f\n", t.Name, s.YPSNR, b.YPSNR, s.SSIM)
	}
}
