package featnet

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/models/nn"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LeNet-5 geometry: 28×28 gray images, conv1 padded by 2 so that it sees
// the 32×32 field of the original network without copying the image into
// a larger one.
const (
	lenetSize = 28
	lenetFeat = 84 // penultimate layer: the features
	// LeNetArch is the architecture tag stored in LeNet weight files.
	LeNetArch = "lenet5-v1"
)

// The layers of a LeNet, in order. Policies address them by these names
// (a policy override "conv*" matches the three convolutions).
var lenetLayers = []string{"conv1", "conv2", "conv3", "fc1", "fc2"}

// LeNet is the LeNet-5 classifier of the posit training literature:
//
//	conv 6@5×5 (pad 2), tanh, avg-pool 2, conv 16@5×5, tanh, avg-pool 2,
//	conv 120@5×5, tanh, fc 84, tanh, fc Classes
//
// on 1×28×28 images in [-1, 1]. Its 84 tanh activations before the last
// layer are the features of a domain FID. Every dot product is rounded
// as the policy it was built with says, for the layer names conv1, conv2,
// conv3, fc1 and fc2; pooling, tanh and the loss are float32.
//
// A LeNet is not safe for concurrent use.
type LeNet struct {
	// Name labels the network in metric names, e.g. "LeNet-MNIST".
	Name string
	// Meta is stored in and read from weight files: data set, policy,
	// accuracy, and how it was trained.
	Meta    map[string]string
	Classes int

	policy *quant.Policy
	g      *gorgonia.ExprGraph // holds the parameter nodes
	conv   [3]*nn.Conv2d
	fc     [2]*nn.Linear
	eval   *lenetGraph // cached inference graph
}

// NewLeNet returns a LeNet for the given number of classes with weights
// drawn from seed (PyTorch's default uniform ±1/sqrt(fan-in)), whose dot
// products round as pol says (nil: float32).
func NewLeNet(classes int, pol *quant.Policy, seed uint64) (*LeNet, error) {
	if classes < 2 {
		return nil, fmt.Errorf("featnet: lenet with %d classes, want at least 2", classes)
	}
	l := &LeNet{Classes: classes, Meta: map[string]string{}, policy: pol, g: gorgonia.NewGraph()}
	convs := [3][2]int{{1, 6}, {6, 16}, {16, 120}}
	for i, c := range convs {
		pad := 0
		if i == 0 {
			pad = 2
		}
		name := lenetLayers[i]
		var err error
		l.conv[i], err = nn.NewConv2d(l.g, name, c[0], c[1], 5, 1, pad, pol.For(name), nn.WithSeed(seed+uint64(i)))
		if err != nil {
			return nil, fmt.Errorf("featnet: %w", err)
		}
	}
	fcs := [2][2]int{{120, lenetFeat}, {lenetFeat, classes}}
	for i, c := range fcs {
		name := lenetLayers[3+i]
		var err error
		l.fc[i], err = nn.NewLinear(l.g, name, c[0], c[1], pol.For(name), nn.WithSeed(seed+uint64(3+i)))
		if err != nil {
			return nil, fmt.Errorf("featnet: %w", err)
		}
	}
	return l, nil
}

// Policy returns the policy the network's dot products round with (nil:
// float32).
func (l *LeNet) Policy() *quant.Policy { return l.policy }

// params returns the parameter nodes of the layers as built in l.g, with
// their tensor names: conv1.w, conv1.b, ..., fc2.b.
func (l *LeNet) params() (names []string, nodes gorgonia.Nodes) {
	for _, c := range l.conv {
		nodes = append(nodes, c.Params()...)
	}
	for _, f := range l.fc {
		nodes = append(nodes, f.Params()...)
	}
	for _, n := range nodes {
		names = append(names, n.Name())
	}
	return names, nodes
}

// lenetGraph is a LeNet built for one batch size in its own graph, whose
// parameter nodes share the LeNet's tensors.
type lenetGraph struct {
	batch        int
	g            *gorgonia.ExprGraph
	x, target    []float32 // input values, written before each run
	feat, logits *gorgonia.Node
	loss         *gorgonia.Node // nil without training
	params       gorgonia.Nodes
	vm           gorgonia.VM
	scale        float64 // loss scale read by the cross-entropy op
}

