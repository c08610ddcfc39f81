package deploy

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// build rebuilds the generator from the metadata through the models
// registry, checks that it has exactly the stored layers and tensors, and
// loads the decoded tensors into it, in evaluation mode.
func (m *Model) build() (nn.Module, error) {
	meta := &m.Meta
	cfg := meta.Model
	if err := m.checkSizes(); err != nil {
		return nil, err
	}
	if cfg.Tanh != meta.Tanh {
		return nil, fmt.Errorf("output tanh %q differs from the model configuration's %q", meta.Tanh, cfg.Tanh)
	}
	if meta.BatchNorm != "float32" && meta.BatchNorm != "folded" {
		return nil, fmt.Errorf("batch_norm %q: want float32 or folded", meta.BatchNorm)
	}
	gm, err := models.New(cfg)
	if err != nil {
		return nil, err
	}
	g, ok := gm.(gan.Generator)
	if !ok {
		return nil, fmt.Errorf("model %s does not make images from noise", cfg.Arch)
	}
	spec := g.Generator()
	if want := m.Spec(); spec.Net != want.Net || !slices.Equal(spec.Z, want.Z) || spec.Classes != want.Classes || spec.Image != want.Image {
		return nil, fmt.Errorf("the generator's description %+v does not match the model configuration's %+v", want, spec)
	}
	formats := map[string]nn.LayerFormats{}
	for _, l := range meta.Layers {
		lf, err := l.Formats()
		if err != nil {
			return nil, err
		}
		formats[l.Name] = lf
	}
	s := nn.NewScope(gorgonia.NewGraph(), func(layer string) nn.LayerFormats { return formats[layer] }, 1)
	groups, err := gm.Build(s)
	if err == nil {
		err = s.Err()
	}
	if err != nil {
		return nil, err
	}
	var net nn.Module
	for _, gr := range groups {
		if gr.Name == spec.Net {
			net = gr.Net
		}
	}
	if net == nil {
		return nil, fmt.Errorf("model %s builds no network %q", cfg.Arch, spec.Net)
	}
	if meta.BatchNorm == "float32" && len(meta.Folded) > 0 {
		return nil, fmt.Errorf("batch norms %v folded in a model whose batch_norm is float32", meta.Folded)
	}
	if net, err = m.unfold(net); err != nil {
		return nil, err
	}
	var layers []Layer
	var norms []Norm
	nn.Walk(net, func(mod nn.Module) {
		if li, ok := nn.Quantized(mod); ok {
			layers = append(layers, layerMeta(li))
		}
		if bn, name, ok := nn.BatchNormOf(mod); ok {
			norms = append(norms, Norm{Name: name, Channels: bn.C, Eps: bn.Eps})
		}
	})
	// The network builds dense layers: the file's sparse weights are
	// expanded (zeros at the dropped positions), so the run is the dense
	// run on the masked weights.
	if len(layers) == len(meta.Layers) {
		for i := range layers {
			layers[i].Sparsity = meta.Layers[i].Sparsity
		}
	}
	if !slices.Equal(layers, meta.Layers) {
		return nil, fmt.Errorf("the layers listed (%d) are not those the configuration builds (%d)", len(meta.Layers), len(layers))
	}
	if !slices.Equal(norms, meta.Norms) {
		return nil, fmt.Errorf("the batch norms listed (%d) are not those the configuration builds (%d)", len(meta.Norms), len(norms))
	}
	weight := map[string]quant.Format{}
	byName := map[string]Layer{}
	for _, l := range meta.Layers {
		weight[l.Name] = orFP32(formats[l.Name].Weight.Format)
		byName[l.Name] = l
	}
	type slot struct {
		name   string
		shape  tensor.Shape
		format quant.Format
		dst    []float32
		layer  Layer // the layer of a weight, zero otherwise
	}
	var slots []slot
	for _, p := range net.Params() {
		f := quant.Format(quant.FP32)
		var l Layer
		if p.Weight {
			f, l = weight[p.Layer], byName[p.Layer]
		}
		slots = append(slots, slot{p.Name, p.Node.Shape(), f, p.Data(), l})
	}
	for _, b := range net.Buffers() {
		slots = append(slots, slot{b.Name, b.Tensor.Shape(), quant.FP32, b.Data(), Layer{}})
	}
	if len(slots) != len(m.Tensors) {
		return nil, fmt.Errorf("%d tensors stored, the generator has %d", len(m.Tensors), len(slots))
	}
	for i, sl := range slots {
		t := &m.Tensors[i]
		switch {
		case t.Name != sl.name:
			return nil, fmt.Errorf("tensor %d is %q, want %q", i, t.Name, sl.name)
		case !slices.Equal(t.Shape, []int(sl.shape)):
			return nil, fmt.Errorf("tensor %s has shape %v, the generator %v", t.Name, t.Shape, sl.shape)
		case t.Format != sl.format:
			return nil, fmt.Errorf("tensor %s is stored as %v, its layer uses %v", t.Name, t.Format, sl.format)
		case t.Sparse.String() != sl.layer.Sparsity:
			return nil, fmt.Errorf("tensor %s is stored %q sparse, its layer says %q", t.Name, t.Sparse, sl.layer.Sparsity)
		}
		if !t.Sparse.Dense() {
			if err := t.Sparse.valid(t.Shape); err != nil {
				return nil, fmt.Errorf("tensor %s: %w", t.Name, err)
			}
			if _, _, err := t.Sparse.compress(t.Shape, t.Codes); err != nil {
				return nil, fmt.Errorf("tensor %s: %w", t.Name, err)
			}
			if from, to, _ := ReductionAxes(sl.layer.Kind); t.Sparse.From != from || t.Sparse.To != to {
				return nil, fmt.Errorf("tensor %s is sparse along axes [%d, %d), its %s layer reduces along [%d, %d)",
					t.Name, t.Sparse.From, t.Sparse.To, sl.layer.Kind, from, to)
			}
		}
		for j, c := range t.Codes {
			v := decode1(t.Format, c)
			// Rounding a finite value never gives NaN (a posit's NaR):
			// no export holds one. (±Inf it may: a float format without
			// saturation overflows, and the deployment table shows it.)
			if v != v {
				return nil, fmt.Errorf("tensor %s holds NaN at %d: not a trained network", t.Name, j)
			}
			sl.dst[j] = v
		}
	}
	nn.SetTraining(net, false)
	return net, nil
}

