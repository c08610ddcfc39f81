package gan

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

// Checkpoint metadata keys.
const (
	MetaState  = "positgan.train"  // JSON: the run's state
	MetaPolicy = "positgan.policy" // TOML, as policy.Policy.String
	MetaModel  = "positgan.model"  // JSON: Model.Config
	// MetaDataset names the data set a run trains on, as given to
	// datasets.Load; the trainer's callers record it (RunOptions.Meta)
	// so that a resumed run can check and reuse it.
	MetaDataset = "positgan.dataset"
)

// runState is everything of a Trainer that is not a tensor.
type runState struct {
	Model     json.RawMessage        `json:"model"`
	Batch     int                    `json:"batch"`
	Seed      uint64                 `json:"seed"`
	LR        float64                `json:"lr"`
	Beta1     float64                `json:"beta1"`
	Beta2     float64                `json:"beta2"`
	Eps       float64                `json:"eps"`
	BiasEvery int                    `json:"bias_every"`
	Steps     int                    `json:"steps,omitempty"` // planned (Options.Steps)
	Step      int                    `json:"step"`
	Biases    Biases                 `json:"biases,omitempty"`
	AdamT     map[string]int         `json:"adam_t"`       // by group
	Scalers   map[string]scalerState `json:"loss_scalers"` // by update
	Loaders   []datasets.LoaderState `json:"loaders"`      // by data set
	RNG       []byte                 `json:"rng"`
	// The layout before parameter groups (CGAN and DCGAN only); read, not written.
	AdamTD  int                   `json:"adam_t_d,omitempty"`
	AdamTG  int                   `json:"adam_t_g,omitempty"`
	ScalerD *scalerState          `json:"loss_scaler_d,omitempty"`
	ScalerG *scalerState          `json:"loss_scaler_g,omitempty"`
	Loader  *datasets.LoaderState `json:"loader,omitempty"`
}

// maxStep bounds the step counters a checkpoint may hold: far more steps
// than any run takes, far fewer than overflow a step's arithmetic.
const maxStep = 1 << 40

// check refuses a state no run could have written: negative or huge step
// counters (a run continuing from them would truncate its log or overflow
// Adam's bias correction), a batch that is not positive, hyperparameters
// that are not finite.
func (st *runState) check() error {
	switch {
	case st.Step < 0 || st.Step > maxStep:
		return fmt.Errorf("step %d is not a step a run reaches", st.Step)
	case st.Steps < 0 || st.Steps > maxStep:
		return fmt.Errorf("planned steps %d out of range", st.Steps)
	case st.Batch <= 0:
		return fmt.Errorf("batch %d: must be positive", st.Batch)
	case st.BiasEvery < 0:
		return fmt.Errorf("bias_every %d: must not be negative", st.BiasEvery)
	}
	for _, v := range []float64{st.LR, st.Beta1, st.Beta2, st.Eps} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("optimizer setting %v is not finite", v)
		}
	}
	for g, t := range st.AdamT {
		if t < 0 || t > maxStep {
			return fmt.Errorf("Adam step %d of group %s out of range", t, g)
		}
	}
	return nil
}

// upgrade fills the fields of the group layout from the two-network
// layout of older checkpoints.
func (st *runState) upgrade() {
	if st.AdamT == nil && st.ScalerD != nil {
		st.AdamT = map[string]int{"D": st.AdamTD, "G": st.AdamTG}
		st.Scalers = map[string]scalerState{"D": *st.ScalerD}
		if st.ScalerG != nil {
			st.Scalers["G"] = *st.ScalerG
		}
	}
	if st.Loaders == nil && st.Loader != nil {
		st.Loaders = []datasets.LoaderState{*st.Loader}
	}
}

type scalerState struct {
	Scale   float64 `json:"scale"`
	Dynamic bool    `json:"dynamic"`
	Good    int     `json:"good_steps"`
}

func saveScaler(s *scaling.LossScaler) scalerState {
	return scalerState{Scale: s.Scale, Dynamic: s.Dynamic, Good: s.GoodSteps()}
}

func loadScaler(s scalerState) (*scaling.LossScaler, error) {
	l, err := scaling.NewLossScaler(s.Scale, s.Dynamic)
	if err != nil {
		return nil, err
	}
	l.SetGoodSteps(s.Good)
	return l, nil
}