// build returns the network for batches of the given size; with train
// set, it adds the mean cross-entropy loss and its gradients.
func (l *LeNet) build(batch int, train bool) (lg *lenetGraph, err error) {
	lg = &lenetGraph{batch: batch, g: gorgonia.NewGraph(), scale: 1}
	g := lg.g
	xt := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(batch, 1, lenetSize, lenetSize))
	lg.x = xt.Data().([]float32)
	h := gorgonia.NodeFromAny(g, xt, gorgonia.WithName("x"))
	for i, c := range l.conv {
		cs := c.Share(g)
		lg.params = append(lg.params, cs.Params()...)
		if h, err = cs.Fwd(h); err != nil {
			return nil, err
		}
		if h, err = nn.Tanh(h); err != nil {
			return nil, err
		}
		if i < 2 {
			if h, err = nn.AvgPool2D(h, 2, 2); err != nil {
				return nil, err
			}
		}
	}
	f1, f2 := l.fc[0].Share(g), l.fc[1].Share(g)
	lg.params = append(lg.params, f1.Params()...)
	lg.params = append(lg.params, f2.Params()...)
	if h, err = f1.Fwd(h); err != nil {
		return nil, err
	}
	if lg.feat, err = nn.Tanh(h); err != nil {
		return nil, err
	}
	if lg.logits, err = f2.Fwd(lg.feat); err != nil {
		return nil, err
	}
	if train {
		tt := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(batch, l.Classes))
		lg.target = tt.Data().([]float32)
		tn := gorgonia.NodeFromAny(g, tt, gorgonia.WithName("target"))
		per, err := softmaxXent(lg.logits, tn, &lg.scale)
		if err != nil {
			return nil, err
		}
		if lg.loss, err = gorgonia.Mean(per); err != nil {
			return nil, fmt.Errorf("featnet: mean loss: %w", err)
		}
		if _, err = gorgonia.Grad(lg.loss, lg.params...); err != nil {
			return nil, fmt.Errorf("featnet: lenet gradients: %w", err)
		}
	}
	if lg.vm, err = newMachine(g); err != nil {
		return nil, err
	}
	return lg, nil
}

// newMachine returns a TapeMachine for g; NewTapeMachine panics on
// compile errors instead of returning them.
func newMachine(g *gorgonia.ExprGraph) (vm gorgonia.VM, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("featnet: compiling the graph: %v", r)
		}
	}()
	return gorgonia.NewTapeMachine(g), nil
}

// run runs the graph once on the values in lg.x (and lg.target).
func (lg *lenetGraph) run() error {
	defer lg.vm.Reset()
	if err := lg.vm.RunAll(); err != nil {
		return fmt.Errorf("featnet: lenet: %w", err)
	}
	return nil
}

func (lg *lenetGraph) close() {
	if lg != nil && lg.vm != nil {
		lg.vm.Close()
	}
}

// TrainOptions configure LeNet training. Zero fields take the defaults.
type TrainOptions struct {
	Epochs int     // passes over the training set; default 1
	Batch  int     // default 64
	LR     float64 // Adam learning rate; default 1e-3
	Seed   uint64  // order of the batches
	// Progress, if not nil, is called after every step with the epoch
	// (from 1), the step within it, the steps per epoch and the step's
	// mean loss.
	Progress func(epoch, step, steps int, loss float64)
}

// Train trains l on ds (images 1×28×28, labels below l.Classes) with
// Adam and the softmax cross-entropy. If the network's policy asks for
// loss scaling, the loss is scaled before the backward pass (and the
// gradients unscaled before the update); with dynamic scaling a step
// whose gradients overflow is skipped and the scale halved.
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
	loader, err := datasets.NewLoader(ds, opt.Batch, opt.Seed)
	if err != nil {
		return fmt.Errorf("featnet: %w", err)
	}
	lg, err := l.build(opt.Batch, true)
	if err != nil {
		return err
	}
	defer lg.close()
	scaler, err := newScaler(l.policy)
	if err != nil {
		return err
	}
	solver := gorgonia.NewAdamSolver(gorgonia.WithLearnRate(opt.LR))
	steps := loader.BatchesPerEpoch()
	for epoch := 1; epoch <= opt.Epochs; epoch++ {
		for step := 1; step <= steps; step++ {
			images, labels := loader.Next()
			copy(lg.x, images)
			clear(lg.target)
			for i, c := range labels {
				lg.target[i*l.Classes+c] = 1
			}
			if scaler != nil {
				lg.scale = scaler.Scale
			}
			if err := lg.run(); err != nil {
				return err
			}
			loss := float64(lg.loss.Value().Data().(float32))
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return fmt.Errorf("featnet: lenet training diverged at epoch %d step %d: loss %v", epoch, step, loss)
			}
			apply, err := l.unscale(scaler, lg.params)
			if err != nil {
				return err
			}
			if apply {
				if err := solver.Step(gorgonia.NodesToValueGrads(lg.params)); err != nil {
					return fmt.Errorf("featnet: adam step: %w", err)
				}
			} else if err := nn.ZeroGrads(lg.params); err != nil {
				return fmt.Errorf("featnet: %w", err)
			}
			if opt.Progress != nil {
				opt.Progress(epoch, step, steps, loss)
			}
		}
	}
	l.eval.close()
	l.eval = nil // the weights changed; cached graphs share them anyway
	return nil
}

