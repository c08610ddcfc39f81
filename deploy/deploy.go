package deploy

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/regfile"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/sparsity"
)

// Model is an exported generator: its tensors as codes and what is needed
// to run them. Load or Export make one; it is safe for concurrent use.
type Model struct {
	Meta    Meta
	Tensors []Tensor // in the generator's parameter order, then its buffers

	mu  sync.Mutex
	net nn.Module // built on first use
	run *runner   // the last batch size's graph
}

// Meta is the file's JSON metadata.
type Meta struct {
	// Model is the model's configuration (package models builds the
	// network from it); its Tanh is the output activation.
	Model models.Config `json:"model"`
	// Generator names the network (the group, "G") the tensors belong to.
	Generator string `json:"generator"`
	Z         []int  `json:"z"`       // the shape of one latent vector
	Classes   int    `json:"classes"` // > 0: conditional on this many classes
	Image     [3]int `json:"image"`   // channels, height, width; values in [-1, 1]
	// Tanh is the output tanh approximation (tanhapprox.Parse), "" for
	// the exact tanh: the same as Model.Tanh, repeated for readers.
	Tanh string `json:"tanh"`
	// Policy is the policy the model was exported under, as TOML
	// (policy.Read), "" for float32; PolicyName its label.
	Policy     string `json:"policy"`
	PolicyName string `json:"policy_name"`
	// BatchNorm is "float32": batch norm kept as a layer with float32
	// parameters and running statistics (bit-exact), or "folded" into
	// the preceding layers.
	BatchNorm string `json:"batch_norm"`
	Step      int    `json:"step"` // training steps of the source checkpoint
	// Layers are the quantized layers in the order the network applies
	// them, with their formats (exponent biases included).
	Layers []Layer `json:"layers"`
	// Norms are the batch norms kept (float32); Folded names those folded
	// into the layer before them, absent from the network that runs.
	Norms  []Norm   `json:"batch_norms"`
	Folded []string `json:"folded,omitempty"`
}

// Layer describes one quantized layer of the file.
type Layer struct {
	Name   string `json:"name"` // e.g. "G/fc1"; its tensors are Name+".w" and Name+".b"
	Kind   string `json:"kind"` // "linear", "conv2d" or "convtranspose2d"
	In     int    `json:"in"`   // input features or channels (labels included for conditional layers)
	Out    int    `json:"out"`
	K      int    `json:"k,omitempty"`
	Stride int    `json:"stride,omitempty"`
	Pad    int    `json:"pad,omitempty"`
	OutPad int    `json:"out_pad,omitempty"`
	Bias   bool   `json:"bias"`
	// Formats by role, as quant.Parse reads them ("none": float32).
	Weight      string `json:"weight"`
	Act         string `json:"act"`
	Output      string `json:"out_format"`
	Accum       string `json:"accum"` // fp32, quire or per-op
	AccumFormat string `json:"accum_format"`
	// Sparsity is "N:M" if the layer's weights are stored N:M sparse
	// along its reduction axes (ReductionAxes), "" if dense.
	Sparsity string `json:"sparsity,omitempty"`
}

// Norm describes one batch norm of the file.
type Norm struct {
	Name     string  `json:"name"` // tensors Name+".gamma", ".beta", ".running_mean", ".running_var"
	Channels int     `json:"channels"`
	Eps      float64 `json:"eps"`
}

// Tensor is one stored tensor: Codes of Format, row-major in Shape.
type Tensor struct {
	Name   string
	Format quant.Format // float32 tensors are quant.FP32: their codes are IEEE binary32 bits
	Shape  []int
	Codes  []uint32 // every value, the dropped ones of a sparse tensor as 0
	// Sparse, if not zero, stores the tensor N:M sparse: the file holds
	// only the kept codes and their in-block indices.
	Sparse Sparsity
}

// Size returns the number of values.
func (t *Tensor) Size() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Values returns the decoded values.
func (t *Tensor) Values() []float32 {
	v := make([]float32, len(t.Codes))
	for i, c := range t.Codes {
		v[i] = decode1(t.Format, c)
	}
	return v
}

func decode1(f quant.Format, c uint32) float32 {
	if f == quant.FP32 {
		return math.Float32frombits(c)
	}
	return float32(f.Decode(c))
}

func encode1(f quant.Format, x float32) uint32 {
	if f == quant.FP32 {
		return math.Float32bits(x)
	}
	return f.Encode(x)
}