// Checkpoint returns the trainer's complete state: parameters, batch-norm
// running statistics, Adam moments, and as metadata the model's
// configuration, the policy, the step, the exponent biases, the loss
// scalers, the data loaders' positions and the noise generator's state.
// Resume continues from it exactly.
//
// With stochastic rounding, whose random streams live inside the layers
// of nn and cannot be saved, taking a checkpoint restarts those
// streams from a seed derived from the run's seed and the step, as Resume
// does: a run continued after a checkpoint and a run resumed from it take
// the same steps.
func (t *Trainer) Checkpoint() (c *ckpt.Checkpoint, err error) {
	if t.stochastic() {
		defer func() {
			if err == nil {
				err = t.rebuild()
			}
		}()
	}
	c = ckpt.New()
	for _, p := range t.nets.Params() {
		c.Tensors[p.Name] = ckpt.Tensor{Shape: p.Node.Shape().Clone(), Data: clone(p.Data())}
	}
	for _, b := range t.nets.Buffers() {
		c.Tensors[b.Name] = ckpt.Tensor{Shape: b.Tensor.Shape().Clone(), Data: clone(b.Data())}
	}
	if err := saveMasks(c, t.nets); err != nil {
		return nil, err
	}
	st := runState{
		Model: json.RawMessage(t.model.Config()), Batch: t.opt.Batch, Seed: t.opt.Seed,
		LR: t.opt.LR, Beta1: t.opt.Beta1, Beta2: t.opt.Beta2,
		BiasEvery: t.opt.BiasEvery, Steps: t.opt.Steps, Step: t.step, Biases: t.Biases(),
		AdamT: map[string]int{}, Scalers: map[string]scalerState{},
	}
	for _, g := range t.nets.Groups {
		a := t.adam[g.Name]
		st.AdamT[g.Name], st.Eps = a.T, a.Eps
		for i, p := range g.Net.Params() {
			sh := p.Node.Shape().Clone()
			c.Tensors["adam.m/"+p.Name] = ckpt.Tensor{Shape: sh, Data: clone(a.M[i])}
			c.Tensors["adam.v/"+p.Name] = ckpt.Tensor{Shape: sh, Data: clone(a.V[i])}
		}
	}
	for name, s := range t.scalers {
		st.Scalers[name] = saveScaler(s)
	}
	if sm, ok := t.model.(Stateful); ok {
		for name, v := range sm.SaveState() {
			c.Tensors[stateTensor+name] = ckpt.Tensor{Shape: slices.Clone(v.Shape), Data: clone(v.Data)}
		}
	}
	for _, l := range t.loaders {
		st.Loaders = append(st.Loaders, l.State())
	}
	if st.RNG, err = t.rng.MarshalBinary(); err != nil {
		return nil, err
	}
	js, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	c.Meta[MetaState] = string(js)
	c.Meta[MetaModel] = t.model.Config()
	if t.opt.Policy != nil {
		// With the formats the residual sums it leaves unnamed were
		// promoted to (policy.Policy.WriteRecord).
		promoted := map[string]quant.Format{}
		for _, g := range t.nets.Groups {
			maps.Copy(promoted, nn.Promotions(g.Net))
		}
		c.Meta[MetaPolicy] = t.opt.Policy.WithPromoted(promoted).Record()
	}
	return c, nil
}

func clone(s []float32) []float32 { return append([]float32(nil), s...) }

// Saved is what a checkpoint says about its run.
type Saved struct {
	Options Options
	Step    int
	Biases  Biases
	// Model is the model's configuration (Model.Config), from which
	// package models builds it again.
	Model string
	state runState
}

// ReadState returns the run described by checkpoint c without building
// anything.
func ReadState(c *ckpt.Checkpoint) (*Saved, error) {
	js, ok := c.Meta[MetaState]
	if !ok {
		return nil, fmt.Errorf("gan: checkpoint has no %s metadata: not a positgan training checkpoint", MetaState)
	}
	var st runState
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		return nil, fmt.Errorf("gan: checkpoint state: %w", err)
	}
	st.upgrade()
	if err := st.check(); err != nil {
		return nil, fmt.Errorf("gan: checkpoint state: %w", err)
	}
	var pol *policy.Policy
	if s, ok := c.Meta[MetaPolicy]; ok {
		var err error
		if pol, err = policy.Read(strings.NewReader(s)); err != nil {
			return nil, fmt.Errorf("gan: checkpoint policy: %w", err)
		}
	}
	model := c.Meta[MetaModel]
	if model == "" {
		model = string(st.Model)
	}
	opt := Options{Policy: pol, Batch: st.Batch, Seed: st.Seed,
		LR: st.LR, Beta1: st.Beta1, Beta2: st.Beta2, BiasEvery: st.BiasEvery, Steps: st.Steps}
	return &Saved{Options: opt, Step: st.Step, Biases: st.Biases, Model: model, state: st}, nil
}

