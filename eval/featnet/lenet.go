package featnet

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
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
// conv3, fc1 and fc2 (with the exponent biases its last Train chose, if
// that re-estimated them); pooling, tanh and the loss are float32.
//
// A LeNet is not safe for concurrent use.
type LeNet struct {
	// Name labels the network in metric names, e.g. "LeNet-MNIST".
	Name string
	// Meta is stored in and read from weight files: data set, policy,
	// accuracy, and how it was trained.
	Meta    map[string]string
	Classes int

	policy *policy.Policy
	net    *lenetNet
	eval   *lenetGraph // cached inference graph
}

// lenetNet is a LeNet's network as a module: body maps images to the 84
// features, head maps the features to the logits.
type lenetNet struct{ body, head nn.Module }

// buildLeNet builds the layers of a LeNet in s, at its root so that they
// are named conv1 ... fc2. Layer i is initialised from seeds[i], or from
// the scope's seed for it if seeds is nil.
func buildLeNet(s *nn.Scope, classes int, seeds []uint64) (*lenetNet, error) {
	opt := func(i int) []nn.Option {
		if seeds == nil {
			return nil
		}
		return []nn.Option{nn.WithSeed(seeds[i])}
	}
	pool := nn.Func("AvgPool2D(2)", func(x *gorgonia.Node) (*gorgonia.Node, error) { return nn.AvgPool2D(x, 2, 2) })
	n := &lenetNet{
		body: nn.Seq(
			s.Conv(lenetLayers[0], 1, 6, 5, 1, 2, opt(0)...), s.Tanh(), pool,
			s.Conv(lenetLayers[1], 6, 16, 5, 1, 0, opt(1)...), s.Tanh(), pool,
			s.Conv(lenetLayers[2], 16, 120, 5, 1, 0, opt(2)...), s.Tanh(),
			s.Linear(lenetLayers[3], 120, lenetFeat, opt(3)...), s.Tanh()),
		head: s.Linear(lenetLayers[4], lenetFeat, classes, opt(4)...),
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	return n, nil
}

func (n *lenetNet) Forward(p *nn.Pass, x *gorgonia.Node) (*gorgonia.Node, error) {
	h, err := n.body.Forward(p, x)
	if err != nil {
		return nil, err
	}
	return n.head.Forward(p, h)
}

func (n *lenetNet) Params() []nn.Param    { return append(n.body.Params(), n.head.Params()...) }
func (n *lenetNet) Buffers() []nn.Buffer  { return nil }
func (n *lenetNet) Children() []nn.Module { return []nn.Module{n.body, n.head} }
func (n *lenetNet) Share(g *gorgonia.ExprGraph) nn.Module {
	return &lenetNet{body: n.body.Share(g), head: n.head.Share(g)}
}

// NewLeNet returns a LeNet for the given number of classes with weights
// drawn from seed (PyTorch's default uniform ±1/sqrt(fan-in)), whose dot
// products round as pol says (nil: float32).
func NewLeNet(classes int, pol *policy.Policy, seed uint64) (*LeNet, error) {
	if classes < 2 {
		return nil, fmt.Errorf("featnet: lenet with %d classes, want at least 2", classes)
	}
	var f nn.Formats
	if pol != nil {
		f = pol.For
	}
	seeds := make([]uint64, len(lenetLayers))
	for i := range seeds {
		seeds[i] = seed + uint64(i)
	}
	net, err := buildLeNet(nn.NewScope(gorgonia.NewGraph(), f, seed), classes, seeds)
	if err != nil {
		return nil, err
	}
	return &LeNet{Classes: classes, Meta: map[string]string{}, policy: pol, net: net}, nil
}

// Policy returns the policy the network's dot products round with (nil:
// float32).
func (l *LeNet) Policy() *policy.Policy { return l.policy }

// params returns the parameters of the layers, named conv1.w, conv1.b,
// ..., fc2.b.
func (l *LeNet) params() []nn.Param { return l.net.Params() }

// lenetGraph is a LeNet's inference graph for one batch size, whose
// parameter nodes share the LeNet's tensors.
type lenetGraph struct {
	batch        int
	x            []float32 // input values, written before each run
	feat, logits *gorgonia.Node
	vm           *graphexec.Program
}

// build returns the inference graph for batches of the given size.
func (l *LeNet) build(batch int) (lg *lenetGraph, err error) {
	lg = &lenetGraph{batch: batch}
	g := gorgonia.NewGraph()
	xt := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(batch, 1, lenetSize, lenetSize))
	lg.x = xt.Data().([]float32)
	x := gorgonia.NodeFromAny(g, xt, gorgonia.WithName("x"))
	if lg.feat, err = l.net.body.Share(g).Forward(nil, x); err != nil {
		return nil, fmt.Errorf("featnet: lenet: %w", err)
	}
	if lg.logits, err = l.net.head.Share(g).Forward(nil, lg.feat); err != nil {
		return nil, fmt.Errorf("featnet: lenet: %w", err)
	}
	if lg.vm, err = graphexec.Compile(lg.logits); err != nil {
		return nil, fmt.Errorf("featnet: lenet: %w", err)
	}
	return lg, nil
}

// run runs the graph once on the values in lg.x.
func (lg *lenetGraph) run() error {
	if err := lg.vm.Run(); err != nil {
		return fmt.Errorf("featnet: lenet: %w", err)
	}
	return nil
}

func (l *LeNet) checkData(ds datasets.Dataset) error { return checkLeNetData(ds, l.Classes) }

// checkLeNetData reports whether a LeNet of the given classes can train
// on or classify ds.
func checkLeNetData(ds datasets.Dataset, classes int) error {
	if s := ds.Shape(); s != (datasets.Shape{C: 1, H: lenetSize, W: lenetSize}) {
		return fmt.Errorf("featnet: lenet trains on 1x28x28 images, the data set has %v", s)
	}
	if ds.NumClasses() > classes {
		return fmt.Errorf("featnet: data set has %d classes, the lenet %d", ds.NumClasses(), classes)
	}
	return nil
}

// evalBatch is the batch size of inference graphs.
const evalBatch = 100

// evalGraph returns the cached inference graph.
func (l *LeNet) evalGraph() (*lenetGraph, error) {
	if l.eval == nil {
		lg, err := l.build(evalBatch)
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
			if argmax(z[k*l.Classes:(k+1)*l.Classes]) == ds.Label(first+k) {
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
	for _, p := range l.params() {
		c.Tensors[p.Name] = ckpt.Tensor{Shape: slices.Clone([]int(p.Node.Shape())), Data: slices.Clone(p.Data())}
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
	ps := l.params()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
		if err := setTensor(p.Node.Value().(*tensor.Dense), ts, p.Name); err != nil {
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
