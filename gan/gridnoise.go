package gan

import "math/rand/v2"

// GridNoise returns the latent vectors and labels of a grid of n images
// drawn with seed, as positgan sample and generate draw them (same seed,
// same images, from a checkpoint or its export): n images in a square
// grid or, for a conditional generator and class -1, one row per class,
// n rounded up to a multiple of the classes; class >= 0 draws a square
// grid of that class only. rows and cols are the grid's shape.
func GridNoise(spec GeneratorSpec, n int, seed uint64, class int) (z []float32, labels []int, rows, cols int) {
	total := n
	if class >= 0 {
		uncond := spec
		uncond.Classes = 0
		rows, cols = GridShape(uncond, n) // a square grid of one class
	} else {
		rows, cols = GridShape(spec, n)
		if spec.Classes > 0 {
			total = rows * cols
		}
	}
	r := rand.New(rand.NewPCG(seed, 0x5a4d91e))
	z = make([]float32, total*spec.ZSize())
	for i := range z {
		z[i] = float32(r.NormFloat64())
	}
	if spec.Classes > 0 {
		labels = make([]int, total)
		for i := range labels {
			labels[i] = i / cols
			if class >= 0 {
				labels[i] = class
			}
		}
	}
	return z, labels, rows, cols
}
