package featnet

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/internal/graphop"
	"github.com/positgan/positgan/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// InceptionSize is the side of the square images the FID Inception-v3
// sees; inputs of any other size are resized to it bilinearly.
const InceptionSize = 299

// inceptionDim is the number of pool3 features.
const inceptionDim = 2048

// Inception is the Inception-v3 network of FID, as pytorch-fid's
// InceptionV3 with use_fid_inception (the port of TensorFlow's
// inception-2015-12-05 graph): FIDInceptionA, C, E_1 and E_2 blocks,
// average pools that leave the padding out of the average, a max pool in
// the last block's pool branch, and the 2048 features of the final
// average pool (pool3).
//
// Images go in as float32 NCHW data in [-1, 1]: RGB, or gray (copied to
// the three channels). They are resized to 299×299 as
// F.interpolate(mode="bilinear", align_corners=False) does (see Resize),
// which is what pytorch-fid does to its [0, 1] input before mapping it to
// [-1, 1]. Resizing commutes with that affine map only up to float32
// rounding, so Features maps back to [0, 1] first (see toZeroOne), and
// 8-bit images give pytorch-fid's network input bit for bit. The network
// is built from package nn's layers, in float32: each BasicConv2d
// (convolution without bias, batch normalisation with epsilon 0.001 in
// evaluation mode, ReLU) is one nn.RectConv2d with the normalisation
// folded into its weights and bias (nn.FoldBatchNorm), then nn.ReLU.
//
// Inception is safe for concurrent use; calls run one at a time.
type Inception struct {
	net   *inceptionNet // shared with the CleanFID copy
	size  int           // input side; InceptionSize except in tests
	clean bool          // clean-fid's preprocessing instead of pytorch-fid's
}

// inceptionNet holds the folded layers and the graph last built from
// them, for one input side.
type inceptionNet struct {
	mu     sync.Mutex
	layers map[string]*nn.RectConv2d // in a graph of their own, shared into each built
	size   int                       // the built graph's input side; 0 before the first
	x      []float32                 // its input, written before each run
	pool3  *gorgonia.Node
	prog   *graphexec.Program
}

// convBN is the geometry of a BasicConv2d.
type convBN struct {
	name                         string
	inC, outC, kh, kw, s, ph, pw int
}

