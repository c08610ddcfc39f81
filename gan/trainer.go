package gan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

// Options configure a training run.
type Options struct {
	Config models.Config
	// Policy is the quantization policy; nil means float32 everywhere.
	Policy *quant.Policy
	Batch  int
	Seed   uint64
	// LR, Beta1, Beta2: Adam's settings; zero means 2e-4, 0.5, 0.999.
	LR, Beta1, Beta2 float64
	// BiasEvery > 0 re-estimates the exponent biases of every layer's
	// weights, activations and outputs every BiasEvery steps from their
	// binade histograms (scaling.ChooseBias), for the formats that take a
	// bias. 0 keeps the policy's biases for the whole run.
	BiasEvery int
}

func (o *Options) defaults() {
	if o.LR == 0 {
		o.LR = 2e-4
	}
	if o.Beta1 == 0 {
		o.Beta1 = 0.5
	}
	if o.Beta2 == 0 {
		o.Beta2 = 0.999
	}
}

func (o *Options) check(ds datasets.Dataset) error {
	c := o.Config
	if err := c.Check(); err != nil {
		return err
	}
	sh := ds.Shape()
	if sh.C != c.Channels || sh.H != c.Height || sh.W != c.Width {
		return fmt.Errorf("gan: the data set has %v images, the model wants %dx%dx%d", sh, c.Channels, c.Height, c.Width)
	}
	if c.Classes > 0 && ds.NumClasses() != c.Classes {
		return fmt.Errorf("gan: the data set has %d classes, the model %d", ds.NumClasses(), c.Classes)
	}
	if o.Batch < 1 || o.Batch > ds.Len() {
		return fmt.Errorf("gan: batch size %d: want 1 to %d (the data set's size)", o.Batch, ds.Len())
	}
	if o.BiasEvery < 0 {
		return fmt.Errorf("gan: bias re-estimation interval %d must not be negative", o.BiasEvery)
	}
	return nil
}

// Biases are the exponent biases chosen during training on top of the
// policy's, per layer: Weight, Act and Out roles (see quant.Scale).
type Biases map[string][3]int

// StepStats are the figures of one training step.
type StepStats struct {
	Step           int     // steps done, counting this one
	Epoch          int     // of the data loader
	DLoss, GLoss   float64 // discriminator and generator losses (unscaled)
	DReal, DFake   float64 // mean D(x) on real and fake images, as probabilities
	ScaleD, ScaleG float64 // loss scales used in this step
	SkippedD       bool    // D's update was skipped (gradient overflow or saturation)
	SkippedG       bool
	Rebuilt        bool // exponent biases changed after this step
}

// Trainer trains a GAN: alternating discriminator and generator steps
// with Adam, the non-saturating loss, loss scaling and (optionally)
// exponent-bias re-estimation. Same options, same seed, same data: same
// bits, also across a checkpoint and Resume.
type Trainer struct {
	opt     Options
	ds      datasets.Dataset
	loader  *datasets.Loader
	rng     *rand.PCG // noise and fake labels
	step    int
	biases  Biases
	adamD   *Adam
	adamG   *Adam
	scalerD *scaling.LossScaler
	scalerG *scaling.LossScaler

	m  *models.GAN
	gr *graphs
}

// NewTrainer returns a trainer of a freshly initialised GAN on ds.
func NewTrainer(ds datasets.Dataset, opt Options) (*Trainer, error) {
	return newTrainer(ds, opt, Biases{})
}

// newTrainer builds a trainer whose layers start with the given biases.
func newTrainer(ds datasets.Dataset, opt Options, biases Biases) (*Trainer, error) {
	opt.defaults()
	opt.Config = withPolicyTanh(opt.Config, opt.Policy)
	if err := opt.check(ds); err != nil {
		return nil, err
	}
	loader, err := datasets.NewLoader(ds, opt.Batch, seedFor(opt.Seed, "data"))
	if err != nil {
		return nil, err
	}
	t := &Trainer{opt: opt, ds: ds, loader: loader, rng: rand.NewPCG(opt.Seed, seedFor(opt.Seed, "noise")), biases: biases}
	ls := quant.LossScale{Scale: 1}
	if opt.Policy != nil && opt.Policy.LossScale.Scale > 0 {
		ls = opt.Policy.LossScale
	}
	if t.scalerD, err = scaling.NewLossScaler(ls.Scale, ls.Dynamic); err != nil {
		return nil, err
	}
	if t.scalerG, err = scaling.NewLossScaler(ls.Scale, ls.Dynamic); err != nil {
		return nil, err
	}
	if t.m, err = models.New(opt.Config, t.formats, opt.Seed); err != nil {
		return nil, err
	}
	t.adamD = t.newAdam(t.m.D.Params())
	t.adamG = t.newAdam(t.m.G.Params())
	if t.gr, err = newGraphs(t.m, t); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Trainer) newAdam(ps []models.Param) *Adam {
	sizes := make([]int, len(ps))
	for i, p := range ps {
		sizes[i] = len(p.Data())
	}
	a := NewAdam(sizes)
	a.LR, a.Beta1, a.Beta2 = t.opt.LR, t.opt.Beta1, t.opt.Beta2
	return a
}