// An Option changes what Export does.
type Option func(*options)

type options struct {
	fold   bool
	sparse func(layer string) sparsity.Pattern // nil: dense
}

// FoldBatchNorm folds each batch norm into the layer before it where that
// layer has a bias (see docs/deployment.md for the rule). The folded
// weights are rounded to the layer's weight format, so the model no longer
// equals the checkpoint bit for bit.
func FoldBatchNorm() Option { return func(o *options) { o.fold = true } }

// Export returns the generator of checkpoint c for inference under policy
// or, if policy is nil, under the checkpoint's policy with the exponent
// biases training chose (as models.Load). Weights are stored as codes of
// their layer's weight format; biases and batch norm as float32. A layer
// whose policy has an N:M weight sparsity (nn.Sparsity) has its weights
// masked as its products read them (the mask its scorer chooses now, or
// the frozen one) and stored N:M sparse, as with Sparsify.
func Export(c *ckpt.Checkpoint, policy *policy.Policy, opts ...Option) (*Model, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	saved, err := gan.ReadState(c)
	if err != nil {
		return nil, err
	}
	nets, cfg, err := models.Load(c, policy)
	if err != nil {
		return nil, err
	}
	if nets.BatchStats {
		return nil, fmt.Errorf("deploy: the checkpoint has no batch-norm running statistics (written before they were kept): nothing to deploy")
	}
	gm, ok := nets.Model.(gan.Generator)
	if !ok {
		return nil, fmt.Errorf("deploy: model %s does not make images from noise", cfg.Arch)
	}
	spec := gm.Generator()
	net := nets.Net(spec.Net)
	pol := policy
	if pol == nil {
		pol = saved.Options.Policy
	}
	m := &Model{Meta: Meta{
		Model: cfg, Generator: spec.Net, Z: slices.Clone(spec.Z), Classes: spec.Classes,
		Image: [3]int{spec.Image.C, spec.Image.H, spec.Image.W}, Tanh: cfg.Tanh,
		BatchNorm: "float32", Step: saved.Step,
	}}
	if pol != nil {
		m.Meta.Policy, m.Meta.PolicyName = pol.String(), pol.Name
	}
	weightFormat := map[string]quant.Format{}
	var werr error
	nn.Walk(net, func(mod nn.Module) {
		if li, ok := nn.Quantized(mod); ok {
			if li.Formats.DotRounding() == quant.Stochastic && werr == nil {
				werr = fmt.Errorf("deploy: layer %s rounds stochastically; export a policy with nearest rounding", li.Name)
			}
			m.Meta.Layers = append(m.Meta.Layers, layerMeta(li))
			weightFormat[li.Name] = orFP32(li.Formats.Weight.Format)
		}
		if bn, name, ok := nn.BatchNormOf(mod); ok {
			m.Meta.Norms = append(m.Meta.Norms, Norm{Name: name, Channels: bn.C, Eps: bn.Eps})
		}
	})
	if werr != nil {
		return nil, werr
	}
	masks := map[string]*nn.WeightMask{} // the policy's N:M weight masks
	for _, wm := range nn.Masks(net) {
		masks[wm.Layer()] = wm
	}
	values := map[string][]float32{}
	for _, p := range net.Params() {
		f := quant.Format(quant.FP32)
		var sp Sparsity
		v := p.Data()
		if p.Weight {
			f = weightFormat[p.Layer]
			if sp, v, err = sparseWeights(o, masks[p.Layer], m.Meta.Layers, p.Layer, p.Node.Shape(), v); err != nil {
				return nil, err
			}
		}
		t := newTensor(p.Name, f, p.Node.Shape(), v)
		t.Sparse = sp
		m.Tensors = append(m.Tensors, t)
		values[p.Name] = v
	}
	for _, b := range net.Buffers() {
		m.Tensors = append(m.Tensors, newTensor(b.Name, quant.FP32, b.Tensor.Shape(), b.Data()))
	}
	if o.fold {
		if err := m.fold(net, values); err != nil {
			return nil, err
		}
	}
	return m, m.check()
}

func newTensor(name string, f quant.Format, shape []int, v []float32) Tensor {
	t := Tensor{Name: name, Format: f, Shape: slices.Clone(shape), Codes: make([]uint32, len(v))}
	for i, x := range v {
		t.Codes[i] = encode1(f, x)
	}
	return t
}

