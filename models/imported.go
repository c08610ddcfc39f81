package models

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// imported is what the generators imported from PyTorch share: one network
// and no discriminator, so they run (sample, translate, upscale, export,
// deploy-compare) but do not train; scale histogram inspects them with a
// stand-in loss. Each embeds one, naming its network's group and input.
type imported struct {
	name, trainInstead string // the registered name and the model to train instead
	discriminators     string // "a discriminator" or "discriminators", for Check's error
	group, input       string // the generator's parameter group and its input
	// images: the input is an image, filled with the data's first batch
	// when there is data (feedsData) and else uniform in [-1, 1]; otherwise
	// it is noise, N(0, 1).
	images, feedsData bool
}

func (m imported) Check([]datasets.Dataset) error {
	return fmt.Errorf("models: %s is an imported generator without %s: it runs, it does not train (train %s instead)",
		m.name, m.discriminators, m.trainInstead)
}

// Feed fills the input for inspection: the data's images where the model
// takes images and there is data, else uniform noise in [-1, 1] for image
// inputs and normal noise for latent ones.
func (m imported) Feed(in gan.Inputs, data []gan.Batch, noise *rand.Rand) {
	x := in[m.input]
	switch {
	case m.images && m.feedsData && data != nil:
		copy(x, data[0].X)
	case m.images:
		for i := range x {
			x[i] = float32(2*float64(noise.Float64()) - 1) // float64(…): no arm64 FMA, same bits as amd64
		}
	default:
		for i := range x {
			x[i] = float32(noise.NormFloat64())
		}
	}
}

// Updates has the one update that scale histogram inspects. Training is
// refused by Check: there is no discriminator to train against.
func (m imported) Updates() []gan.Update {
	return []gan.Update{{Name: "G", Groups: []string{m.group}}}
}

func (m imported) Metrics() []string { return nil }

// Loss is a stand-in, ½·mean(G(x)²), for inspection only: its gradients
// give scale histogram errors to show at every layer.
func (m imported) Loss(u *gan.Graph) (*gorgonia.Node, error) {
	x, err := u.Input(m.input)
	if err != nil {
		return nil, err
	}
	y, err := u.Forward(m.group, x, nil)
	if err != nil {
		return nil, err
	}
	return nn.MSETarget(y, 0, u.LossScale())
}