// Resume returns a trainer that continues the run checkpoint c saved, of
// model m (built from the checkpoint's configuration, see Saved.Model) on
// the same data: the following steps are bit for bit those the run that
// saved it took after saving it (see Checkpoint for stochastic rounding).
func Resume(c *ckpt.Checkpoint, m Model, data []datasets.Dataset) (*Trainer, error) {
	s, err := ReadState(c)
	if err != nil {
		return nil, err
	}
	st := s.state
	if st.Biases == nil {
		st.Biases = Biases{}
	}
	t, err := newTrainer(m, data, s.Options, st.Biases)
	if err != nil {
		return nil, err
	}
	// Checkpoints from before batch norm kept running statistics have
	// none: the statistics start afresh (training does not read them).
	if err := loadNets(c, t.nets, true); err != nil {
		return nil, err
	}
	if err := loadMasks(c, t.nets); err != nil {
		return nil, err
	}
	for _, g := range t.nets.Groups {
		a := t.adam[g.Name]
		for i, p := range g.Net.Params() {
			if err := loadTensor(c, "adam.m/"+p.Name, p.Node.Shape(), a.M[i], false); err != nil {
				return nil, err
			}
			if err := loadTensor(c, "adam.v/"+p.Name, p.Node.Shape(), a.V[i], false); err != nil {
				return nil, err
			}
		}
		a.T, a.Eps = st.AdamT[g.Name], st.Eps
	}
	for name := range t.scalers {
		ss, ok := st.Scalers[name]
		if !ok {
			return nil, fmt.Errorf("gan: checkpoint has no loss scaler for update %s", name)
		}
		if t.scalers[name], err = loadScaler(ss); err != nil {
			return nil, err
		}
	}
	if len(st.Loaders) != len(t.loaders) {
		return nil, fmt.Errorf("gan: checkpoint has %d data loaders, the model reads %d data sets", len(st.Loaders), len(t.loaders))
	}
	for i, l := range t.loaders {
		if err := l.Restore(st.Loaders[i]); err != nil {
			return nil, fmt.Errorf("gan: checkpoint does not fit this data set: %w", err)
		}
	}
	if sm, ok := m.(Stateful); ok {
		state := map[string]ckpt.Tensor{}
		for name, v := range c.Tensors {
			if k, ok := strings.CutPrefix(name, stateTensor); ok {
				state[k] = v
			}
		}
		if err := sm.LoadState(state); err != nil {
			return nil, fmt.Errorf("gan: checkpoint model state: %w", err)
		}
	}
	if err := t.rng.UnmarshalBinary(st.RNG); err != nil {
		return nil, fmt.Errorf("gan: checkpoint noise generator state: %w", err)
	}
	t.step = st.Step
	if t.stochastic() {
		if err := t.rebuild(); err != nil { // the streams Checkpoint restarted
			return nil, err
		}
	}
	return t, nil
}

// loadNets copies the checkpoint's parameters and buffers into n. A
// missing buffer is an error unless optional (checkpoints written before
// batch norm kept running statistics have none).
func loadNets(c *ckpt.Checkpoint, n *Nets, optional bool) error {
	for _, p := range n.Params() {
		if err := loadTensor(c, p.Name, p.Node.Shape(), p.Data(), true); err != nil {
			return err
		}
		p.Changed()
	}
	for _, b := range n.Buffers() {
		if _, ok := c.Tensors[b.Name]; !ok && optional {
			continue
		}
		if err := loadTensor(c, b.Name, b.Tensor.Shape(), b.Data(), true); err != nil {
			return err
		}
	}
	return nil
}

// hasBuffers reports whether c holds every buffer of n.
func hasBuffers(c *ckpt.Checkpoint, n *Nets) bool {
	for _, b := range n.Buffers() {
		if _, ok := c.Tensors[b.Name]; !ok {
			return false
		}
	}
	return true
}

// loadTensor copies the checkpoint's tensor name into dst, which has the
// given shape: the checkpoint's shape must be the same (a weight stored
// transposed has the right count and the wrong meaning). With finite set,
// a NaN or infinite value is an error: a network of them draws nothing.
func loadTensor(c *ckpt.Checkpoint, name string, shape []int, dst []float32, finite bool) error {
	t, ok := c.Tensors[name]
	if !ok {
		return fmt.Errorf("gan: checkpoint has no tensor %q", name)
	}
	if len(t.Data) != len(dst) {
		return fmt.Errorf("gan: checkpoint tensor %q has %d values, the model %d", name, len(t.Data), len(dst))
	}
	if !slices.Equal(t.Shape, shape) {
		return fmt.Errorf("gan: checkpoint tensor %q has shape %v, the model %v", name, t.Shape, shape)
	}
	if finite {
		for _, v := range t.Data {
			if v-v != 0 { // NaN or ±Inf
				return fmt.Errorf("gan: checkpoint tensor %q holds %v: not a trained network", name, v)
			}
		}
	}
	copy(dst, t.Data)
	return nil
}

// Load builds model m's networks from checkpoint c for inference, with
// the checkpoint's policy and chosen exponent biases, or, if policy is
// not nil, with that policy instead and no biases (to run a trained
// generator in other arithmetic). Batch norm evaluates with its running
// statistics; checkpoints written before it kept them have none, and
// their networks report BatchStats.
func Load(c *ckpt.Checkpoint, m Model, policy *policy.Policy) (*Nets, *Saved, error) {
	s, err := ReadState(c)
	if err != nil {
		return nil, nil, err
	}
	pol, biases := s.Options.Policy, s.Biases
	if policy != nil {
		pol, biases = policy, nil
	}
	n, err := build(m, func(layer string) nn.LayerFormats { return biased(pol, biases, layer) }, s.Options.Seed)
	if err != nil {
		return nil, nil, err
	}
	if err := loadNets(c, n, true); err != nil {
		return nil, nil, err
	}
	if err := loadMasks(c, n); err != nil {
		return nil, nil, err
	}
	n.setMaskStep(s.Options.Seed, s.Step)
	n.BatchStats = !hasBuffers(c, n)
	for _, g := range n.Groups {
		nn.SetTraining(g.Net, false)
	}
	return n, s, nil
}
