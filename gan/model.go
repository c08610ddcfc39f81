package gan

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/nn"
)

// A Model is what a Trainer trains: networks in named parameter groups
// and the procedure of one training step (its updates and their losses).
// Package models defines and registers the project's models, one file
// each; any type that implements Model trains the same way.
type Model interface {
	// Config returns the model's configuration as JSON, kept in
	// checkpoints so that the model can be built again.
	Config() string
	// Check reports whether the model can train on the data sets.
	Check(data []datasets.Dataset) error
	// Build builds the networks in s, one per parameter group, in a
	// fixed order ("G", "D"; or "G_AB", "G_BA", "D_A", "D_B").
	Build(s *nn.Scope) ([]Group, error)
	// Inputs declares the tensors a step's graphs read, for batches of
	// the given size. Feed fills them before every step.
	Inputs(batch int) []Input
	// Feed fills the step's inputs from one batch of each data set
	// (nil when there are no data: sampling and inspection) and the
	// step's noise source, which it must draw from in a fixed order.
	Feed(in Inputs, data []Batch, noise *rand.Rand)
	// Updates returns the updates of one step, in the order they run.
	Updates() []Update
	// Loss builds in u the loss that update u.Update() minimises.
	Loss(u *Graph) (*gorgonia.Node, error)
	// Metrics names the figures Loss reports with Graph.Metric, in the
	// order the log shows them (e.g. "d_real", "d_fake").
	Metrics() []string
}

// Group is a network whose parameters one optimiser trains.
type Group struct {
	Name string
	Net  nn.Module
}

// Update is one optimiser step of a training step: the loss Model.Loss
// builds for it is minimised over the parameters of Groups. Each group
// has its own Adam state; the update has its own loss scaler.
type Update struct {
	Name   string   // e.g. "D", "G"; lower-cased in log columns
	Groups []string // the groups it trains
}

// Input is a tensor a step's graphs read: noise, labels, a batch of data.
type Input struct {
	Name  string
	Shape tensor.Shape
}

// Inputs holds the values of a step's inputs by name.
type Inputs map[string][]float32

// Batch is one batch of a data set: images (N, C, H, W) with values in
// [-1, 1], and their labels.
type Batch struct {
	X      []float32
	Labels []int
}

// Graph is the graph of one update under construction: Model.Loss reads
// its inputs, applies the networks and reports metrics through it.
type Graph struct {
	update  Update
	g       *gorgonia.ExprGraph
	nets    *Nets
	shared  map[string]nn.Module
	inputs  map[string]*gorgonia.Node
	data    map[string]*tensor.Dense // the tensors inputs are made from, shared by all graphs
	scale   *float64
	watch   func(layer string, dy []float32)
	watched func(layer string) bool // the layers watch sees
	capture bool
	train   bool // put shared copies in training mode
	passes  []*nn.Pass
	// lossOther rounds every network output this graph uses, and the
	// gradient that comes back to it (the Other role of the layer named
	// "loss"); seed seeds its stochastic rounding.
	lossOther nn.Quantizer
	seed      uint64
	metrics   []metric
	outputs   []output // see Output (hooks.go)
	shares    []share
}

// share is a node whose value fills an input before the step's updates
// run (see Share).
type share struct {
	name string
	node *gorgonia.Node
	in   []float32 // the input's values (those of Inputs[name])
}

type metric struct {
	name   string
	node   *gorgonia.Node
	reduce func([]float32) float64
}

// Update returns the update the graph is for.
func (u *Graph) Update() Update { return u.update }

// Input returns the node of the input named name (declared by
// Model.Inputs).
func (u *Graph) Input(name string) (*gorgonia.Node, error) {
	if n, ok := u.inputs[name]; ok {
		return n, nil
	}
	t, ok := u.data[name]
	if !ok {
		return nil, fmt.Errorf("gan: update %s: no input %q (the model declares none)", u.update.Name, name)
	}
	n := gorgonia.NodeFromAny(u.g, t, gorgonia.WithName(name))
	u.inputs[name] = n
	return n, nil
}

// Forward applies the network of group net to x, with the one-hot labels
// cond for a conditional network (nil otherwise). A network not trained
// by this update keeps its batch-norm running statistics.
func (u *Graph) Forward(net string, x, cond *gorgonia.Node) (*gorgonia.Node, error) {
	m, ok := u.shared[net]
	if !ok {
		orig := u.nets.Net(net)
		if orig == nil {
			return nil, fmt.Errorf("gan: update %s: no network %q", u.update.Name, net)
		}
		m = orig.Share(u.g)
		if u.train {
			nn.SetTraining(m, true)
		}
		u.shared[net] = m
	}
	trained := false
	for _, g := range u.update.Groups {
		trained = trained || g == net
	}
	p := &nn.Pass{Cond: cond, Watch: u.watch, WatchLayer: u.watched, Capture: u.capture, FreezeStats: !trained}
	u.passes = append(u.passes, p)
	y, err := m.Forward(p, x)
	if err != nil {
		return nil, err
	}
	return nn.RoundOther(y, u.lossOther, seedFor(u.seed, fmt.Sprintf("loss input %d", len(u.passes))))
}

