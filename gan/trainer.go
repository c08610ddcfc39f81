package gan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

// Options configure a training run.
type Options struct {
	// Policy is the quantization policy; nil means float32 everywhere.
	Policy *policy.Policy
	Batch  int
	Seed   uint64
	// LR, Beta1, Beta2: Adam's settings; zero means 2e-4, 0.5, 0.999.
	LR, Beta1, Beta2 float64
	// BiasEvery > 0 re-estimates the exponent biases of every layer's
	// weights, activations and outputs every BiasEvery steps from their
	// binade histograms (scaling.ChooseBias), for the formats that take a
	// bias. 0 keeps the policy's biases for the whole run.
	BiasEvery int
	// Steps is the planned length of the run, for models whose learning
	// rates follow a schedule (see Scheduler); 0 if not planned.
	Steps int
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

func (o *Options) check(data []datasets.Dataset) error {
	if len(data) == 0 {
		return fmt.Errorf("gan: no data set")
	}
	for _, ds := range data {
		if o.Batch < 1 || o.Batch > ds.Len() {
			return fmt.Errorf("gan: batch size %d: want 1 to %d (the data set's size)", o.Batch, ds.Len())
		}
	}
	if o.Steps < 0 {
		return fmt.Errorf("gan: planned run length %d must not be negative", o.Steps)
	}
	if o.BiasEvery < 0 {
		return fmt.Errorf("gan: bias re-estimation interval %d must not be negative", o.BiasEvery)
	}
	return nil
}

// Biases are the exponent biases chosen during training on top of the
// policy's, per layer: Weight, Act and Out roles (see quant.Scale).
type Biases map[string][3]int

// StepStats are the figures of one training step. Losses, Scales and
// Skipped are indexed like the model's Updates, Metrics like its Metrics.
type StepStats struct {
	Step    int       // steps done, counting this one
	Epoch   int       // of the (first) data loader
	Losses  []float64 // each update's loss (unscaled)
	Metrics []float64
	Scales  []float64 // the loss scales used in this step
	Skipped []bool    // the update was skipped (gradient overflow or saturation)
	Rebuilt bool      // exponent biases changed after this step
}

// Trainer trains a Model: its updates in order at every step, each with
// Adam per parameter group, loss scaling and (optionally) exponent-bias
// re-estimation. Same model, options, seed and data: same bits, also
// across a checkpoint and Resume.
type Trainer struct {
	model   Model
	opt     Options
	data    []datasets.Dataset
	loaders []*datasets.Loader
	rng     *rand.PCG  // noise
	noise   *rand.Rand // over rng
	batches []Batch    // the step's batches, one per loader
	step    int
	biases  Biases
	adam    map[string]*Adam               // by group
	scalers map[string]*scaling.LossScaler // by update
	// noWeightCache turns off the layers' caches of rounded weights
	// (tests compare the bits with and without).
	noWeightCache bool

	nets *Nets
	gr   *graphs
}

// NewTrainer returns a trainer of a freshly initialised m on data (one
// data set per domain the model reads: one for CGAN and DCGAN).
func NewTrainer(m Model, data []datasets.Dataset, opt Options) (*Trainer, error) {
	return newTrainer(m, data, opt, Biases{})
}

// newTrainer builds a trainer whose layers start with the given biases.
func newTrainer(m Model, data []datasets.Dataset, opt Options, biases Biases) (*Trainer, error) {
	opt.defaults()
	if err := opt.check(data); err != nil {
		return nil, err
	}
	if err := m.Check(data); err != nil {
		return nil, err
	}
	t := &Trainer{model: m, opt: opt, data: data, rng: rand.NewPCG(opt.Seed, seedFor(opt.Seed, "noise")), biases: biases,
		adam: map[string]*Adam{}, scalers: map[string]*scaling.LossScaler{}, batches: make([]Batch, len(data))}
	t.noise = rand.New(t.rng)
	for i, ds := range data {
		use := "data"
		if i > 0 {
			use = fmt.Sprintf("data %d", i)
		}
		l, err := datasets.NewLoader(ds, opt.Batch, seedFor(opt.Seed, use))
		if err != nil {
			return nil, err
		}
		t.loaders = append(t.loaders, l)
	}
	ls := policy.LossScale{Scale: 1}
	if opt.Policy != nil && opt.Policy.LossScale.Scale > 0 {
		ls = opt.Policy.LossScale
	}
	for _, u := range m.Updates() {
		s, err := scaling.NewLossScaler(ls.Scale, ls.Dynamic)
		if err != nil {
			return nil, err
		}
		t.scalers[u.Name] = s
	}
	var err error
	if t.nets, err = build(m, t.formats, opt.Seed); err != nil {
		return nil, err
	}
	for _, g := range t.nets.Groups {
		t.adam[g.Name] = t.newAdam(g.Name, g.Net.Params())
	}
	// A master format holds from the start: the initial weights are
	// stored in it too (to nearest).
	for _, p := range t.nets.Params() {
		if f := t.formats(p.Layer).Master.Format; f != nil {
			compute.Round(p.Data(), p.Data(), f, quant.Nearest, nil)
			p.Changed()
		}
	}
	t.cacheWeights()
	for _, u := range m.Updates() {
		for _, g := range u.Groups {
			if t.adam[g] == nil {
				return nil, fmt.Errorf("gan: update %s trains group %q, which the model does not build", u.Name, g)
			}
		}
	}
	if t.gr, err = newGraphs(t); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Trainer) newAdam(group string, ps []nn.Param) *Adam {
	sizes := make([]int, len(ps))
	formats := make([]ParamFormats, len(ps))
	rounds := false
	for i, p := range ps {
		sizes[i] = len(p.Data())
		formats[i] = ParamFormatsOf(t.formats(p.Layer))
		rounds = rounds || formats[i] != ParamFormats{}
	}
	a := NewAdam(sizes)
	a.LR, a.Beta1, a.Beta2 = t.opt.LR, t.opt.Beta1, t.opt.Beta2
	if rounds {
		a.Formats, a.Seed = formats, seedFor(t.opt.Seed, "adam "+group)
	}
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
func (t *Trainer) formats(layer string) nn.LayerFormats {
	return biased(t.opt.Policy, t.biases, layer)
}

func biased(p *policy.Policy, biases Biases, layer string) nn.LayerFormats {
	lf := p.For(layer)
	if b, ok := biases[layer]; ok {
		lf.Weight.Format = scaled(lf.Weight.Format, b[0])
		lf.Act.Format = scaled(lf.Act.Format, b[1])
		lf.Out.Format = scaled(lf.Out.Format, b[2])
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

// Model returns the model being trained.
func (t *Trainer) Model() Model { return t.model }

// Nets returns the networks being trained. Their parameters change in
// place at every step; after a bias change the trainer switches to new
// networks (over copies of the same values). Their layers cache their
// rounded weights (nn.CacheWeights): code that writes to a parameter
// between steps must call its Changed method after writing.
func (t *Trainer) Nets() *Nets { return t.nets }

// cacheWeights makes the layers of the networks round their weights once
// per write instead of at every read (nn.CacheWeights), with the same
// bits. Every write the trainer makes reports itself with
// nn.Param.Changed: Adam's updates, the master format's first rounding,
// checkpoint loads and the copies into rebuilt networks.
func (t *Trainer) cacheWeights() {
	for _, g := range t.nets.Groups {
		nn.CacheWeights(g.Net, !t.noWeightCache)
	}
}

// Adam returns the optimiser state of the group named name, or nil.
func (t *Trainer) Adam(group string) *Adam { return t.adam[group] }

// Biases returns the exponent biases chosen so far (a copy).
func (t *Trainer) Biases() Biases {
	b := Biases{}
	for k, v := range t.biases {
		b[k] = v
	}
	return b
}

// Formats returns the formats layer uses now.
func (t *Trainer) Formats(layer string) nn.LayerFormats { return t.formats(layer) }

// Epoch returns the (first) data loader's epoch.
func (t *Trainer) Epoch() int { return t.loaders[0].Epoch() }

// LogColumns returns the names of the per-step columns of the log, in
// the order of StepStats: "<update>_loss" for each update, the model's
// metrics, "loss_scale_<update>" and "skipped_<update>" for each update.
func (t *Trainer) LogColumns() []string { return logColumns(t.model) }

func logColumns(m Model) []string {
	var cols []string
	us := m.Updates()
	for _, u := range us {
		cols = append(cols, strings.ToLower(u.Name)+"_loss")
	}
	cols = append(cols, m.Metrics()...)
	for _, u := range us {
		cols = append(cols, "loss_scale_"+strings.ToLower(u.Name))
	}
	for _, u := range us {
		cols = append(cols, "skipped_"+strings.ToLower(u.Name))
	}
	return cols
}

// TrainStep runs one step: every update of the model, in order (of a
// Phased model, every active update).
func (t *Trainer) TrainStep() (StepStats, error) {
	gr := t.gr
	n := len(gr.updates)
	st := StepStats{Step: t.step + 1, Losses: make([]float64, n), Scales: make([]float64, n), Skipped: make([]bool, n),
		Metrics: make([]float64, gr.nMetrics)}
	batches, noise := t.batches, t.noise
	t.nets.setMaskStep(t.opt.Seed, t.step) // stochastic scores and frozen masks read it
	for i, l := range t.loaders {
		batches[i].X, batches[i].Labels = l.Next()
	}
	t.model.Feed(gr.inputs, batches, noise)
	relay, _ := t.model.(Relay)
	phased, _ := t.model.(Phased)
	active := func(u *updateGraph) bool { return phased == nil || phased.Active(u.update) }
	for i, u := range gr.updates {
		// An update's scale changes only when it is applied, so each is
		// known before any runs.
		*u.scale = t.scalers[u.update.Name].Scale
		st.Scales[i] = *u.scale
	}
	for _, u := range gr.updates {
		if u.early == nil || !active(u) {
			continue
		}
		if err := u.early.Run(); err != nil {
			return st, fmt.Errorf("gan: step %d: update %s, shared inputs: %w", st.Step, u.update.Name, err)
		}
		for _, sh := range u.shares {
			copy(sh.in, valuesOf(sh.node))
		}
	}
	for i, u := range gr.updates {
		if !active(u) {
			continue
		}
		u.errs = scaling.GradStats{}
		if err := u.prog.Run(); err != nil {
			return st, fmt.Errorf("gan: step %d: update %s: %w", st.Step, u.update.Name, err)
		}
		st.Losses[i] = scalarOf(u.loss)
		for _, m := range u.metrics {
			st.Metrics[m.index] = m.reduce(valuesOf(m.node))
		}
		if relay != nil {
			for _, o := range u.outputs {
				u.out[o.name] = valuesOf(o.node)
			}
			relay.AfterUpdate(u.update, u.out, gr.inputs, noise)
		}
		st.Skipped[i] = !t.update(u)
	}
	t.step++
	st.Epoch = t.Epoch()
	for i, l := range st.Losses {
		if math.IsNaN(l) {
			return st, fmt.Errorf("gan: step %d: loss of update %s is NaN", st.Step, gr.updates[i].update.Name)
		}
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
// the scaler decide, and applies Adam to each trained group if the step
// is good. It reports whether the update was applied.
//
// Errors must be inspected as well as weight gradients: a saturating
// format (posits) clips an error that overflows it to its largest value
// instead of producing Inf, and the weight gradients computed from the
// clipped errors can look normal. The scaler judges the worst tensor (the
// one with the largest fraction of saturated values): the loss gradient
// at D's output has one value per image, and all of them saturating must
// count as overflow however many values the other tensors have.
func (t *Trainer) update(u *updateGraph) bool {
	stats := u.errs
	gd := u.gd
	for i, p := range u.params {
		gd[i] = valuesOf(u.grads[i])
		limit := math.Inf(1)
		if p.Quantized {
			limit = t.gr.limits[p.Layer].wgrad
		}
		stats = worse(stats, scaling.InspectLimit(gd[i], limit))
	}
	s := t.scalers[u.update.Name]
	scale := s.Scale
	if !s.Update(stats) {
		return false
	}
	sched, _ := t.model.(Scheduler)
	off := 0
	for _, g := range u.update.Groups {
		a := t.adam[g]
		if sched != nil {
			a.LR = sched.LearningRate(g, t.step, t.opt.Steps, t.opt.LR)
		}
		k := len(a.M)
		pd := u.pd[off : off+k]
		for i := range pd {
			pd[i] = u.params[off+i].Data()
		}
		// Each weight tensor's rounding is kept current as Adam writes it
		// (nn.WeightWrite): the forward would otherwise round it again
		// from memory.
		for _, p := range u.params[off : off+k] {
			a.writes = append(a.writes, p.BeginWrite())
		}
		a.Step(pd, gd[off:off+k], scale)
		for _, w := range a.writes {
			w.Changed()
		}
		clear(a.writes)
		a.writes = a.writes[:0]
		off += k
	}
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

// OneHot sets dst (len(labels) rows of classes values) to the one-hot
// encoding of labels.
func OneHot(dst []float32, labels []int, classes int) {
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

// MeanSigmoid returns the mean of sigmoid over x: a discriminator's mean
// probability from its logits.
func MeanSigmoid(x []float32) float64 {
	var s float64
	for _, v := range x {
		x := float64(v)
		if x >= 0 {
			s += 1 / (1 + math.Exp(-x))
		} else {
			e := math.Exp(x)
			s += e / (1 + e)
		}
	}
	return s / float64(len(x))
}

// graphs are the graphs of a step's updates over one set of networks,
// with their machines, and the input tensors they share.
type graphs struct {
	inputs   Inputs
	updates  []*updateGraph
	limits   map[string]roleLimits // by layer
	nMetrics int                   // len(Model.Metrics())
}

// roleLimits are the largest finite magnitudes (scaling.MaxFinite) of a
// layer's error and weight-gradient formats, +Inf for float32; hasErr is
// false when errors are not rounded.
type roleLimits struct {
	err, wgrad float64
	hasErr     bool
}

type updateGraph struct {
	update  Update
	scale   *float64
	errs    scaling.GradStats // saturation of the errors in the last run
	prog    *graphexec.Program
	early   *graphexec.Program // computes shares before the step's updates run
	gd, pd  [][]float32        // update's gradient and parameter slices, reused
	shares  []share
	loss    *gorgonia.Node
	params  []nn.Param
	grads   []*gorgonia.Node
	metrics []indexedMetric
	outputs []output
	out     map[string][]float32 // the outputs' values for Relay.AfterUpdate, reused
	taps    []nn.Tap
}

type indexedMetric struct {
	metric
	index int
}

// checkShares reports an error if the nodes update u shares (computed by
// early, before the step's updates run) depend on parameters that an
// update before it trains.
func checkShares(u *Graph, early *graphexec.Program, before []*updateGraph) error {
	for _, b := range before {
		for _, g := range b.update.Groups {
			m, ok := u.shared[g]
			if !ok {
				continue
			}
			for _, p := range m.Params() {
				if early.Reads(p.Node) {
					return fmt.Errorf("gan: update %s shares a node that depends on %s's parameters, which update %s trains before it runs",
						u.update.Name, g, b.update.Name)
				}
			}
		}
	}
	return nil
}

// newInputs makes the input tensors m declares for batch.
func newInputs(m Model, batch int) (Inputs, map[string]*tensor.Dense) {
	in, ts := Inputs{}, map[string]*tensor.Dense{}
	for _, d := range m.Inputs(batch) {
		t := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(d.Shape...))
		ts[d.Name] = t
		in[d.Name] = t.Data().([]float32)
	}
	return in, ts
}

func newGraphs(t *Trainer) (gr *graphs, err error) {
	defer func() {
		// Gorgonia panics on some graph-building errors (see the notes on Gorgonia).
		if r := recover(); r != nil {
			err = fmt.Errorf("gan: building the training graphs: %v", r)
		}
	}()
	m := t.model
	in, ts := newInputs(m, t.opt.Batch)
	gr = &graphs{inputs: in, limits: map[string]roleLimits{}}
	maxFinite := map[string]float64{} // by format name
	limit := func(f quant.Format) float64 {
		if f == nil {
			return math.Inf(1)
		}
		v, ok := maxFinite[f.String()]
		if !ok {
			v = scaling.MaxFinite(f)
			maxFinite[f.String()] = v
		}
		return v
	}
	for _, l := range t.nets.Layers() {
		lf := t.formats(l)
		gr.limits[l] = roleLimits{err: limit(lf.Err.Format), wgrad: limit(lf.WGrad.Format), hasErr: lf.Err.Format != nil}
	}
	metricIndex := map[string]int{}
	for i, name := range m.Metrics() {
		metricIndex[name] = i
	}
	gr.nMetrics = len(m.Metrics())
	for _, up := range m.Updates() {
		ug := &updateGraph{update: up, scale: new(float64)}
		watch := func(layer string, dy []float32) {
			if l := gr.limits[layer]; l.hasErr {
				ug.errs = worse(ug.errs, scaling.InspectLimit(dy, l.err))
			}
		}
		lossOther := t.formats(LossLayer).Other
		u := &Graph{update: up, g: gorgonia.NewGraph(), nets: t.nets, shared: map[string]nn.Module{},
			inputs: map[string]*gorgonia.Node{}, data: ts, scale: ug.scale, watch: watch, watched: func(layer string) bool { return gr.limits[layer].hasErr }, train: true,
			lossOther: lossOther, seed: seedFor(t.nets.seed, "update "+up.Name)}
		if ug.loss, err = m.Loss(u); err != nil {
			return nil, fmt.Errorf("gan: update %s: %w", up.Name, err)
		}
		if ug.loss, err = nn.RoundOther(ug.loss, lossOther, seedFor(u.seed, "loss")); err != nil {
			return nil, fmt.Errorf("gan: update %s: %w", up.Name, err)
		}
		if ug.params, err = u.params(); err != nil {
			return nil, err
		}
		ug.gd, ug.pd = make([][]float32, len(ug.params)), make([][]float32, len(ug.params))
		nodes := make(gorgonia.Nodes, len(ug.params))
		for i, p := range ug.params {
			nodes[i] = p.Node
		}
		if ug.grads, err = gorgonia.Grad(ug.loss, nodes...); err != nil {
			return nil, fmt.Errorf("gan: update %s: gradients: %w", up.Name, err)
		}
		roots := gorgonia.Nodes{ug.loss}
		for _, mt := range u.metrics {
			i, ok := metricIndex[mt.name]
			if !ok {
				return nil, fmt.Errorf("gan: update %s reports metric %q, which the model does not declare", up.Name, mt.name)
			}
			ug.metrics = append(ug.metrics, indexedMetric{mt, i})
			roots = append(roots, mt.node)
		}
		ug.outputs, ug.out = u.outputs, make(map[string][]float32, len(u.outputs))
		for _, o := range u.outputs {
			roots = append(roots, o.node)
		}
		roots = append(roots, ug.grads...)
		ug.taps = u.taps()
		shared := len(roots)
		for _, sh := range u.shares {
			roots = append(roots, sh.node)
		}
		if ug.prog, err = graphexec.Compile(roots...); err != nil {
			return nil, fmt.Errorf("gan: update %s: %w", up.Name, err)
		}
		if len(u.shares) > 0 {
			ug.early, ug.prog = ug.prog.Split(roots[shared:]...)
			ug.shares = u.shares
			if err := checkShares(u, ug.early, gr.updates); err != nil {
				return nil, err
			}
		}
		gr.updates = append(gr.updates, ug)
	}
	return gr, nil
}
