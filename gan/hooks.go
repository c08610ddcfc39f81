package gan

import (
	"fmt"
	"image"
	"math/rand/v2"
	"slices"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/internal/graphop"
	"github.com/positgan/positgan/nn"
)

// The optional interfaces below let a model do what some training
// procedures need beyond Model (CycleGAN needs all four); the trainer,
// checkpoints and Run use them when a model implements them. A model that
// implements none trains exactly as before.

// A Scheduler is a model whose learning rates change during a run.
type Scheduler interface {
	Model
	// LearningRate returns the Adam learning rate of group for the step
	// about to run (counting from 0) of a run planned to last steps
	// steps (Options.Steps; 0 if not planned), base being Options.LR.
	LearningRate(group string, step, steps int, base float64) float64
}

// LinearDecay returns the learning rate of the schedule of Zhu et al.'s
// CycleGAN: base for the first half of a run of steps steps, then
// decaying linearly towards zero (base/(steps - steps/2) at the last
// step). With steps <= 0 it is base throughout.
func LinearDecay(step, steps int, base float64) float64 {
	half := steps / 2
	if steps <= 0 || step < half {
		return base
	}
	return base * float64(max(steps-step, 0)) / float64(steps-half)
}

// A Stateful model has training state of its own (CycleGAN's pools of
// generated images) that checkpoints must hold for a resumed run to take
// the same steps.
type Stateful interface {
	Model
	// SaveState returns the state as tensors by name. The tensors must
	// not be empty and are not modified afterwards.
	SaveState() map[string]ckpt.Tensor
	// LoadState restores a state SaveState returned.
	LoadState(map[string]ckpt.Tensor) error
}

// stateTensor is the checkpoint name of a Stateful model's state tensor.
const stateTensor = "model.state/"

// A Relay is a model whose updates pass values to the later updates of
// the same step: Loss declares nodes with Graph.Output, and after each
// update runs the trainer calls AfterUpdate with their values, which it
// may use to rewrite inputs the later updates read (CycleGAN feeds its
// discriminators from a pool of the images its generators made).
type Relay interface {
	Model
	// AfterUpdate gets the values of the outputs update u declared (to
	// be copied; they are overwritten by the next run, and out is the
	// same map at every step), the step's inputs
	// and its noise source (the one Feed drew from, to draw from in a
	// fixed order).
	AfterUpdate(u Update, out map[string][]float32, in Inputs, noise *rand.Rand)
}

// Output makes the value of n available to Relay.AfterUpdate as out[name]
// after every run of the update.
func (u *Graph) Output(name string, n *gorgonia.Node) {
	u.outputs = append(u.outputs, output{name, n})
}

type output struct {
	name string
	node *gorgonia.Node
}

// A Visualizer is a model that draws its own sample images (a model
// that does not make images from noise: see Generator). Run writes
// them as the sample grids.
type Visualizer interface {
	Model
	// Visuals draws the sample image of nets (in evaluation mode; they
	// keep changing during training) from the run's data sets, the same
	// images of the data for every call with the same seed.
	Visuals(nets *Nets, data []datasets.Dataset, seed uint64) (image.Image, error)
}

// Applier runs one network of a model alone on batches of a fixed shape,
// in its own graph over the networks' parameter tensors, in evaluation
// mode: an image-to-image generator, a feature network.
type Applier struct {
	in, out []float32
	node    *gorgonia.Node
	m       *graphexec.Program
}

// NewApplier returns an applier of the network of group net to inputs of
// the given shape (batch first).
func NewApplier(nets *Nets, net string, shape []int) (a *Applier, err error) {
	orig := nets.Net(net)
	if orig == nil {
		return nil, fmt.Errorf("gan: the model has no network %q", net)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gan: building the graph of %s: %v", net, r)
		}
	}()
	g := gorgonia.NewGraph()
	x, in := input(g, "x", slices.Clone(shape))
	m := orig.Share(g)
	nn.SetTraining(m, nets.BatchStats)
	a = &Applier{in: in}
	if a.node, err = m.Forward(&nn.Pass{FreezeStats: true}, x); err != nil {
		return nil, fmt.Errorf("gan: %s: %w", net, err)
	}
	if a.m, err = graphexec.Compile(a.node); err != nil {
		return nil, fmt.Errorf("gan: %s: %w", net, err)
	}
	// Only the output is read: the layers' results are lent on once
	// read, so a run holds what PyTorch's would, not the whole network's.
	a.m.Recycle()
	return a, nil
}

// OutSize returns the number of values Apply writes.
func (a *Applier) OutSize() int { return a.node.Shape().TotalSize() }

// Apply writes to dst the network's output for x (the batch of the
// applier's shape).
func (a *Applier) Apply(dst, x []float32) error {
	if len(x) != len(a.in) || len(dst) != a.OutSize() {
		panic("gan: Apply: slice lengths do not match the applier")
	}
	copy(a.in, x)
	if err := a.m.Run(); err != nil {
		return fmt.Errorf("gan: applying the network: %w", err)
	}
	copy(dst, a.node.Value().Data().([]float32))
	return nil
}

// valuesOf returns the float32 values of n, a scalar as one value.
func valuesOf(n *gorgonia.Node) []float32 { return graphop.Float32s(n.Value()) }
