package gan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

// Checkpoint metadata keys.
const (
	metaState  = "positgan.train"  // JSON: runState
	metaPolicy = "positgan.policy" // TOML, as quant.Policy.String
	metaConfig = "positgan.model"  // JSON: models.Config
)

// runState is everything of a Trainer that is not a tensor.
type runState struct {
	Config    models.Config        `json:"model"`
	Batch     int                  `json:"batch"`
	Seed      uint64               `json:"seed"`
	LR        float64              `json:"lr"`
	Beta1     float64              `json:"beta1"`
	Beta2     float64              `json:"beta2"`
	Eps       float64              `json:"eps"`
	BiasEvery int                  `json:"bias_every"`
	Step      int                  `json:"step"`
	Biases    Biases               `json:"biases,omitempty"`
	AdamTD    int                  `json:"adam_t_d"`
	AdamTG    int                  `json:"adam_t_g"`
	ScalerD   scalerState          `json:"loss_scaler_d"`
	ScalerG   scalerState          `json:"loss_scaler_g"`
	Loader    datasets.LoaderState `json:"loader"`
	RNG       []byte               `json:"rng"`
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

// Checkpoint returns the trainer's complete state: parameters, Adam
// moments, and as metadata the model configuration, the policy, the step,
// the exponent biases, the loss scalers, the data loader's position and
// the noise generator's state. Resume continues from it exactly.
//
// With stochastic rounding, whose random streams live inside the layers
// of models/nn and cannot be saved, taking a checkpoint restarts those
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
	for _, p := range t.m.Params() {
		c.Tensors[p.Name] = ckpt.Tensor{Shape: p.Node.Shape().Clone(), Data: clone(p.Data())}
	}
	for _, o := range []struct {
		net  string
		ps   []models.Param
		adam *Adam
	}{{"D", t.m.D.Params(), t.adamD}, {"G", t.m.G.Params(), t.adamG}} {
		for i, p := range o.ps {
			sh := p.Node.Shape().Clone()
			c.Tensors["adam.m/"+p.Name] = ckpt.Tensor{Shape: sh, Data: clone(o.adam.M[i])}
			c.Tensors["adam.v/"+p.Name] = ckpt.Tensor{Shape: sh, Data: clone(o.adam.V[i])}
		}
	}
	rng, err := t.rng.MarshalBinary()
	if err != nil {
		return nil, err
	}
	st := runState{
		Config: t.opt.Config, Batch: t.opt.Batch, Seed: t.opt.Seed,
		LR: t.adamD.LR, Beta1: t.adamD.Beta1, Beta2: t.adamD.Beta2, Eps: t.adamD.Eps,
		BiasEvery: t.opt.BiasEvery, Step: t.step, Biases: t.Biases(),
		AdamTD: t.adamD.T, AdamTG: t.adamG.T,
		ScalerD: saveScaler(t.scalerD), ScalerG: saveScaler(t.scalerG),
		Loader: t.loader.State(), RNG: rng,
	}
	js, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	c.Meta[metaState] = string(js)
	c.Meta[metaConfig] = t.opt.Config.String()
	if t.opt.Policy != nil {
		c.Meta[metaPolicy] = t.opt.Policy.String()
	}
	return c, nil
}

func clone(s []float32) []float32 { return append([]float32(nil), s...) }

// Saved is what a checkpoint says about its run.
type Saved struct {
	Options Options
	Step    int
	Biases  Biases
	state   runState
}