// inceptionLayers returns the BasicConv2d layers of the FID Inception-v3,
// named as in pytorch-fid's state_dict, with their geometry.
func inceptionLayers() []*convBN {
	var ls []*convBN
	add := func(name string, in, out, kh, kw, stride, ph, pw int) {
		ls = append(ls, &convBN{name: name, inC: in, outC: out, kh: kh, kw: kw, s: stride, ph: ph, pw: pw})
	}
	sq := func(name string, in, out, k, stride, pad int) { add(name, in, out, k, k, stride, pad, pad) }
	sq("Conv2d_1a_3x3", 3, 32, 3, 2, 0)
	sq("Conv2d_2a_3x3", 32, 32, 3, 1, 0)
	sq("Conv2d_2b_3x3", 32, 64, 3, 1, 1)
	sq("Conv2d_3b_1x1", 64, 80, 1, 1, 0)
	sq("Conv2d_4a_3x3", 80, 192, 3, 1, 0)
	blockA := func(n string, in, pool int) {
		sq(n+".branch1x1", in, 64, 1, 1, 0)
		sq(n+".branch5x5_1", in, 48, 1, 1, 0)
		sq(n+".branch5x5_2", 48, 64, 5, 1, 2)
		sq(n+".branch3x3dbl_1", in, 64, 1, 1, 0)
		sq(n+".branch3x3dbl_2", 64, 96, 3, 1, 1)
		sq(n+".branch3x3dbl_3", 96, 96, 3, 1, 1)
		sq(n+".branch_pool", in, pool, 1, 1, 0)
	}
	blockA("Mixed_5b", 192, 32)
	blockA("Mixed_5c", 256, 64)
	blockA("Mixed_5d", 288, 64)
	sq("Mixed_6a.branch3x3", 288, 384, 3, 2, 0)
	sq("Mixed_6a.branch3x3dbl_1", 288, 64, 1, 1, 0)
	sq("Mixed_6a.branch3x3dbl_2", 64, 96, 3, 1, 1)
	sq("Mixed_6a.branch3x3dbl_3", 96, 96, 3, 2, 0)
	blockC := func(n string, c7 int) {
		sq(n+".branch1x1", 768, 192, 1, 1, 0)
		sq(n+".branch7x7_1", 768, c7, 1, 1, 0)
		add(n+".branch7x7_2", c7, c7, 1, 7, 1, 0, 3)
		add(n+".branch7x7_3", c7, 192, 7, 1, 1, 3, 0)
		sq(n+".branch7x7dbl_1", 768, c7, 1, 1, 0)
		add(n+".branch7x7dbl_2", c7, c7, 7, 1, 1, 3, 0)
		add(n+".branch7x7dbl_3", c7, c7, 1, 7, 1, 0, 3)
		add(n+".branch7x7dbl_4", c7, c7, 7, 1, 1, 3, 0)
		add(n+".branch7x7dbl_5", c7, 192, 1, 7, 1, 0, 3)
		sq(n+".branch_pool", 768, 192, 1, 1, 0)
	}
	blockC("Mixed_6b", 128)
	blockC("Mixed_6c", 160)
	blockC("Mixed_6d", 160)
	blockC("Mixed_6e", 192)
	sq("Mixed_7a.branch3x3_1", 768, 192, 1, 1, 0)
	sq("Mixed_7a.branch3x3_2", 192, 320, 3, 2, 0)
	sq("Mixed_7a.branch7x7x3_1", 768, 192, 1, 1, 0)
	add("Mixed_7a.branch7x7x3_2", 192, 192, 1, 7, 1, 0, 3)
	add("Mixed_7a.branch7x7x3_3", 192, 192, 7, 1, 1, 3, 0)
	sq("Mixed_7a.branch7x7x3_4", 192, 192, 3, 2, 0)
	blockE := func(n string, in int) {
		sq(n+".branch1x1", in, 320, 1, 1, 0)
		sq(n+".branch3x3_1", in, 384, 1, 1, 0)
		add(n+".branch3x3_2a", 384, 384, 1, 3, 1, 0, 1)
		add(n+".branch3x3_2b", 384, 384, 3, 1, 1, 1, 0)
		sq(n+".branch3x3dbl_1", in, 448, 1, 1, 0)
		sq(n+".branch3x3dbl_2", 448, 384, 3, 1, 1)
		add(n+".branch3x3dbl_3a", 384, 384, 1, 3, 1, 0, 1)
		add(n+".branch3x3dbl_3b", 384, 384, 3, 1, 1, 1, 0)
		sq(n+".branch_pool", in, 192, 1, 1, 0)
	}
	blockE("Mixed_7b", 1280)
	blockE("Mixed_7c", 2048)
	return ls
}

// bnEps is the batch-normalisation epsilon of torchvision's BasicConv2d.
const bnEps = 0.001

// inceptionTensors returns the names and shapes of the tensors an
// Inception weight file must hold: for each layer L of inceptionLayers,
// L.conv.weight (out, in, kh, kw) and L.bn.weight, L.bn.bias,
// L.bn.running_mean, L.bn.running_var (out).
func inceptionTensors() (names []string, shapes [][]int) {
	for _, l := range inceptionLayers() {
		names = append(names, l.name+".conv.weight")
		shapes = append(shapes, []int{l.outC, l.inC, l.kh, l.kw})
		for _, p := range []string{"weight", "bias", "running_mean", "running_var"} {
			names = append(names, l.name+".bn."+p)
			shapes = append(shapes, []int{l.outC})
		}
	}
	return names, shapes
}

// ignoredTensor reports whether a tensor of pytorch-fid's state_dict is
// one the features do not use: the classifier, the auxiliary classifier
// and the batch counters.
func ignoredTensor(name string) bool {
	return strings.HasPrefix(name, "fc.") || strings.HasPrefix(name, "AuxLogits.") ||
		strings.HasSuffix(name, ".num_batches_tracked")
}

// LoadInception reads the FID Inception-v3 weights from a file holding
// pytorch-fid's state_dict: its own pt_inception-2015-12-05-6726825d.pth
// (torch.save, zip or legacy format, read by our own pickle reader, which runs no code) or a safetensors
// conversion, the file kind found from its first bytes. Tensors are named
// like Mixed_6b.branch7x7_2.conv.weight (fid_inception_v3's state_dict)
// or blocks.2.4.branch7x7_2.conv.weight (pytorch-fid's InceptionV3
// wrapper); float32, float16, bfloat16 and float64 are read. The
// classifier (fc.*), AuxLogits.* and num_batches_tracked tensors are
// ignored; a missing, mis-shaped or unknown tensor is an error that names
// it. The weights cannot be downloaded here: bring the file.
func LoadInception(path string) (*Inception, error) {
	ts, err := readInceptionTensors(path)
	if err != nil {
		return nil, err
	}
	m, err := newInception(ts)
	if err != nil {
		return nil, fmt.Errorf("featnet: inception weights %s: %w", path, err)
	}
	return m, nil
}