// seedFor derives an independent seed for one use of the run's seed.
func seedFor(seed uint64, use string) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range []byte(use) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h ^ (seed * 0x9e3779b97f4a7c15)
}

// formats returns the formats of a layer: the policy's, with the biases
// chosen so far applied.
func (t *Trainer) formats(layer string) quant.LayerFormats {
	lf := t.opt.Policy.For(layer)
	if b, ok := t.biases[layer]; ok {
		lf.Weight = scaled(lf.Weight, b[0])
		lf.Act = scaled(lf.Act, b[1])
		lf.Out = scaled(lf.Out, b[2])
	}
	return lf
}

func scaled(f quant.Format, k int) quant.Format {
	if f == nil || k == 0 {
		return f
	}
	s, err := quant.Scale(f, k)
	if err != nil {
		return f // biases are only chosen for formats that take them
	}
	return s
}

// Step returns the number of steps done.
func (t *Trainer) Step() int { return t.step }

// Options returns the run's options.
func (t *Trainer) Options() Options { return t.opt }

// Model returns the GAN being trained. Its parameters change in place at
// every step; after a bias change the trainer switches to a new GAN.
func (t *Trainer) Model() *models.GAN { return t.m }

// Biases returns the exponent biases chosen so far (a copy).
func (t *Trainer) Biases() Biases {
	b := Biases{}
	for k, v := range t.biases {
		b[k] = v
	}
	return b
}

// Formats returns the formats layer uses now.
func (t *Trainer) Formats(layer string) quant.LayerFormats { return t.formats(layer) }

// Epoch returns the data loader's epoch.
func (t *Trainer) Epoch() int { return t.loader.Epoch() }

// TrainStep runs one discriminator and one generator update.
func (t *Trainer) TrainStep() (StepStats, error) {
	st := StepStats{Step: t.step + 1}
	gr := t.gr
	c := t.opt.Config
	x, labels := t.loader.Next()
	copy(gr.realX, x)
	oneHot(gr.realY, labels, c.Classes)
	nrm := rand.New(t.rng)
	for i := range gr.z {
		gr.z[i] = float32(nrm.NormFloat64())
	}
	if c.Classes > 0 {
		for i := range gr.fakeLabels {
			gr.fakeLabels[i] = nrm.IntN(c.Classes)
		}
		oneHot(gr.fakeY, gr.fakeLabels, c.Classes)
	}

	// Discriminator: minimise softplus(-D(x)) + softplus(D(G(z))).
	gr.scaleD = t.scalerD.Scale
	st.ScaleD = gr.scaleD
	gr.errD = scaling.GradStats{}
	if err := gr.dm.RunAll(); err != nil {
		return st, fmt.Errorf("gan: step %d: discriminator: %w", st.Step, err)
	}
	st.DLoss = scalarOf(gr.dLoss)
	st.DReal = meanSigmoid(gr.dRealOut)
	st.DFake = meanSigmoid(gr.dFakeOut)
	st.SkippedD = !t.update(t.adamD, t.scalerD, gr.dParams, gr.dGrads, gr.errD)
	gr.dm.Reset()

	// Generator: minimise softplus(-D(G(z))) with the updated D and the
	// same z and labels.
	gr.scaleG = t.scalerG.Scale
	st.ScaleG = gr.scaleG
	gr.errG = scaling.GradStats{}
	if err := gr.gm.RunAll(); err != nil {
		return st, fmt.Errorf("gan: step %d: generator: %w", st.Step, err)
	}
	st.GLoss = scalarOf(gr.gLoss)
	st.SkippedG = !t.update(t.adamG, t.scalerG, gr.gParams, gr.gGrads, gr.errG)
	gr.gm.Reset()

	t.step++
	st.Epoch = t.loader.Epoch()
	if math.IsNaN(st.DLoss) || math.IsNaN(st.GLoss) {
		return st, fmt.Errorf("gan: step %d: loss is NaN (D %v, G %v)", st.Step, st.DLoss, st.GLoss)
	}
	if t.opt.BiasEvery > 0 && t.step%t.opt.BiasEvery == 0 {
		changed, err := t.reestimateBiases()
		if err != nil {
			return st, fmt.Errorf("gan: step %d: %w", st.Step, err)
		}
		st.Rebuilt = changed
	}
	return st, nil
}