// ReadState returns the run described by checkpoint c without building
// anything.
func ReadState(c *ckpt.Checkpoint) (*Saved, error) {
	js, ok := c.Meta[metaState]
	if !ok {
		return nil, fmt.Errorf("gan: checkpoint has no %s metadata: not a positgan training checkpoint", metaState)
	}
	var st runState
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		return nil, fmt.Errorf("gan: checkpoint state: %w", err)
	}
	if err := st.Config.Check(); err != nil {
		return nil, fmt.Errorf("gan: checkpoint: %w", err)
	}
	var pol *quant.Policy
	if s, ok := c.Meta[metaPolicy]; ok {
		var err error
		if pol, err = quant.ReadPolicy(strings.NewReader(s)); err != nil {
			return nil, fmt.Errorf("gan: checkpoint policy: %w", err)
		}
	}
	opt := Options{Config: st.Config, Policy: pol, Batch: st.Batch, Seed: st.Seed,
		LR: st.LR, Beta1: st.Beta1, Beta2: st.Beta2, BiasEvery: st.BiasEvery}
	return &Saved{Options: opt, Step: st.Step, Biases: st.Biases, state: st}, nil
}

// Resume returns a trainer that continues the run checkpoint c saved, on
// the same data set ds: the following steps are bit for bit those the
// run that saved it took after saving it (see Checkpoint for stochastic
// rounding).
func Resume(c *ckpt.Checkpoint, ds datasets.Dataset) (*Trainer, error) {
	s, err := ReadState(c)
	if err != nil {
		return nil, err
	}
	st := s.state
	if st.Biases == nil {
		st.Biases = Biases{}
	}
	t, err := newTrainer(ds, s.Options, st.Biases)
	if err != nil {
		return nil, err
	}
	if err := loadParams(c, t.m.Params()); err != nil {
		return nil, err
	}
	for _, o := range []struct {
		ps   []models.Param
		adam *Adam
		tt   int
	}{{t.m.D.Params(), t.adamD, st.AdamTD}, {t.m.G.Params(), t.adamG, st.AdamTG}} {
		for i, p := range o.ps {
			if err := loadTensor(c, "adam.m/"+p.Name, o.adam.M[i]); err != nil {
				return nil, err
			}
			if err := loadTensor(c, "adam.v/"+p.Name, o.adam.V[i]); err != nil {
				return nil, err
			}
		}
		o.adam.T = o.tt
	}
	t.adamD.Eps, t.adamG.Eps = st.Eps, st.Eps
	if t.scalerD, err = loadScaler(st.ScalerD); err != nil {
		return nil, err
	}
	if t.scalerG, err = loadScaler(st.ScalerG); err != nil {
		return nil, err
	}
	if err := t.loader.Restore(st.Loader); err != nil {
		return nil, fmt.Errorf("gan: checkpoint does not fit this data set: %w", err)
	}
	t.rng = new(rand.PCG)
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

func loadParams(c *ckpt.Checkpoint, ps []models.Param) error {
	for _, p := range ps {
		if err := loadTensor(c, p.Name, p.Data()); err != nil {
			return err
		}
	}
	return nil
}

func loadTensor(c *ckpt.Checkpoint, name string, dst []float32) error {
	t, ok := c.Tensors[name]
	if !ok {
		return fmt.Errorf("gan: checkpoint has no tensor %q", name)
	}
	if len(t.Data) != len(dst) {
		return fmt.Errorf("gan: checkpoint tensor %q has %d values, the model %d", name, len(t.Data), len(dst))
	}
	copy(dst, t.Data)
	return nil
}

// LoadGAN builds the GAN a checkpoint holds, with its policy and chosen
// exponent biases (or, if policy is not nil, with that policy instead and
// no biases: to run a trained generator in other arithmetic).
func LoadGAN(c *ckpt.Checkpoint, policy *quant.Policy) (*models.GAN, *Saved, error) {
	s, err := ReadState(c)
	if err != nil {
		return nil, nil, err
	}
	t := &Trainer{opt: s.Options, biases: s.Biases}
	if policy != nil {
		t.opt.Policy, t.biases = policy, nil
	}
	m, err := models.New(withPolicyTanh(s.Options.Config, policy), t.formats, s.Options.Seed)
	if err != nil {
		return nil, nil, err
	}
	if err := loadParams(c, m.Params()); err != nil {
		return nil, nil, err
	}
	return m, s, nil
}