func newInception(ts map[string]ckpt.Tensor) (*Inception, error) {
	names, shapes := inceptionTensors()
	want := make(map[string]bool, len(names))
	for i, name := range names {
		want[name] = true
		t, ok := ts[name]
		if !ok {
			return nil, &TensorError{Name: name, Reason: "missing"}
		}
		if !equalShape(t.Shape, shapes[i]) {
			return nil, &TensorError{Name: name, Reason: fmt.Sprintf("shape %v, want %v", t.Shape, shapes[i])}
		}
	}
	for _, name := range sortedKeys(ts) {
		if !want[name] && !ignoredTensor(name) {
			return nil, &TensorError{Name: name, Reason: "not a tensor of the FID Inception-v3"}
		}
	}
	net := &inceptionNet{layers: map[string]*nn.RectConv2d{}}
	g := gorgonia.NewGraph()
	for _, l := range inceptionLayers() {
		p := func(s string) []float32 { return ts[l.name+s].Data }
		c, err := l.layer(g, p(".conv.weight"), p(".bn.weight"), p(".bn.bias"), p(".bn.running_mean"), p(".bn.running_var"))
		if err != nil {
			return nil, err
		}
		net.layers[l.name] = c
	}
	return &Inception{net: net, size: InceptionSize}, nil
}

// layer returns l as a layer in g: the convolution w followed by batch
// normalisation in evaluation mode, y = (conv(x) - mean)·gamma/sqrt(var +
// eps) + beta, folded into the layer's weights and bias
// (nn.FoldBatchNorm).
func (l *convBN) layer(g *gorgonia.ExprGraph, w, gamma, beta, mean, vr []float32) (*nn.RectConv2d, error) {
	for _, v := range vr {
		if !(v >= 0) {
			return nil, &TensorError{Name: l.name + ".bn.running_var", Reason: fmt.Sprintf("variance %g", v)}
		}
	}
	c, err := nn.NewRectConv2d(g, l.name, l.inC, l.outC, l.kh, l.kw, l.s, l.ph, l.pw, nn.LayerFormats{})
	if err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	nn.FoldBatchNorm(float32s(c.W), float32s(c.B), w, nil, l.inC*l.kh*l.kw, gamma, beta, mean, vr, bnEps)
	return c, nil
}

// float32s returns the values of a parameter node.
func float32s(n *gorgonia.Node) []float32 { return graphop.Float32s(n.Value()) }

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Name returns "Inception-v3, pytorch-fid" or "Inception-v3, clean-fid":
// the network and the preprocessing mode (see CleanFID), both of which a
// printed FID must name. With pytorch-fid's weights, FID on these
// features is the FID of the literature in that mode.
func (m *Inception) Name() string {
	if m.clean {
		return "Inception-v3, clean-fid"
	}
	return "Inception-v3, pytorch-fid"
}

// CleanFID returns m with clean-fid's "clean" preprocessing: each
// channel, as float32 values 0-255, resized to 299×299 by PIL's bicubic
// filter (ResizeBicubicPIL; antialiased when shrinking), clipped to
// [0, 255] and mapped by (x − 128)/128, instead of pytorch-fid's bilinear
// F.interpolate of x/255 mapped by 2x − 1. The weights are shared.
func (m *Inception) CleanFID() *Inception {
	return &Inception{net: m.net, size: m.size, clean: true}
}

// Dim returns 2048.
func (m *Inception) Dim() int { return inceptionDim }

// Features writes the 2048 pool3 features of each image to dst.
func (m *Inception) Features(dst []float64, images []float32, s datasets.Shape) error {
	n, err := checkBatch(dst, images, s, inceptionDim)
	if err != nil {
		return err
	}
	if s.C != 1 && s.C != 3 {
		return fmt.Errorf("featnet: Inception-v3 takes gray or RGB images, not %d channels", s.C)
	}
	net := m.net
	net.mu.Lock()
	defer net.mu.Unlock()
	if net.size != m.size {
		if err := net.build(m.size); err != nil {
			return err
		}
	}
	unit := make([]float32, s.H*s.W)
	for i := 0; i < n; i++ {
		if m.clean {
			cleanInput(net.x, unit, images[i*s.Size():(i+1)*s.Size()], s, m.size)
		} else {
			networkInput(net.x, unit, images[i*s.Size():(i+1)*s.Size()], s, m.size)
		}
		if err := net.prog.Run(); err != nil {
			return fmt.Errorf("featnet: inception: %w", err)
		}
		for j, v := range graphop.Float32s(net.pool3.Value()) {
			dst[i*inceptionDim+j] = float64(v)
		}
	}
	return nil
}