func (l *LeNet) checkData(ds datasets.Dataset) error {
	if s := ds.Shape(); s != (datasets.Shape{C: 1, H: lenetSize, W: lenetSize}) {
		return fmt.Errorf("featnet: lenet trains on 1x28x28 images, the data set has %v", s)
	}
	if ds.NumClasses() > l.Classes {
		return fmt.Errorf("featnet: data set has %d classes, the lenet %d", ds.NumClasses(), l.Classes)
	}
	return nil
}

// evalBatch is the batch size of inference graphs.
const evalBatch = 100

// evalGraph returns the cached inference graph.
func (l *LeNet) evalGraph() (*lenetGraph, error) {
	if l.eval == nil {
		lg, err := l.build(evalBatch, false)
		if err != nil {
			return nil, err
		}
		l.eval = lg
	}
	return l.eval, nil
}

// forEachBatch runs the inference graph on n images given by fill (which
// writes image i to dst) and calls use for every batch with the index of
// its first image and the number of real images in it.
func (l *LeNet) forEachBatch(n int, fill func(dst []float32, i int), use func(lg *lenetGraph, first, count int)) error {
	lg, err := l.evalGraph()
	if err != nil {
		return err
	}
	size := lenetSize * lenetSize
	for first := 0; first < n; first += lg.batch {
		count := min(lg.batch, n-first)
		for k := 0; k < count; k++ {
			fill(lg.x[k*size:(k+1)*size], first+k)
		}
		clear(lg.x[count*size:])
		if err := lg.run(); err != nil {
			return err
		}
		use(lg, first, count)
	}
	return nil
}

// Accuracy returns the fraction of ds that l classifies correctly (the
// largest logit; ties go to the lower class).
func (l *LeNet) Accuracy(ds datasets.Dataset) (float64, error) {
	if err := l.checkData(ds); err != nil {
		return 0, err
	}
	correct := 0
	err := l.forEachBatch(ds.Len(), ds.Image, func(lg *lenetGraph, first, count int) {
		z := lg.logits.Value().Data().([]float32)
		for k := 0; k < count; k++ {
			row := z[k*l.Classes : (k+1)*l.Classes]
			best := 0
			for j, v := range row {
				if v > row[best] {
					best = j
				}
			}
			if best == ds.Label(first+k) {
				correct++
			}
		}
	})
	if err != nil {
		return 0, err
	}
	return float64(correct) / float64(ds.Len()), nil
}

// features writes the 84 features of n 1×28×28 images to dst.
func (l *LeNet) features(dst []float64, images []float32, n int) error {
	size := lenetSize * lenetSize
	return l.forEachBatch(n, func(d []float32, i int) { copy(d, images[i*size:(i+1)*size]) },
		func(lg *lenetGraph, first, count int) {
			f := lg.feat.Value().Data().([]float32)
			out := dst[first*lenetFeat : (first+count)*lenetFeat]
			for i := range out {
				out[i] = float64(f[i])
			}
		})
}