// Share has n, a node of this update's graph, computed before the step's
// first update runs, and its value copied into the step's input called
// name, which every update of the step then reads with Input as data,
// without a gradient. Model.Inputs declares that input and Feed leaves it
// alone.
//
// It lets an earlier update reuse a forward pass a later one makes anyway:
// noiseGAN's D update judges the fake batch that the G update's graph
// makes and differentiates (as PyTorch's DCGAN example judges
// fake.detach()), so G runs forward once a step, not twice. n must not
// depend on the parameters of a group that an earlier update of the step
// trains (they change before this update runs); a Phased model must keep
// the sharing update active whenever an update reading it is. What
// computing n does besides (a training batch norm's running statistics)
// happens then too, before the step's first update.
func (u *Graph) Share(name string, n *gorgonia.Node) error {
	t, ok := u.data[name]
	switch {
	case !ok:
		return fmt.Errorf("gan: update %s shares %q, which the model does not declare as an input", u.update.Name, name)
	case !t.Shape().Eq(n.Shape()) || n.Dtype() != tensor.Float32:
		return fmt.Errorf("gan: update %s shares a %v %v node as input %q of shape %v", u.update.Name, n.Dtype(), n.Shape(), name, t.Shape())
	}
	for _, s := range u.shares {
		if s.name == name {
			return fmt.Errorf("gan: update %s shares input %q twice", u.update.Name, name)
		}
	}
	u.shares = append(u.shares, share{name, n, t.Float32s()})
	return nil
}

// LossScale returns the loss scale of this update, read at every run:
// the loss node multiplies the gradient it passes back by it (see
// nn.SoftplusLoss).
func (u *Graph) LossScale() *float64 { return u.scale }

// Metric reports reduce(values of n) after every run as the figure name
// (one of Model.Metrics).
func (u *Graph) Metric(name string, n *gorgonia.Node, reduce func([]float32) float64) {
	u.metrics = append(u.metrics, metric{name, n, reduce})
}

// params returns the parameters of the groups this update trains, as
// shared into its graph.
func (u *Graph) params() ([]nn.Param, error) {
	var ps []nn.Param
	for _, g := range u.update.Groups {
		m, ok := u.shared[g]
		if !ok {
			return nil, fmt.Errorf("gan: update %s trains %s, but its loss does not use that network", u.update.Name, g)
		}
		ps = append(ps, m.Params()...)
	}
	return ps, nil
}

// taps returns the quantized layers' taps of every pass, in order.
func (u *Graph) taps() []nn.Tap {
	var ts []nn.Tap
	for _, p := range u.passes {
		ts = append(ts, p.Taps...)
	}
	return ts
}

// Nets are a model's networks built over one set of parameter tensors.
type Nets struct {
	Model  Model
	Groups []Group
	// BatchStats is true for networks loaded from a checkpoint without
	// batch-norm running statistics (written before they were kept):
	// they can only be evaluated with the statistics of each batch.
	BatchStats bool

	others []string          // the names of the layers with an Other role (nn.Scope.OtherNames)
	seed   uint64            // the seed the networks were built with
	masks  *[]*nn.WeightMask // the N:M weight masks, found once (sparsity.go)
}

// LossLayer is the name under which a policy gives the loss its Other
// format ("loss:other=none"): the loss's value, every network output that
// enters it and the gradient that comes back from it are rounded to it.
const LossLayer = "loss"

// Names returns every layer name a policy can address in these networks:
// the quantized layers (Layers), the layers with an Other role ("G/bn1",
// "G/relu") and LossLayer.
func (n *Nets) Names() []string {
	return append(append(n.Layers(), n.others...), LossLayer)
}

// Net returns the network of the group named name, or nil.
func (n *Nets) Net(name string) nn.Module {
	for _, g := range n.Groups {
		if g.Name == name {
			return g.Net
		}
	}
	return nil
}

// Params returns the parameters of every group, in group order.
func (n *Nets) Params() []nn.Param {
	var ps []nn.Param
	for _, g := range n.Groups {
		ps = append(ps, g.Net.Params()...)
	}
	return ps
}

// Buffers returns the buffers of every group, in group order.
func (n *Nets) Buffers() []nn.Buffer {
	var bs []nn.Buffer
	for _, g := range n.Groups {
		bs = append(bs, g.Net.Buffers()...)
	}
	return bs
}

// Layers returns the names of the quantized layers of every group.
func (n *Nets) Layers() []string {
	var ls []string
	for _, g := range n.Groups {
		ls = append(ls, nn.Layers(g.Net)...)
	}
	return ls
}

// build builds m's networks with the formats f and seed.
func build(m Model, f nn.Formats, seed uint64) (*Nets, error) {
	s := nn.NewScope(gorgonia.NewGraph(), f, seed)
	gs, err := m.Build(s)
	if err == nil {
		err = s.Err()
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, g := range gs {
		if seen[g.Name] || g.Net == nil {
			return nil, fmt.Errorf("gan: model's groups: %q is repeated or has no network", g.Name)
		}
		seen[g.Name] = true
	}
	n := &Nets{Model: m, Groups: gs, others: s.OtherNames(), seed: seed}
	ms := n.findMasks()
	n.masks = &ms
	return n, nil
}