// networkInput writes the 3×size×size network input of one image of
// shape s (gray or RGB, values in [-1, 1]) to x: pytorch-fid resizes
// ToTensor's [0, 1] values and maps the result to [-1, 1] after; in
// float32 that is not the same as resizing [-1, 1] values, so this does
// as it does. unit is scratch of s.H·s.W values.
func networkInput(x, unit, img []float32, s datasets.Shape, size int) {
	eachChannel(x, unit, img, s, size, func(p []float32) {
		Resize(p, unit, 1, s.H, s.W, size, size)
		for j, v := range p {
			p[j] = 2*v - 1
		}
	})
}

// cleanInput is networkInput in clean-fid's mode (see CleanFID).
func cleanInput(x, unit, img []float32, s datasets.Shape, size int) {
	eachChannel(x, unit, img, s, size, func(p []float32) {
		for j, v := range unit {
			// clean-fid resizes the 8-bit pixels as float32 0-255.
			u := float64(float64(v) * 255) // float64(…) stops arm64 fusing the product into u-r: same bits as amd64
			if r := math.Round(u); math.Abs(u-r) < 1e-3 {
				u = r
			}
			unit[j] = float32(u)
		}
		ResizeBicubicPIL(p, unit, s.H, s.W, size, size)
		for j, v := range p {
			v = min(max(v, 0), 255)
			p[j] = (v - 128) / 128
		}
	})
}

// eachChannel fills the three size×size planes of x: for each channel of
// img (s.C of 1 or 3) it sets unit to the channel mapped to [0, 1]
// (toZeroOne) and calls input with the channel's plane of x to fill from
// unit. A gray image's plane is made once and copied to the other two.
func eachChannel(x, unit, img []float32, s datasets.Shape, size int, input func(p []float32)) {
	plane, n := size*size, s.H*s.W
	for c := range 3 {
		p := x[c*plane : (c+1)*plane]
		if s.C == 1 && c > 0 {
			copy(p, x[:plane])
			continue
		}
		toZeroOne(unit, img[c*n:(c+1)*n])
		input(p)
	}
}

// toZeroOne maps image values in [-1, 1] to [0, 1]. A value that is an
// 8-bit pixel p as package datasets stores it, float32((2p - 255)/255),
// becomes float32(p)/255, what torchvision's ToTensor gives for p, so that
// the network input is pytorch-fid's to the bit; any other value v
// becomes (v + 1)/2.
func toZeroOne(dst, src []float32) {
	for j, v := range src {
		p := math.Round(float64(v+1) * 127.5)
		if p >= 0 && p <= 255 && float32(float64(2*p-255)/255) == v {
			dst[j] = float32(p) / 255
		} else {
			dst[j] = (v + 1) / 2
		}
	}
}

// build makes the graph for one 3×size×size image at a time, whose
// output is pool3.
func (net *inceptionNet) build(size int) error {
	g := gorgonia.NewGraph()
	xt := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1, 3, size, size))
	b := &inceptionBuilder{g: g, layers: net.layers}
	pool3 := b.forward(gorgonia.NodeFromAny(g, xt, gorgonia.WithName("x")))
	if b.err != nil {
		return fmt.Errorf("featnet: inception at %dx%d: %w", size, size, b.err)
	}
	prog, err := graphexec.Compile(pool3)
	if err != nil {
		return fmt.Errorf("featnet: inception: %w", err)
	}
	net.size, net.x, net.pool3, net.prog = size, xt.Float32s(), pool3, prog
	return nil
}

// inceptionBuilder adds Inception's layers to a graph. Its first error
// sticks: later calls add nothing and return nil.
type inceptionBuilder struct {
	g      *gorgonia.ExprGraph
	layers map[string]*nn.RectConv2d
	err    error
}

func (b *inceptionBuilder) add(f func() (*gorgonia.Node, error)) *gorgonia.Node {
	if b.err != nil {
		return nil
	}
	y, err := f()
	b.err = err
	return y
}

// cv is the BasicConv2d name: the folded convolution, then ReLU.
func (b *inceptionBuilder) cv(name string, x *gorgonia.Node) *gorgonia.Node {
	return b.add(func() (*gorgonia.Node, error) {
		y, err := b.layers[name].Share(b.g).Fwd(x)
		if err != nil {
			return nil, err
		}
		return nn.ReLU(y)
	})
}

