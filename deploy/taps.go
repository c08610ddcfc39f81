package deploy

import "github.com/positgan/positgan/nn"

// GenerateTaps is Generate that also calls taps, after the run, with the
// quantized layers' taps (nn.Tap: each layer's input), as the deployment
// table takes the histograms of the activations every layer is fed
// (experiment.DeployCompare).
func (m *Model) GenerateTaps(z []float32, labels []int, taps func([]nn.Tap)) ([]float32, error) {
	return m.forward(z, labels, taps)
}