// checkSizes bounds the configuration by the number of stored values
// before anything is built, so that a crafted file cannot make the reader
// build a huge network.
func (m *Model) checkSizes() error {
	codes := 0
	for i := range m.Tensors {
		codes += len(m.Tensors[i].Codes)
	}
	c := m.Meta.Model
	const slack = 1 << 16
	sizes := []int{c.ZDim, c.Classes, c.Features, c.Channels, c.Height, c.Width}
	for _, v := range sizes {
		if v < 0 || v > codes+slack {
			return fmt.Errorf("model configuration %v is too large for %d stored values", c, codes)
		}
	}
	// The registered models' layers hold at least F² (hidden to hidden) or
	// F·(Z+C) and F·image/16 weights each (to and from the image).
	if c.Features*(c.Features+c.ZDim+c.Classes+c.Channels*c.Height*c.Width) > 64*codes+slack {
		return fmt.Errorf("model configuration %v is too large for %d stored values", c, codes)
	}
	return nil
}

// runner is the generator's graph for one batch size, as gan.Sampler
// builds it, with the quantized layers' taps for golden vectors.
type runner struct {
	n    int
	z, y []float32
	out  *gorgonia.Node
	taps []nn.Tap
	vm   *graphexec.Program
}

func newRunner(net nn.Module, spec gan.GeneratorSpec, n int) (r *runner, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("deploy: building the generator's graph: %v", p)
		}
	}()
	g := gorgonia.NewGraph()
	r = &runner{n: n}
	input := func(name string, shape tensor.Shape) (*gorgonia.Node, []float32) {
		t := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))
		return gorgonia.NodeFromAny(g, t, gorgonia.WithName(name)), t.Data().([]float32)
	}
	var z, y *gorgonia.Node
	z, r.z = input("z", append(tensor.Shape{n}, spec.Z...))
	if spec.Classes > 0 {
		y, r.y = input("y", tensor.Shape{n, spec.Classes})
	}
	gen := net.Share(g)
	nn.SetTraining(gen, false)
	p := &nn.Pass{Cond: y, FreezeStats: true}
	if r.out, err = gen.Forward(p, z); err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	r.taps = p.Taps
	if r.vm, err = graphexec.Compile(r.out); err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	// Only the images and the taps (golden vectors) are read after a
	// run; the other results are lent on once read.
	var keep []*gorgonia.Node
	for _, t := range r.taps {
		keep = append(keep, t.In, t.Out)
	}
	r.vm.Recycle(keep...)
	return r, nil
}

// runnerFor returns the graph for batch size n; m.mu is held.
func (m *Model) runnerFor(n int) (*runner, error) {
	if m.run != nil && m.run.n == n {
		return m.run, nil
	}
	if m.net == nil {
		net, err := m.build()
		if err != nil {
			return nil, fmt.Errorf("deploy: %w", err)
		}
		m.net = net
	}
	r, err := newRunner(m.net, m.Spec(), n)
	if err != nil {
		return nil, err
	}
	m.run = r
	return r, nil
}

// Generate returns the images the generator makes from the latent vectors
// z (n·ZSize values, n >= 1) and, for a conditional generator, the n class
// labels (nil otherwise), in (N, C, H, W) order with values in [-1, 1].
func (m *Model) Generate(z []float32, labels []int) ([]float32, error) {
	out, err := m.forward(z, labels, nil)
	return out, err
}

// forward runs the generator; if taps is not nil it is called with the
// quantized layers' taps after the run.
func (m *Model) forward(z []float32, labels []int, taps func([]nn.Tap)) ([]float32, error) {
	spec := m.Spec()
	zs := spec.ZSize()
	if len(z) == 0 || len(z)%zs != 0 {
		return nil, fmt.Errorf("deploy: Generate: %d latent values, want a positive multiple of %d", len(z), zs)
	}
	n := len(z) / zs
	if spec.Classes > 0 {
		if len(labels) != n {
			return nil, fmt.Errorf("deploy: Generate: %d labels for %d latent vectors", len(labels), n)
		}
		for _, l := range labels {
			if l < 0 || l >= spec.Classes {
				return nil, fmt.Errorf("deploy: Generate: label %d: the model has %d classes", l, spec.Classes)
			}
		}
	} else if len(labels) > 0 {
		return nil, fmt.Errorf("deploy: Generate: labels given to an unconditional generator")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.runnerFor(n)
	if err != nil {
		return nil, err
	}
	copy(r.z, z)
	gan.OneHot(r.y, labels, spec.Classes)
	if err := r.vm.Run(); err != nil {
		return nil, fmt.Errorf("deploy: generating: %w", err)
	}
	if taps != nil {
		taps(r.taps)
	}
	return slices.Clone(r.out.Value().Data().([]float32)), nil
}