// maxPool is F.max_pool2d(x, k, stride, pad).
func (b *inceptionBuilder) maxPool(x *gorgonia.Node, k, stride, pad int) *gorgonia.Node {
	return b.add(func() (*gorgonia.Node, error) { return nn.MaxPool2D(x, k, stride, pad) })
}

// avgPool3 is F.avg_pool2d(x, 3, stride=1, padding=1,
// count_include_pad=False).
func (b *inceptionBuilder) avgPool3(x *gorgonia.Node) *gorgonia.Node {
	return b.add(func() (*gorgonia.Node, error) { return nn.AvgPool2DPad(x, 3, 1, 1) })
}

// cat is torch.cat(xs, 1).
func (b *inceptionBuilder) cat(xs ...*gorgonia.Node) *gorgonia.Node {
	y := xs[0]
	for _, x := range xs[1:] {
		y = b.add(func() (*gorgonia.Node, error) { return nn.Concat(y, x) })
	}
	return y
}

// forward adds the network on x (1, 3, size, size) and returns pool3
// (1, 2048).
func (b *inceptionBuilder) forward(x *gorgonia.Node) *gorgonia.Node {
	cv := b.cv
	x = cv("Conv2d_1a_3x3", x)
	x = cv("Conv2d_2a_3x3", x)
	x = cv("Conv2d_2b_3x3", x)
	x = b.maxPool(x, 3, 2, 0)
	x = cv("Conv2d_3b_1x1", x)
	x = cv("Conv2d_4a_3x3", x)
	x = b.maxPool(x, 3, 2, 0)
	for _, n := range []string{"Mixed_5b", "Mixed_5c", "Mixed_5d"} { // FIDInceptionA
		b1 := cv(n+".branch1x1", x)
		b5 := cv(n+".branch5x5_2", cv(n+".branch5x5_1", x))
		b3 := cv(n+".branch3x3dbl_3", cv(n+".branch3x3dbl_2", cv(n+".branch3x3dbl_1", x)))
		bp := cv(n+".branch_pool", b.avgPool3(x))
		x = b.cat(b1, b5, b3, bp)
	}
	{ // Mixed_6a: InceptionB
		n := "Mixed_6a"
		b3 := cv(n+".branch3x3", x)
		bd := cv(n+".branch3x3dbl_3", cv(n+".branch3x3dbl_2", cv(n+".branch3x3dbl_1", x)))
		x = b.cat(b3, bd, b.maxPool(x, 3, 2, 0))
	}
	for _, n := range []string{"Mixed_6b", "Mixed_6c", "Mixed_6d", "Mixed_6e"} { // FIDInceptionC
		b1 := cv(n+".branch1x1", x)
		b7 := cv(n+".branch7x7_3", cv(n+".branch7x7_2", cv(n+".branch7x7_1", x)))
		bd := x
		for _, k := range []string{"1", "2", "3", "4", "5"} {
			bd = cv(n+".branch7x7dbl_"+k, bd)
		}
		bp := cv(n+".branch_pool", b.avgPool3(x))
		x = b.cat(b1, b7, bd, bp)
	}
	{ // Mixed_7a: InceptionD
		n := "Mixed_7a"
		b3 := cv(n+".branch3x3_2", cv(n+".branch3x3_1", x))
		b7 := x
		for _, k := range []string{"1", "2", "3", "4"} {
			b7 = cv(n+".branch7x7x3_"+k, b7)
		}
		x = b.cat(b3, b7, b.maxPool(x, 3, 2, 0))
	}
	for _, n := range []string{"Mixed_7b", "Mixed_7c"} { // FIDInceptionE_1, E_2
		b1 := cv(n+".branch1x1", x)
		b3 := cv(n+".branch3x3_1", x)
		b3 = b.cat(cv(n+".branch3x3_2a", b3), cv(n+".branch3x3_2b", b3))
		bd := cv(n+".branch3x3dbl_2", cv(n+".branch3x3dbl_1", x))
		bd = b.cat(cv(n+".branch3x3dbl_3a", bd), cv(n+".branch3x3dbl_3b", bd))
		var pooled *gorgonia.Node
		if n == "Mixed_7b" {
			pooled = b.avgPool3(x)
		} else {
			pooled = b.maxPool(x, 3, 1, 1) // E_2's max pool, as the TensorFlow graph has it
		}
		x = b.cat(b1, b3, bd, cv(n+".branch_pool", pooled))
	}
	return b.add(func() (*gorgonia.Node, error) { return nn.SpatialMean(x) })
}