// update inspects the weight gradients, adds the errors' statistics, lets
// the scaler decide, and applies Adam if the step is good. It reports
// whether the update was applied.
//
// Errors must be inspected as well as weight gradients: a saturating
// format (posits) clips an error that overflows it to its largest value
// instead of producing Inf, and the weight gradients computed from the
// clipped errors can look normal. The scaler judges the worst tensor (the
// one with the largest fraction of saturated values): the loss gradient
// at D's output has one value per image, and all of them saturating must
// count as overflow however many values the other tensors have.
func (t *Trainer) update(a *Adam, s *scaling.LossScaler, ps []models.Param, grads []*gorgonia.Node, errs scaling.GradStats) bool {
	stats := errs
	pd := make([][]float32, len(ps))
	gd := make([][]float32, len(ps))
	for i, p := range ps {
		pd[i] = p.Data()
		gd[i] = grads[i].Value().Data().([]float32)
		var f quant.Format
		if p.Quantized {
			f = t.formats(p.Layer).WGrad
		}
		stats = worse(stats, scaling.Inspect(gd[i], f))
	}
	scale := s.Scale
	if !s.Update(stats) {
		return false
	}
	a.Step(pd, gd, scale)
	return true
}

// worse returns whichever of a and b is closer to overflow: non-finite
// values first, then the larger fraction of saturated values.
func worse(a, b scaling.GradStats) scaling.GradStats {
	switch {
	case a.Total == 0 || b.NonFinite > 0 && a.NonFinite == 0:
		return b
	case b.Total == 0 || a.NonFinite > 0:
		return a
	case float64(b.Saturated)*float64(a.Total) > float64(a.Saturated)*float64(b.Total):
		return b
	}
	return a
}

func oneHot(dst []float32, labels []int, classes int) {
	if classes == 0 {
		return
	}
	clear(dst)
	for i, l := range labels {
		dst[i*classes+l] = 1
	}
}

func scalarOf(n *gorgonia.Node) float64 {
	switch v := n.Value().(type) {
	case *tensor.Dense:
		switch d := v.Data().(type) {
		case float32:
			return float64(d)
		case []float32:
			return float64(d[0])
		}
	case *gorgonia.F32:
		return float64(*v)
	}
	return math.NaN()
}

func meanSigmoid(n *gorgonia.Node) float64 {
	d := n.Value().Data().([]float32)
	var s float64
	for _, v := range d {
		x := float64(v)
		if x >= 0 {
			s += 1 / (1 + math.Exp(-x))
		} else {
			e := math.Exp(x)
			s += e / (1 + e)
		}
	}
	return s / float64(len(d))
}

// graphs are the discriminator-step and generator-step graphs over one
// GAN's parameters, with their machines and input tensors.
type graphs struct {
	realX, realY, z, fakeY []float32 // input tensors' data, written before each run
	fakeLabels             []int
	scaleD, scaleG         float64           // the losses' gradient scales, read at each run
	errD, errG             scaling.GradStats // saturation of the errors in the last run

	dm                 gorgonia.VM
	dLoss              *gorgonia.Node
	dRealOut, dFakeOut *gorgonia.Node
	dParams            []models.Param
	dGrads             []*gorgonia.Node
	dG, dD             *models.Net // G and D as built in the D-step graph (for taps)

	gm      gorgonia.VM
	gLoss   *gorgonia.Node
	gParams []models.Param
	gGrads  []*gorgonia.Node
}

func input(g *gorgonia.ExprGraph, name string, shape tensor.Shape) (*gorgonia.Node, []float32) {
	t := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))
	return gorgonia.NodeFromAny(g, t, gorgonia.WithName(name)), t.Data().([]float32)
}