// Checkpoint returns the weights and metadata of l as a checkpoint: tensors
// conv1.w (6,1,5,5), conv1.b, conv2.w (16,6,5,5), conv2.b, conv3.w
// (120,16,5,5), conv3.b, fc1.w (84,120), fc1.b, fc2.w (Classes,84), fc2.b,
// in PyTorch's layouts.
func (l *LeNet) Checkpoint() *ckpt.Checkpoint {
	c := ckpt.New()
	maps.Copy(c.Meta, l.Meta)
	c.Meta["featnet.arch"] = LeNetArch
	c.Meta["featnet.name"] = l.Name
	c.Meta["featnet.classes"] = strconv.Itoa(l.Classes)
	names, nodes := l.params()
	for i, n := range nodes {
		t := n.Value().(*tensor.Dense)
		c.Tensors[names[i]] = ckpt.Tensor{Shape: slices.Clone([]int(t.Shape())), Data: slices.Clone(t.Data().([]float32))}
	}
	return c
}

// Save writes l to path (atomically) as a safetensors checkpoint.
func (l *LeNet) Save(path string) error {
	if err := ckpt.Save(path, l.Checkpoint()); err != nil {
		return fmt.Errorf("featnet: %w", err)
	}
	return nil
}

// LoadLeNet reads a LeNet written by Save. The network computes in
// float32 whatever policy it was trained with; the policy is recorded in
// Meta["policy"].
func LoadLeNet(path string) (*LeNet, error) {
	c, err := ckpt.Load(path)
	if err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	l, err := lenetFrom(c.Tensors, c.Meta)
	if err != nil {
		return nil, fmt.Errorf("featnet: %s: %w", path, err)
	}
	return l, nil
}

// lenetFrom builds a float32 LeNet from checkpoint tensors and metadata.
func lenetFrom(ts map[string]ckpt.Tensor, meta map[string]string) (*LeNet, error) {
	if a := meta["featnet.arch"]; a != LeNetArch {
		return nil, fmt.Errorf("architecture %q, want %q", a, LeNetArch)
	}
	classes, err := strconv.Atoi(meta["featnet.classes"])
	if err != nil {
		return nil, fmt.Errorf("bad class count %q", meta["featnet.classes"])
	}
	l, err := NewLeNet(classes, nil, 1)
	if err != nil {
		return nil, err
	}
	l.Name = meta["featnet.name"]
	maps.Copy(l.Meta, meta)
	delete(l.Meta, "featnet.arch")
	delete(l.Meta, "featnet.name")
	delete(l.Meta, "featnet.classes")
	names, nodes := l.params()
	for i, n := range nodes {
		if err := setTensor(n.Value().(*tensor.Dense), ts, names[i]); err != nil {
			return nil, err
		}
	}
	if len(ts) != len(names) {
		for name := range ts {
			if !slices.Contains(names, name) {
				return nil, fmt.Errorf("unexpected tensor %q", name)
			}
		}
	}
	return l, nil
}

// setTensor copies tensor name of ts into dst, whose shape it must have.
func setTensor(dst *tensor.Dense, ts map[string]ckpt.Tensor, name string) error {
	t, ok := ts[name]
	if !ok {
		return &TensorError{Name: name, Reason: "missing"}
	}
	if !slices.Equal(t.Shape, []int(dst.Shape())) {
		return &TensorError{Name: name, Reason: fmt.Sprintf("shape %v, want %v", t.Shape, []int(dst.Shape()))}
	}
	copy(dst.Data().([]float32), t.Data)
	return nil
}

// ---- loss scaling ----

// newScaler returns the policy's loss scaler, or nil for none.
func newScaler(p *quant.Policy) (*scaling.LossScaler, error) {
	if p == nil || p.LossScale.Scale == 0 {
		return nil, nil
	}
	ls, err := scaling.NewLossScaler(p.LossScale.Scale, p.LossScale.Dynamic)
	if err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	return ls, nil
}

// unscale divides the weight gradients by the loss scale and reports
// whether the step should be applied (see scaling.LossScaler.Update).
func (l *LeNet) unscale(ls *scaling.LossScaler, params gorgonia.Nodes) (bool, error) {
	if ls == nil {
		return true, nil
	}
	inv := float32(1 / ls.Scale)
	var st scaling.GradStats
	for i, p := range params {
		g, err := p.Grad()
		if err != nil {
			return false, fmt.Errorf("featnet: gradient of %s: %w", p.Name(), err)
		}
		d := g.Data().([]float32)
		st.Add(scaling.Inspect(d, l.policy.For(lenetLayers[i/2]).WGrad))
		for j := range d {
			d[j] *= inv
		}
	}
	return ls.Update(st), nil
}