func orFP32(f quant.Format) quant.Format {
	if f == nil {
		return quant.FP32
	}
	return f
}

func formatName(f quant.Format) string {
	if f == nil {
		return "none"
	}
	return f.String()
}

func parseFormat(s string) (quant.Format, error) {
	if s == "none" {
		return nil, nil
	}
	return quant.ParseSelfContained(s) // from a .pgmodel: no table:FILE
}

func layerMeta(li nn.LayerInfo) Layer {
	f := li.Formats
	return Layer{Name: li.Name, Kind: li.Kind, In: li.In, Out: li.Out, K: li.K, Stride: li.Stride, Pad: li.Pad, OutPad: li.OutPad,
		Bias: li.Bias, Weight: formatName(f.Weight.Format), Act: formatName(f.Act.Format), Output: formatName(f.Out.Format),
		Accum: f.Accum.String(), AccumFormat: formatName(f.AccumFormat)}
}

// Formats returns the formats of the layer as the file gives them.
func (l Layer) Formats() (nn.LayerFormats, error) {
	var lf nn.LayerFormats
	var err error
	for _, r := range []struct {
		dst  *quant.Format
		name string
	}{{&lf.Weight.Format, l.Weight}, {&lf.Act.Format, l.Act}, {&lf.Out.Format, l.Output}, {&lf.AccumFormat, l.AccumFormat}} {
		if *r.dst, err = parseFormat(r.name); err != nil {
			return lf, fmt.Errorf("layer %s: %w", l.Name, err)
		}
	}
	if lf.Accum, err = quant.ParseAccumulation(l.Accum); err != nil {
		return lf, fmt.Errorf("layer %s: %w", l.Name, err)
	}
	return lf, nil
}

// Spec returns the generator's description (latent shape, classes, image).
func (m *Model) Spec() gan.GeneratorSpec {
	im := m.Meta.Image
	return gan.GeneratorSpec{Net: m.Meta.Generator, Z: m.Meta.Z, Classes: m.Meta.Classes,
		Image: datasets.Shape{C: im[0], H: im[1], W: im[2]}}
}

// Tensor returns the tensor called name, or nil.
func (m *Model) Tensor(name string) *Tensor {
	for i := range m.Tensors {
		if m.Tensors[i].Name == name {
			return &m.Tensors[i]
		}
	}
	return nil
}

// check reports whether the metadata and tensors are consistent: the
// configuration builds, its generator has exactly the stored layers and
// tensors in their shapes, and each weight is stored in its layer's weight
// format.
func (m *Model) check() error {
	net, err := m.build()
	if err != nil {
		return err
	}
	m.net = net
	return nil
}

// Save writes the model to path atomically.
func (m *Model) Save(path string) error {
	b, err := m.encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b)
}

// Bytes returns the model's file contents.
func (m *Model) Bytes() ([]byte, error) { return m.encode() }

// Parse returns the model a file's contents hold. A truncated, corrupted
// or malformed file gives a FormatError, a file of another version a
// VersionError.
func Parse(b []byte) (*Model, error) { return decode(b) }

// Load reads the model file at path.
func Load(path string) (*Model, error) {
	b, err := regfile.ReadFile(path, 0) // a regular file: a named pipe would block
	if err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	m, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Float32Bytes returns the size of the stored tensors as float32 values.
func (m *Model) Float32Bytes() int {
	n := 0
	for i := range m.Tensors {
		n += 4 * len(m.Tensors[i].Codes)
	}
	return n
}

// Summary returns one line per stored tensor: name, format, shape, bytes.
func (m *Model) Summary() string {
	var b strings.Builder
	for _, t := range m.Tensors {
		fmt.Fprintf(&b, "%-24s %-22s %-16v %8d bytes", t.Name, t.Format, t.Shape, t.PayloadBytes())
		if !t.Sparse.Dense() {
			fmt.Fprintf(&b, "  %s sparse", t.Sparse)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// PayloadBytes returns the bytes of the tensor's codes in the file: the
// packed codes, or for a sparse tensor the packed kept codes and indices.
func (t *Tensor) PayloadBytes() int {
	if t.Sparse.Dense() {
		return (len(t.Codes)*t.Format.Bits() + 7) / 8
	}
	n := t.Sparse.kept(t.Shape)
	return (n*t.Format.Bits()+7)/8 + (n*t.Sparse.IndexBits()+7)/8
}