func newGraphs(m *models.GAN, t *Trainer) (gr *graphs, err error) {
	defer func() {
		// NewTapeMachine panics on compile errors (see the notes on Gorgonia).
		if r := recover(); r != nil {
			err = fmt.Errorf("gan: building the training graphs: %v", r)
		}
	}()
	c := m.Config
	B := t.opt.Batch
	gr = &graphs{fakeLabels: make([]int, B)}
	// Inputs are created once per graph and share backing arrays across
	// the two graphs where they are the same data (z, fake labels).
	zT := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(c.ZShape(B)...))
	gr.z = zT.Data().([]float32)
	var fakeYT *tensor.Dense
	if c.Classes > 0 {
		fakeYT = tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(B, c.Classes))
		gr.fakeY = fakeYT.Data().([]float32)
	}

	// D step.
	gd := gorgonia.NewGraph()
	var realX, realY, fakeY *gorgonia.Node
	realX, gr.realX = input(gd, "x", c.XShape(B))
	z := gorgonia.NodeFromAny(gd, zT, gorgonia.WithName("z"))
	if c.Classes > 0 {
		realY, gr.realY = input(gd, "y", tensor.Shape{B, c.Classes})
		fakeY = gorgonia.NodeFromAny(gd, fakeYT, gorgonia.WithName("y_fake"))
	}
	gr.dG, gr.dD = m.G.Share(gd), m.D.Share(gd)
	watch := func(stats *scaling.GradStats) func(string, []float32) {
		return func(layer string, dy []float32) {
			if f := t.formats(layer).Err; f != nil {
				*stats = worse(*stats, scaling.Inspect(dy, f))
			}
		}
	}
	gr.dD.WatchErrors(watch(&gr.errD))
	fake, err := gr.dG.Fwd(z, fakeY)
	if err != nil {
		return nil, err
	}
	if gr.dRealOut, err = gr.dD.Fwd(realX, realY); err != nil {
		return nil, err
	}
	if gr.dFakeOut, err = gr.dD.Fwd(fake, fakeY); err != nil {
		return nil, err
	}
	gr.dLoss, err = models.SoftplusLoss(&gr.scaleD, []*gorgonia.Node{gr.dRealOut, gr.dFakeOut}, []float64{-1, 1})
	if err != nil {
		return nil, err
	}
	gr.dParams = gr.dD.Params()
	if gr.dGrads, err = gorgonia.Grad(gr.dLoss, nodes(gr.dParams)...); err != nil {
		return nil, fmt.Errorf("gan: discriminator gradients: %w", err)
	}
	roots := append(gorgonia.Nodes{gr.dLoss, gr.dRealOut, gr.dFakeOut}, gr.dGrads...)
	gr.dm = gorgonia.NewTapeMachine(gd.SubgraphRoots(roots...))

	// G step.
	gg := gorgonia.NewGraph()
	z2 := gorgonia.NodeFromAny(gg, zT, gorgonia.WithName("z"))
	var fakeY2 *gorgonia.Node
	if c.Classes > 0 {
		fakeY2 = gorgonia.NodeFromAny(gg, fakeYT, gorgonia.WithName("y_fake"))
	}
	G2, D2 := m.G.Share(gg), m.D.Share(gg)
	G2.WatchErrors(watch(&gr.errG))
	D2.WatchErrors(watch(&gr.errG))
	fake2, err := G2.Fwd(z2, fakeY2)
	if err != nil {
		return nil, err
	}
	out2, err := D2.Fwd(fake2, fakeY2)
	if err != nil {
		return nil, err
	}
	if gr.gLoss, err = models.SoftplusMean(out2, -1, &gr.scaleG); err != nil {
		return nil, err
	}
	gr.gParams = G2.Params()
	if gr.gGrads, err = gorgonia.Grad(gr.gLoss, nodes(gr.gParams)...); err != nil {
		return nil, fmt.Errorf("gan: generator gradients: %w", err)
	}
	gr.gm = gorgonia.NewTapeMachine(gg.SubgraphRoots(append(gorgonia.Nodes{gr.gLoss}, gr.gGrads...)...))
	return gr, nil
}

func nodes(ps []models.Param) gorgonia.Nodes {
	ns := make(gorgonia.Nodes, len(ps))
	for i, p := range ps {
		ns[i] = p.Node
	}
	return ns
}

// withPolicyTanh returns c with the generator's output activation the
// policy asks for (quant.Policy.Tanh; a nil policy keeps c's).
func withPolicyTanh(c models.Config, p *quant.Policy) models.Config {
	if p != nil {
		c.Tanh = p.Tanh
	}
	return c
}
