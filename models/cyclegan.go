package models

import (
	"fmt"
	"image"
	"math/rand/v2"
	"strconv"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// CycleGAN is unpaired image-to-image translation as Zhu et al. define it
// (ICCV 2017, and their code junyanz/pytorch-CycleGAN-and-pix2pix):
//
//   - two ResNet generators, G_AB (domain A to B) and G_BA: c7s1-F,
//     d2F, d4F (stride-2 convolutions), "blocks" residual blocks of 4F
//     maps, u2F, uF (transposed convolutions, kernel 3, stride 2,
//     padding 1, output padding 1), c7s1-C and tanh; reflection padding
//     before every 7x7 and 3x3 stride-1 convolution, instance norm (no
//     learnt scale and shift) and ReLU after every convolution but the
//     last;
//   - two PatchGAN discriminators, D_A (real A against G_BA(B)) and D_B
//     (real B against G_AB(A)): C64-C128-C256-C512 in the 70x70 form,
//     "d_layers" stride-2 convolutions of F, 2F, 4F, ... maps (at most
//     8F; LeakyReLU 0.2, instance norm after all but the first), a
//     stride-1 4x4 convolution and a 4x4 convolution to one map of
//     logits. The default number of stride-2 layers scales with the
//     image: 3 (receptive field 70) for sides of 128 and more, 2 (34) for
//     64, 1 (16) below;
//   - least-squares GAN losses, cycle-consistency loss λ‖G_BA(G_AB(A)) -
//     A‖₁ + λ‖G_AB(G_BA(B)) - B‖₁ with λ = 10 ("lambda") and identity
//     loss 0.5λ(‖G_BA(A) - A‖₁ + ‖G_AB(B) - B‖₁) ("identity", the
//     factor 0.5);
//   - each discriminator sees its domain's generated images through a
//     pool of the last 50 ("pool"; 0: none) the generators made (Shrivastava et al.);
//   - weights from N(0, 0.02²), biases in every convolution, Adam
//     (the trainer's, 2e-4 and β1 0.5 by default) with the learning rate
//     constant for the first half of the planned run and decaying
//     linearly to zero over the second (gan.LinearDecay).
//
// A step runs three updates: G (groups G_AB and G_BA together, minimising
// the generators' adversarial, cycle and identity losses), D_A and D_B
// (each ½(D(real)-1)² + ½D(pooled fake)²). Domain A is the first data
// set, B the second.
const CycleGAN = "cyclegan"

func init() {
	Register(Spec{
		Name:    CycleGAN,
		Summary: "unpaired image-to-image translation (Zhu et al.): ResNet generators, PatchGAN discriminators",
		Domains: 2,
		Dataset: datasets.MNISTFashion, // the unpaired toy: MNIST digits and Fashion-MNIST clothes
		Default: func(img datasets.Shape, _ int) Config {
			side := min(img.H, img.W)
			c := Config{Channels: img.C, Height: img.H, Width: img.W, Features: 64,
				Options: map[string]string{"blocks": "9"}}
			switch {
			case side < 64:
				c.Features, c.Options["blocks"] = 16, "3"
			case side < 128:
				c.Features, c.Options["blocks"] = 32, "6"
			case side < 256:
				c.Options["blocks"] = "6"
			}
			return c
		},
		Check: func(c Config) error {
			_, err := newCycleGAN(c)
			return err
		},
		Options: map[string]string{"blocks": "residual blocks per generator", "d_layers": "stride-2 layers of the PatchGAN discriminators",
			"pool": "images in each history pool", "lambda": "cycle-consistency weight", "identity": "identity-loss weight (times lambda)"},
		New:       func(c Config) (gan.Model, error) { return newCycleGAN(c) },
		TrainData: translationData,         // cyclegan_data.go
		Evaluator: newTranslationEvaluator, // cyclegan_eval.go
	})
}

// Group and update names of CycleGAN.
const (
	GroupGAB = "G_AB"
	GroupGBA = "G_BA"
	GroupDA  = "D_A"
	GroupDB  = "D_B"
)

type cycleGAN struct {
	cfg              Config
	blocks, dLayers  int
	lambda, identity float64
	poolSize         int
	pools            [2]imagePool // of generated A (for D_A) and B (for D_B)
	vis              *cycleVisuals
}

func newCycleGAN(c Config) (*cycleGAN, error) {
	m := &cycleGAN{cfg: c}
	var err error
	if m.blocks, err = c.Int("blocks", 9); err != nil {
		return nil, err
	}
	if m.dLayers, err = c.Int("d_layers", defaultDLayers(min(c.Height, c.Width))); err != nil {
		return nil, err
	}
	if m.poolSize, err = c.Int("pool", 50); err != nil {
		return nil, err
	}
	if m.lambda, err = floatOption(c, "lambda", 10); err != nil {
		return nil, err
	}
	if m.identity, err = floatOption(c, "identity", 0.5); err != nil {
		return nil, err
	}
	switch {
	case c.Classes != 0:
		return nil, fmt.Errorf("models: cyclegan is unconditional: classes must be 0")
	case c.Height%4 != 0 || c.Width%4 != 0:
		return nil, fmt.Errorf("models: cyclegan: image size %dx%d: height and width must be multiples of 4 (two stride-2 downsamplings)", c.Height, c.Width)
	case m.blocks < 0 || m.poolSize < 0 || m.lambda < 0 || m.identity < 0:
		return nil, fmt.Errorf("models: cyclegan: blocks %d, pool %d, lambda %g, identity %g: none may be negative", m.blocks, m.poolSize, m.lambda, m.identity)
	case m.dLayers < 1:
		return nil, fmt.Errorf("models: cyclegan: d_layers %d: want at least 1", m.dLayers)
	case min(c.Height, c.Width)>>m.dLayers < 3:
		return nil, fmt.Errorf("models: cyclegan: %d discriminator layers leave no patch of a %dx%d image; set d_layers lower", m.dLayers, c.Height, c.Width)
	}
	for i := range m.pools {
		m.pools[i].size = m.poolSize
	}
	return m, nil
}

// defaultDLayers is the number of stride-2 layers of the PatchGAN
// discriminator for images of the given side: 3 (the 70x70 PatchGAN) from
// 128 up, 2 for 64, 1 below.
func defaultDLayers(side int) int {
	n := 0
	for side >= 32<<n && n < 3 {
		n++
	}
	return max(n, 1)
}

func floatOption(c Config, key string, def float64) (float64, error) {
	s, ok := c.Options[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("models: %s: option %s=%q is not a number", c.Arch, key, s)
	}
	return v, nil
}

func (m *cycleGAN) Config() string                      { return m.cfg.String() }
func (m *cycleGAN) Check(data []datasets.Dataset) error { return CheckData(m.cfg, data) }

func (m *cycleGAN) Build(s *nn.Scope) ([]gan.Group, error) {
	s = s.With(nn.WithNormalInit(0.02))
	var gs []gan.Group
	for _, name := range []string{GroupGAB, GroupGBA} {
		g, err := m.generator(s.Sub(name))
		if err != nil {
			return nil, err
		}
		gs = append(gs, gan.Group{Name: name, Net: g})
	}
	for _, name := range []string{GroupDA, GroupDB} {
		gs = append(gs, gan.Group{Name: name, Net: m.discriminator(s.Sub(name))})
	}
	return gs, nil
}

// norm is instance norm without learnt scale and shift (PyTorch's
// InstanceNorm2d with affine=False, as CycleGAN uses it).
func norm(s *nn.Scope, name string, c int) nn.Module { return fixedAffine{s.InstanceNorm(name, c)} }

// fixedAffine hides a normalisation's scale and shift (1 and 0) from
// training and checkpoints.
type fixedAffine struct{ nn.Module }

func (f fixedAffine) Params() []nn.Param                    { return nil }
func (f fixedAffine) Children() []nn.Module                 { return []nn.Module{f.Module} }
func (f fixedAffine) Share(g *gorgonia.ExprGraph) nn.Module { return fixedAffine{f.Module.Share(g)} }

func (m *cycleGAN) generator(g *nn.Scope) (nn.Module, error) {
	C, F := m.cfg.Channels, m.cfg.Features
	l := []nn.Module{g.ReflectionPad(3), g.Conv("in", C, F, 7, 1, 0), norm(g, "in_norm", F), g.ReLU()}
	maps := F
	for i := 1; i <= 2; i++ {
		l = append(l, g.Conv(fmt.Sprintf("down%d", i), maps, 2*maps, 3, 2, 1), norm(g, fmt.Sprintf("down%d_norm", i), 2*maps), g.ReLU())
		maps *= 2
	}
	for i := 1; i <= m.blocks; i++ {
		r := g.Sub(fmt.Sprintf("res%d", i))
		l = append(l, r.Residual(nn.Seq(
			r.ReflectionPad(1), r.Conv("conv1", maps, maps, 3, 1, 0), norm(r, "norm1", maps), r.ReLU(),
			r.ReflectionPad(1), r.Conv("conv2", maps, maps, 3, 1, 0), norm(r, "norm2", maps))))
	}
	for i := 1; i <= 2; i++ {
		l = append(l, g.ConvTransposeOut(fmt.Sprintf("up%d", i), maps, maps/2, 3, 2, 1, 1), norm(g, fmt.Sprintf("up%d_norm", i), maps/2), g.ReLU())
		maps /= 2
	}
	l = append(l, g.ReflectionPad(3), g.Conv("out", F, C, 7, 1, 0))
	out, err := outputTanh(m.cfg.Tanh)
	if err != nil {
		return nil, err
	}
	return nn.Seq(append(l, out)...), nil
}

func (m *cycleGAN) discriminator(d *nn.Scope) nn.Module {
	C, F := m.cfg.Channels, m.cfg.Features
	l := []nn.Module{d.Conv("conv1", C, F, 4, 2, 1), d.LeakyReLU(0.2)}
	in := F
	for i := 2; i <= m.dLayers+1; i++ {
		out := F * min(1<<(i-1), 8)
		stride := 2
		if i == m.dLayers+1 {
			stride = 1
		}
		l = append(l, d.Conv(fmt.Sprintf("conv%d", i), in, out, 4, stride, 1), norm(d, fmt.Sprintf("norm%d", i), out), d.LeakyReLU(0.2))
		in = out
	}
	return nn.Seq(append(l, d.Conv(fmt.Sprintf("conv%d", m.dLayers+2), in, 1, 4, 1, 1))...)
}

func (m *cycleGAN) Inputs(batch int) []gan.Input {
	sh := tensor.Shape{batch, m.cfg.Channels, m.cfg.Height, m.cfg.Width}
	return []gan.Input{{Name: "A", Shape: sh}, {Name: "B", Shape: sh.Clone()},
		{Name: "pool_A", Shape: sh.Clone()}, {Name: "pool_B", Shape: sh.Clone()}}
}

// Feed copies the batches of both domains; the pooled fakes are filled
// after the G update (AfterUpdate). No noise is drawn.
func (m *cycleGAN) Feed(in gan.Inputs, data []gan.Batch, _ *rand.Rand) {
	if data != nil {
		copy(in["A"], data[0].X)
		copy(in["B"], data[1].X)
	}
}

func (m *cycleGAN) Updates() []gan.Update {
	return []gan.Update{
		{Name: "G", Groups: []string{GroupGAB, GroupGBA}},
		{Name: GroupDA, Groups: []string{GroupDA}},
		{Name: GroupDB, Groups: []string{GroupDB}},
	}
}

func (m *cycleGAN) Metrics() []string {
	return []string{"gan_ab", "gan_ba", "cycle_a", "cycle_b", "idt_a", "idt_b", "d_a_real", "d_a_fake", "d_b_real", "d_b_fake"}
}

func (m *cycleGAN) Loss(u *gan.Graph) (*gorgonia.Node, error) {
	if u.Update().Name == "G" {
		return m.generatorLoss(u)
	}
	real, pool, net := "A", "pool_A", GroupDA
	if u.Update().Name == GroupDB {
		real, pool, net = "B", "pool_B", GroupDB
	}
	x, err := u.Input(real)
	if err != nil {
		return nil, err
	}
	fake, err := u.Input(pool)
	if err != nil {
		return nil, err
	}
	dReal, err := u.Forward(net, x, nil)
	if err != nil {
		return nil, err
	}
	dFake, err := u.Forward(net, fake, nil)
	if err != nil {
		return nil, err
	}
	tag := "d_a_"
	if net == GroupDB {
		tag = "d_b_"
	}
	u.Metric(tag+"real", dReal, meanOf)
	u.Metric(tag+"fake", dFake, meanOf)
	lr, err := nn.MSETarget(dReal, 1, u.LossScale())
	if err != nil {
		return nil, err
	}
	lf, err := nn.MSETarget(dFake, 0, u.LossScale())
	if err != nil {
		return nil, err
	}
	return nn.WeightedSum([]float64{0.5, 0.5}, lr, lf)
}

// generatorLoss is LSGAN(D_B(G_AB(A)), 1) + LSGAN(D_A(G_BA(B)), 1) +
// λ(cycle A + cycle B) + identity·λ(idt A + idt B), the terms mean
// absolute or squared errors.
func (m *cycleGAN) generatorLoss(u *gan.Graph) (*gorgonia.Node, error) {
	var terms []*gorgonia.Node
	var ws []float64
	var err error
	add := func(w float64, n *gorgonia.Node, e error) {
		if err == nil {
			err = e
		}
		terms, ws = append(terms, n), append(ws, w)
	}
	a, e1 := u.Input("A")
	b, e2 := u.Input("B")
	if err = firstError(e1, e2); err != nil {
		return nil, err
	}
	fakeB, err := u.Forward(GroupGAB, a, nil)
	if err != nil {
		return nil, err
	}
	fakeA, err := u.Forward(GroupGBA, b, nil)
	if err != nil {
		return nil, err
	}
	u.Output("fake_A", fakeA)
	u.Output("fake_B", fakeB)
	dB, e1 := u.Forward(GroupDB, fakeB, nil)
	dA, e2 := u.Forward(GroupDA, fakeA, nil)
	recA, e3 := u.Forward(GroupGBA, fakeB, nil)
	recB, e4 := u.Forward(GroupGAB, fakeA, nil)
	if err = firstError(e1, e2, e3, e4); err != nil {
		return nil, err
	}
	s := u.LossScale()
	ganB, e := nn.MSETarget(dB, 1, s)
	add(1, ganB, e)
	ganA, e := nn.MSETarget(dA, 1, s)
	add(1, ganA, e)
	cycA, e := nn.L1Loss(recA, a, s)
	add(m.lambda, cycA, e)
	cycB, e := nn.L1Loss(recB, b, s)
	add(m.lambda, cycB, e)
	if m.identity > 0 {
		idtA, e1 := u.Forward(GroupGBA, a, nil)
		idtB, e2 := u.Forward(GroupGAB, b, nil)
		if err = firstError(err, e1, e2); err != nil {
			return nil, err
		}
		la, e := nn.L1Loss(idtA, a, s)
		add(m.identity*m.lambda, la, e)
		lb, e := nn.L1Loss(idtB, b, s)
		add(m.identity*m.lambda, lb, e)
		if err == nil {
			u.Metric("idt_a", la, scalar)
			u.Metric("idt_b", lb, scalar)
		}
	}
	if err != nil {
		return nil, err
	}
	u.Metric("gan_ab", ganB, scalar)
	u.Metric("gan_ba", ganA, scalar)
	u.Metric("cycle_a", cycA, scalar)
	u.Metric("cycle_b", cycB, scalar)
	return nn.WeightedSum(ws, terms...)
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func meanOf(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s / float64(len(x))
}

func scalar(x []float32) float64 { return float64(x[0]) }

// AfterUpdate passes the images the generators made in the G update
// through the pools to the discriminators' inputs.
func (m *cycleGAN) AfterUpdate(u gan.Update, out map[string][]float32, in gan.Inputs, noise *rand.Rand) {
	if u.Name != "G" {
		return
	}
	m.pools[0].query(in["pool_A"], out["fake_A"], m.cfg.ImageSize(), noise)
	m.pools[1].query(in["pool_B"], out["fake_B"], m.cfg.ImageSize(), noise)
}

// LearningRate is constant for the first half of the planned run, then
// decays linearly to zero (gan.LinearDecay).
func (m *cycleGAN) LearningRate(_ string, step, steps int, base float64) float64 {
	return gan.LinearDecay(step, steps, base)
}

// imagePool is the history of generated images of Shrivastava et al.
// (CVPR 2017) as CycleGAN's ImagePool implements it: until it holds size
// images, each new image is stored and passed on; then each new image is,
// with probability ½, passed on, or else swapped for a stored image
// chosen at random, which is passed on instead.
type imagePool struct {
	size   int
	images [][]float32
}

// query writes to dst the images that go on for the batch fakes (images
// of n values each).
func (p *imagePool) query(dst, fakes []float32, n int, r *rand.Rand) {
	copy(dst, fakes)
	if p.size == 0 {
		return
	}
	for i := 0; i+n <= len(fakes); i += n {
		img := fakes[i : i+n]
		if len(p.images) < p.size {
			p.images = append(p.images, append([]float32(nil), img...))
			continue
		}
		if r.Float64() > 0.5 {
			k := r.IntN(p.size)
			copy(dst[i:i+n], p.images[k])
			copy(p.images[k], img)
		}
	}
}

// SaveState returns the pools: "pool_A" and "pool_B", (n, C, H, W), for
// pools that hold images.
func (m *cycleGAN) SaveState() map[string]ckpt.Tensor {
	st := map[string]ckpt.Tensor{}
	c := m.cfg
	for i, name := range []string{"pool_A", "pool_B"} {
		p := m.pools[i]
		if len(p.images) == 0 {
			continue
		}
		var data []float32
		for _, img := range p.images {
			data = append(data, img...)
		}
		st[name] = ckpt.Tensor{Shape: []int{len(p.images), c.Channels, c.Height, c.Width}, Data: data}
	}
	return st
}

// LoadState restores the pools SaveState saved.
func (m *cycleGAN) LoadState(st map[string]ckpt.Tensor) error {
	n := m.cfg.ImageSize()
	for i, name := range []string{"pool_A", "pool_B"} {
		m.pools[i].images = nil
		t, ok := st[name]
		if !ok {
			continue
		}
		if len(t.Data)%n != 0 || len(t.Data)/n > m.poolSize {
			return fmt.Errorf("models: cyclegan: %s holds %d values, not up to %d images of %d", name, len(t.Data), m.poolSize, n)
		}
		for k := 0; k < len(t.Data); k += n {
			m.pools[i].images = append(m.pools[i].images, append([]float32(nil), t.Data[k:k+n]...))
		}
	}
	return nil
}

// VisualImages is the number of images of each domain in CycleGAN's
// sample grids.
const VisualImages = 8

// cycleVisuals holds the graphs that draw the sample grids.
type cycleVisuals struct {
	nets   *gan.Nets
	ab, ba *gan.Applier
}

// Visuals draws six rows of VisualImages images: real A, G_AB(A),
// G_BA(G_AB(A)), real B, G_BA(B), G_AB(G_BA(B)), the images of each
// domain drawn with seed from its data set (the same ones at every call).
func (m *cycleGAN) Visuals(nets *gan.Nets, data []datasets.Dataset, seed uint64) (image.Image, error) {
	c := m.cfg
	sh := datasets.Shape{C: c.Channels, H: c.Height, W: c.Width}
	k := VisualImages
	for _, ds := range data {
		k = min(k, ds.Len())
	}
	if m.vis == nil || m.vis.nets != nets || m.vis.ab.OutSize() != k*sh.Size() {
		v := &cycleVisuals{nets: nets}
		var err error
		if v.ab, err = gan.NewApplier(nets, GroupGAB, []int{k, sh.C, sh.H, sh.W}); err != nil {
			return nil, err
		}
		if v.ba, err = gan.NewApplier(nets, GroupGBA, []int{k, sh.C, sh.H, sh.W}); err != nil {
			return nil, err
		}
		m.vis = v
	}
	n := k * sh.Size()
	rows := make([]float32, 6*n)
	for d, ds := range data[:2] {
		s, err := datasets.Sample(ds, k, seed)
		if err != nil {
			return nil, err
		}
		real := rows[3*d*n : (3*d+1)*n]
		for i := range k {
			s.Image(real[i*sh.Size():(i+1)*sh.Size()], i)
		}
		there, back := m.vis.ab, m.vis.ba
		if d == 1 {
			there, back = back, there
		}
		if err := there.Apply(rows[(3*d+1)*n:(3*d+2)*n], real); err != nil {
			return nil, err
		}
		if err := back.Apply(rows[(3*d+2)*n:(3*d+3)*n], rows[(3*d+1)*n:(3*d+2)*n]); err != nil {
			return nil, err
		}
	}
	return gan.Grid(rows, sh, 6, k), nil
}
