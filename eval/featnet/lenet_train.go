package featnet

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// TrainOptions configure LeNet training. Zero fields take the defaults.
type TrainOptions struct {
	Epochs int     // passes over the training set; default 1
	Batch  int     // default 64
	LR     float64 // Adam learning rate; default 1e-3 (β1 0.9, β2 0.999)
	// Seed seeds the order of the batches and the stochastic rounding.
	Seed uint64
	// BiasEvery > 0 re-estimates the layers' exponent biases every
	// BiasEvery steps, as gan.Options.BiasEvery; the trained network
	// keeps the last ones. 0 keeps the policy's.
	BiasEvery int
	// Progress, if not nil, is called after every step with the epoch
	// (from 1), the step within it, the steps per epoch and the step's
	// mean loss.
	Progress func(epoch, step, steps int, loss float64)
}

// Train trains l on ds (images 1×28×28, labels below l.Classes) with the
// softmax cross-entropy, as a gan.Trainer trains any gan.Model: Adam, the
// loss scaling of l's policy (with dynamic scaling a step whose gradients
// overflow is skipped and the scale halved) and, with opt.BiasEvery,
// exponent-bias re-estimation. An epoch is ⌊ds.Len()/Batch⌋ steps. If
// training fails, l keeps the weights it had.
func (l *LeNet) Train(ds datasets.Dataset, opt TrainOptions) error {
	if err := l.checkData(ds); err != nil {
		return err
	}
	if opt.Epochs <= 0 {
		opt.Epochs = 1
	}
	if opt.Batch <= 0 {
		opt.Batch = 64
	}
	if opt.LR <= 0 {
		opt.LR = 1e-3
	}
	m := &lenetModel{classes: l.Classes}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Policy: l.policy, Batch: opt.Batch, Seed: opt.Seed,
		LR: opt.LR, Beta1: 0.9, Beta2: 0.999, BiasEvery: opt.BiasEvery})
	if err != nil {
		return fmt.Errorf("featnet: lenet: %w", err)
	}
	// The trainer's network starts from l's weights.
	dst, src := tr.Nets().Params(), l.params()
	for i := range dst {
		if dst[i].Name != src[i].Name || len(dst[i].Data()) != len(src[i].Data()) {
			return fmt.Errorf("featnet: lenet: trainer's tensor %s does not match %s", dst[i].Name, src[i].Name)
		}
		copy(dst[i].Data(), src[i].Data())
	}
	steps := ds.Len() / opt.Batch
	for k := 0; k < opt.Epochs*steps; k++ {
		st, err := tr.TrainStep()
		if err != nil {
			return fmt.Errorf("featnet: lenet: %w", err)
		}
		epoch, step, loss := k/steps+1, k%steps+1, st.Losses[0]
		if math.IsInf(loss, 0) {
			return fmt.Errorf("featnet: lenet training diverged at epoch %d step %d: loss %v", epoch, step, loss)
		}
		if opt.Progress != nil {
			opt.Progress(epoch, step, steps, loss)
		}
	}
	// l takes the trainer's network: the trained weights, in layers
	// whose formats carry the biases chosen in training.
	l.net = tr.Nets().Net(lenetGroup).(*lenetNet)
	l.eval = nil
	return nil
}

// lenetGroup names the one parameter group of lenetModel, and its update.
const lenetGroup = "C"

// lenetModel is LeNet training as a gan.Model: one group, C, trained by
// one update on the mean softmax cross-entropy of its logits against the
// one-hot labels. Its inputs are x (images) and y (one-hot labels); it
// reports the batch's accuracy.
type lenetModel struct {
	classes int
	labels  []int // of the batch Feed last filled in, for the accuracy
}

func (m *lenetModel) Config() string {
	b, err := json.Marshal(struct {
		Arch    string `json:"arch"`
		Classes int    `json:"classes"`
	}{LeNetArch, m.classes})
	if err != nil {
		panic(err) // a struct of a string and an int always marshals
	}
	return string(b)
}

func (m *lenetModel) Check(data []datasets.Dataset) error {
	if len(data) != 1 {
		return fmt.Errorf("featnet: lenet trains on one data set, have %d", len(data))
	}
	return checkLeNetData(data[0], m.classes)
}

func (m *lenetModel) Build(s *nn.Scope) ([]gan.Group, error) {
	n, err := buildLeNet(s, m.classes, nil)
	if err != nil {
		return nil, err
	}
	return []gan.Group{{Name: lenetGroup, Net: n}}, nil
}

func (m *lenetModel) Inputs(batch int) []gan.Input {
	return []gan.Input{
		{Name: "x", Shape: tensor.Shape{batch, 1, lenetSize, lenetSize}},
		{Name: "y", Shape: tensor.Shape{batch, m.classes}},
	}
}

func (m *lenetModel) Feed(in gan.Inputs, data []gan.Batch, _ *rand.Rand) {
	if data == nil {
		return
	}
	copy(in["x"], data[0].X)
	gan.OneHot(in["y"], data[0].Labels, m.classes)
	m.labels = append(m.labels[:0], data[0].Labels...)
}

func (m *lenetModel) Updates() []gan.Update {
	return []gan.Update{{Name: lenetGroup, Groups: []string{lenetGroup}}}
}

func (m *lenetModel) Metrics() []string { return []string{"accuracy"} }

func (m *lenetModel) Loss(u *gan.Graph) (*gorgonia.Node, error) {
	x, err := u.Input("x")
	if err != nil {
		return nil, err
	}
	y, err := u.Input("y")
	if err != nil {
		return nil, err
	}
	logits, err := u.Forward(lenetGroup, x, nil)
	if err != nil {
		return nil, err
	}
	u.Metric("accuracy", logits, m.accuracy)
	per, err := softmaxXent(logits, y, u.LossScale())
	if err != nil {
		return nil, err
	}
	loss, err := gorgonia.Mean(per)
	if err != nil {
		return nil, fmt.Errorf("featnet: mean loss: %w", err)
	}
	return loss, nil
}

// accuracy returns the fraction of the last batch whose largest logit is
// at its label.
func (m *lenetModel) accuracy(logits []float32) float64 {
	if len(m.labels) == 0 {
		return math.NaN()
	}
	correct := 0
	for i, c := range m.labels {
		if argmax(logits[i*m.classes:(i+1)*m.classes]) == c {
			correct++
		}
	}
	return float64(correct) / float64(len(m.labels))
}

// argmax returns the index of the largest value (the first of ties).
func argmax(row []float32) int {
	best := 0
	for j, v := range row {
		if v > row[best] {
			best = j
		}
	}
	return best
}
