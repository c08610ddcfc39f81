package deploy

import "github.com/positgan/positgan/gan"

// GenerateGrid generates the grid of n images whose latent vectors and
// labels gan.GridNoise draws with seed for class (-1: one row per class
// of a conditional model), as positgan generate does. It returns the
// images, (N, C, H, W) in [-1, 1], and the grid's rows and columns, for
// gan.WriteGrid.
func (m *Model) GenerateGrid(n int, seed uint64, class int) (images []float32, rows, cols int, err error) {
	z, labels, rows, cols := gan.GridNoise(m.Spec(), n, seed, class)
	images, err = m.Generate(z, labels)
	return images, rows, cols, err
}

// WriteGoldenHex writes the memory files and golden vectors (WriteHex) of
// the first latent vector gan.FixedNoise draws with seed, for class (not
// used by a model without classes), as positgan export --hex does: the
// vectors a hardware generator is checked against.
func (m *Model) WriteGoldenHex(dir string, seed uint64, class int) error {
	spec := m.Spec()
	z, _ := gan.FixedNoise(spec, seed, 1, 1)
	label := -1
	if spec.Classes > 0 {
		label = class
	}
	return m.WriteHex(dir, z, label)
}
