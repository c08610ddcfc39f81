package models

import (
	"fmt"
	"image"
	"math"
	"math/bits"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// ESRGAN is single-image super-resolution as Wang et al. define it
// (ESRGAN, ECCV 2018 workshops; their code in XPixelGroup/BasicSR), sized
// by options to train on two cores:
//
//   - generator RRDBNet: a 3x3 convolution to F maps, "blocks"
//     residual-in-residual dense blocks (each three dense blocks of five
//     3x3 convolutions with "gc" growth channels and LeakyReLU 0.2, the
//     dense block's output scaled by 0.2 and added to its input, the three
//     blocks' output scaled by 0.2 and added to the RRDB's input; no batch
//     norm; weights of the dense blocks from Kaiming-normal times 0.1), a
//     3x3 convolution and a skip over the whole trunk, then for each
//     factor 2 of "scale" (2 or 4) nearest-neighbour upsampling, a 3x3
//     convolution and LeakyReLU, a 3x3 convolution with LeakyReLU and a
//     3x3 convolution to the image; no output activation;
//   - VGG-style discriminator on the high-resolution patch (the model's
//     Height x Width): per level a 3x3 stride-1 and a 4x4 stride-2
//     convolution with batch norm and LeakyReLU 0.2, F, 2F, 4F, 8F, 8F
//     maps, as many levels as halve the patch to 4x4 (at most 5, the
//     paper's 128 patches), then linear layers to 100 and to 1 logit;
//   - losses: L1 pixel loss; relativistic average GAN loss
//     (nn.RelativisticLoss) for both networks. The first "pretrain" steps
//     are the PSNR-oriented pre-training: one update of G on L1 alone
//     (update "G_psnr"), which neither runs nor changes D, so such a step
//     costs G's forward and backward pass only. Afterwards a step runs
//     the GAN phase's two updates (gan.Phased): G minimises
//     pixel_weight·L1 + gan_weight·L_G^Ra, then D the relativistic loss.
//     The GAN phase runs at half the learning rate (the paper: 2e-4,
//     then 1e-4). The model counts its steps itself and keeps the count
//     in checkpoints (gan.Stateful), so a resumed run switches phase at
//     the same step.
//
// The paper's perceptual term (VGG19 features before activation, weight
// 1, with η = 1e-2 for L1 and λ = 5e-3 for the adversarial term) is left
// out: no VGG weights are reachable from this machine. L1 takes its place
// at weight 1 ("pixel_weight"); "gan_weight" keeps λ = 5e-3.
//
// A GAN-phase step runs two updates: G (L1 and adversarial terms), then
// D on the images G made in the G update (passed on by gan.Relay, as
// BasicSR detaches them). The data are high-resolution patches in [-1, 1]
// (datasets.Patches); Feed makes their low-resolution inputs with
// MATLAB's bicubic imresize, rounded to 8 bits (datasets.LowRes).
const ESRGAN = "esrgan"

func init() {
	Register(Spec{
		Name:    ESRGAN,
		Summary: "super-resolution GAN (Wang et al.): RRDB generator, VGG-style discriminator, relativistic loss",
		Dataset: datasets.SRPhotos, // patches of photographs
		Batch:   8,
		Default: func(img datasets.Shape, _ int) Config {
			return Config{Channels: img.C, Height: img.H, Width: img.W, Features: 32,
				Options: map[string]string{"scale": "4", "blocks": "2", "gc": "16", "pretrain": "500"}}
		},
		Check: func(c Config) error {
			_, err := newESRGAN(c)
			return err
		},
		Options: map[string]string{"scale": "super-resolution factor, 2 or 4", "blocks": "RRDBs in the generator",
			"gc": "growth channels of the dense blocks", "pretrain": "steps of L1-only pre-training before the GAN phase",
			"pixel_weight": "weight of L1 in the GAN phase", "gan_weight": "weight of the adversarial term in the GAN phase"},
		New:       func(c Config) (gan.Model, error) { return newESRGAN(c) },
		TrainData: srData,                                    // esrgan_data.go
		Evaluator: func() Evaluator { return srEvaluator{} }, // esrgan_eval.go
	})
}

// Group names of ESRGAN.
const (
	GroupG = "G"
	GroupD = "D"
)

// UpdatePSNR is the name of ESRGAN's pre-training update: G on L1 alone.
const UpdatePSNR = "G_psnr"

type esrgan struct {
	cfg                    Config
	scale, blocks, gc      int
	pretrain, levels       int
	pixelWeight, ganWeight float64
	step                   int  // steps fed so far
	pre                    bool // the step fed last is a pre-training step
	vis                    *gan.Applier
	visNets                *gan.Nets
}

func newESRGAN(c Config) (*esrgan, error) {
	m := &esrgan{cfg: c}
	var err error
	if m.scale, err = c.Int("scale", 4); err != nil {
		return nil, err
	}
	if m.blocks, err = c.Int("blocks", 2); err != nil {
		return nil, err
	}
	if m.gc, err = c.Int("gc", max(c.Features/2, 1)); err != nil {
		return nil, err
	}
	if m.pretrain, err = c.Int("pretrain", 500); err != nil {
		return nil, err
	}
	if m.pixelWeight, err = floatOption(c, "pixel_weight", 1); err != nil {
		return nil, err
	}
	if m.ganWeight, err = floatOption(c, "gan_weight", 5e-3); err != nil {
		return nil, err
	}
	m.levels = min(bits.Len(uint(min(c.Height, c.Width)/4))-1, 5)
	switch {
	case c.Classes != 0:
		return nil, fmt.Errorf("models: esrgan is unconditional: classes must be 0")
	case c.Channels != 3:
		return nil, fmt.Errorf("models: esrgan: %d channels, want 3 (RGB)", c.Channels)
	case m.scale != 2 && m.scale != 4:
		return nil, fmt.Errorf("models: esrgan: scale %d, want 2 or 4", m.scale)
	case c.Height != c.Width || c.Height%m.scale != 0 || c.Height < 16:
		return nil, fmt.Errorf("models: esrgan: patch %dx%d: want a square of at least 16, a multiple of the scale %d", c.Height, c.Width, m.scale)
	case m.blocks < 1 || m.blocks > 64 || m.gc < 1 || m.gc > MaxFeatures:
		return nil, fmt.Errorf("models: esrgan: blocks %d, gc %d: want 1 to 64 blocks and 1 to %d growth channels", m.blocks, m.gc, MaxFeatures)
	case m.pretrain < 0 || m.pretrain > 1<<24:
		return nil, fmt.Errorf("models: esrgan: pretrain %d steps: want 0 to %d", m.pretrain, 1<<24)
	case !(m.pixelWeight >= 0) || !(m.ganWeight >= 0) || math.IsInf(m.pixelWeight+m.ganWeight, 0):
		return nil, fmt.Errorf("models: esrgan: pixel_weight %g, gan_weight %g: want finite and not negative", m.pixelWeight, m.ganWeight)
	}
	return m, nil
}

// Scale returns the super-resolution factor.
func (m *esrgan) Scale() int { return m.scale }

func (m *esrgan) Config() string                      { return m.cfg.String() }
func (m *esrgan) Check(data []datasets.Dataset) error { return CheckData(m.cfg, data) }

func (m *esrgan) Build(s *nn.Scope) ([]gan.Group, error) {
	return []gan.Group{{Name: GroupG, Net: m.generator(s.Sub(GroupG))}, {Name: GroupD, Net: m.discriminator(s.Sub(GroupD))}}, nil
}

// kaiming01 is BasicSR's initialisation of the dense blocks: Kaiming
// normal (fan in, gain √2) times 0.1.
func kaiming01(in int) nn.Option { return nn.WithNormalInit(0.1 * math.Sqrt(2/float64(9*in))) }

// denseBlock is x + 0.2·conv5([x, x1, x2, x3, x4]) with
// x_k = lrelu(conv_k([x, x1, ..., x_{k-1}])).
func (m *esrgan) denseBlock(s *nn.Scope, F int) nn.Module {
	var l []nn.Module
	in := F
	for k := 1; k <= 4; k++ {
		l = append(l, nn.Cat(nn.Identity(), nn.Seq(s.Conv(fmt.Sprintf("conv%d", k), in, m.gc, 3, 1, 1, kaiming01(in)), s.LeakyReLU(0.2))))
		in += m.gc
	}
	l = append(l, s.Conv("conv5", in, F, 3, 1, 1, kaiming01(in)), s.Scale(0.2))
	return s.Residual(nn.Seq(l...))
}

// rrdb is x + 0.2·RDB3(RDB2(RDB1(x))).
func (m *esrgan) rrdb(s *nn.Scope, F int) nn.Module {
	return s.Residual(nn.Seq(m.denseBlock(s.Sub("rdb1"), F), m.denseBlock(s.Sub("rdb2"), F), m.denseBlock(s.Sub("rdb3"), F), s.Scale(0.2)))
}

func (m *esrgan) generator(g *nn.Scope) nn.Module {
	C, F := m.cfg.Channels, m.cfg.Features
	trunk := make([]nn.Module, 0, m.blocks+1)
	for i := 1; i <= m.blocks; i++ {
		trunk = append(trunk, m.rrdb(g.Sub(fmt.Sprintf("rrdb%d", i)), F))
	}
	trunk = append(trunk, g.Conv("conv_body", F, F, 3, 1, 1))
	l := []nn.Module{g.Conv("conv_first", C, F, 3, 1, 1), g.Residual(nn.Seq(trunk...))}
	for i := 1; 1<<i <= m.scale; i++ {
		l = append(l, g.Upsample(2), g.Conv(fmt.Sprintf("conv_up%d", i), F, F, 3, 1, 1), g.LeakyReLU(0.2))
	}
	l = append(l, g.Conv("conv_hr", F, F, 3, 1, 1), g.LeakyReLU(0.2), g.Conv("conv_last", F, C, 3, 1, 1))
	return nn.Seq(l...)
}

func (m *esrgan) discriminator(d *nn.Scope) nn.Module {
	C, F := m.cfg.Channels, m.cfg.Features
	l := []nn.Module{d.Conv("conv0_0", C, F, 3, 1, 1), d.LeakyReLU(0.2),
		d.Conv("conv0_1", F, F, 4, 2, 1, nn.WithoutBias()), d.BatchNorm("bn0_1", F), d.LeakyReLU(0.2)}
	in := F
	for k := 1; k < m.levels; k++ {
		out := F * min(1<<k, 8)
		l = append(l,
			d.Conv(fmt.Sprintf("conv%d_0", k), in, out, 3, 1, 1, nn.WithoutBias()), d.BatchNorm(fmt.Sprintf("bn%d_0", k), out), d.LeakyReLU(0.2),
			d.Conv(fmt.Sprintf("conv%d_1", k), out, out, 4, 2, 1, nn.WithoutBias()), d.BatchNorm(fmt.Sprintf("bn%d_1", k), out), d.LeakyReLU(0.2))
		in = out
	}
	side := m.cfg.Height >> m.levels
	l = append(l, d.Reshape(in*side*side), d.Linear("linear1", in*side*side, 100), d.LeakyReLU(0.2), d.Linear("linear2", 100, 1))
	return nn.Seq(l...)
}

func (m *esrgan) lrSide() int { return m.cfg.Height / m.scale }

func (m *esrgan) Inputs(batch int) []gan.Input {
	c, s := m.cfg, m.lrSide()
	hr := tensor.Shape{batch, c.Channels, c.Height, c.Width}
	return []gan.Input{{Name: "hr", Shape: hr}, {Name: "lr", Shape: tensor.Shape{batch, c.Channels, s, s}},
		{Name: "sr", Shape: hr.Clone()}}
}

// Feed copies the high-resolution patches, makes their low-resolution
// versions and sets the phase of the step. No noise is drawn.
func (m *esrgan) Feed(in gan.Inputs, data []gan.Batch, _ *rand.Rand) {
	if data == nil {
		return
	}
	copy(in["hr"], data[0].X)
	datasets.LowRes(in["lr"], in["hr"], m.cfg.Height, m.cfg.Width, m.scale)
	m.pre = m.step < m.pretrain
	m.step++
}

func (m *esrgan) Updates() []gan.Update {
	return []gan.Update{{Name: UpdatePSNR, Groups: []string{GroupG}},
		{Name: GroupG, Groups: []string{GroupG}}, {Name: GroupD, Groups: []string{GroupD}}}
}

// Active runs the L1 update alone in pre-training and the two adversarial
// updates afterwards.
func (m *esrgan) Active(u gan.Update) bool { return (u.Name == UpdatePSNR) == m.pre }

// LearningRate halves the learning rate in the GAN phase, as Wang et al.
// go from 2e-4 in pre-training to 1e-4 for the GAN (gan.Scheduler).
func (m *esrgan) LearningRate(_ string, step, _ int, base float64) float64 {
	if step >= m.pretrain {
		return base / 2
	}
	return base
}

func (m *esrgan) Metrics() []string { return []string{"l1", "gan_g", "d_real", "d_fake"} }

// upscaled returns the generator's enlargement of the update's "lr"
// input.
func upscaled(u *gan.Graph) (*gorgonia.Node, error) {
	lr, err := u.Input("lr")
	if err != nil {
		return nil, err
	}
	return u.Forward(GroupG, lr, nil)
}

func (m *esrgan) Loss(u *gan.Graph) (*gorgonia.Node, error) {
	hr, err := u.Input("hr")
	if err != nil {
		return nil, err
	}
	s := u.LossScale()
	switch u.Update().Name {
	case UpdatePSNR:
		sr, err := upscaled(u)
		if err != nil {
			return nil, err
		}
		pix, err := nn.L1Loss(sr, hr, s)
		if err != nil {
			return nil, err
		}
		u.Metric("l1", pix, scalar)
		return pix, nil
	case GroupD:
		sr, err := u.Input("sr")
		if err != nil {
			return nil, err
		}
		dReal, e1 := u.Forward(GroupD, hr, nil)
		dFake, e2 := u.Forward(GroupD, sr, nil)
		if err := firstError(e1, e2); err != nil {
			return nil, err
		}
		u.Metric("d_real", dReal, meanOf)
		u.Metric("d_fake", dFake, meanOf)
		return nn.RelativisticLoss(dReal, dFake, 1, s)
	}
	sr, err := upscaled(u)
	if err != nil {
		return nil, err
	}
	u.Output("sr", sr)
	pix, err := nn.L1Loss(sr, hr, s)
	if err != nil {
		return nil, err
	}
	dReal, e1 := u.Forward(GroupD, hr, nil)
	dFake, e2 := u.Forward(GroupD, sr, nil)
	if err := firstError(e1, e2); err != nil {
		return nil, err
	}
	adv, err := nn.RelativisticLoss(dReal, dFake, -1, s)
	if err != nil {
		return nil, err
	}
	u.Metric("l1", pix, scalar)
	u.Metric("gan_g", adv, scalar)
	return nn.WeightedSum([]float64{m.pixelWeight, m.ganWeight}, pix, adv)
}

// AfterUpdate passes the images G made to the D update.
func (m *esrgan) AfterUpdate(u gan.Update, out map[string][]float32, in gan.Inputs, _ *rand.Rand) {
	if u.Name == GroupG {
		copy(in["sr"], out["sr"])
	}
}

// SaveState returns the step count ("step", one value; exact up to 2^24).
func (m *esrgan) SaveState() map[string]ckpt.Tensor {
	return map[string]ckpt.Tensor{"step": {Shape: []int{1}, Data: []float32{float32(m.step)}}}
}

// LoadState restores the step count.
func (m *esrgan) LoadState(st map[string]ckpt.Tensor) error {
	t, ok := st["step"]
	if !ok || len(t.Data) != 1 || !(t.Data[0] >= 0) || t.Data[0] > 1<<24 || t.Data[0] != float32(math.Trunc(float64(t.Data[0]))) {
		return fmt.Errorf("models: esrgan: checkpoint has no valid step count")
	}
	m.step = int(t.Data[0])
	return nil
}

// VisualImages is the number of patches in ESRGAN's sample grids.
const srVisualImages = 6

// Visuals draws four rows of patches: the low-resolution input (enlarged
// by pixel repetition), its bicubic enlargement, G's output and the
// high-resolution patch; the patches are the centre crops of the first
// images of the data set.
func (m *esrgan) Visuals(nets *gan.Nets, data []datasets.Dataset, _ uint64) (image.Image, error) {
	c := m.cfg
	k := min(srVisualImages, data[0].Len())
	if p, ok := data[0].(*datasets.Patches); ok {
		k = min(k, p.Photos().Len())
	}
	ls := m.lrSide()
	if m.vis == nil || m.visNets != nets || m.vis.OutSize() != k*c.ImageSize() {
		a, err := gan.NewApplier(nets, GroupG, []int{k, c.Channels, ls, ls})
		if err != nil {
			return nil, err
		}
		m.vis, m.visNets = a, nets
	}
	n := c.ImageSize()
	rows := make([]float32, 4*k*n)
	hr := rows[3*k*n:]
	for i := range k {
		data[0].Image(hr[i*n:(i+1)*n], i)
	}
	lr := make([]float32, k*c.Channels*ls*ls)
	datasets.LowRes(lr, hr, c.Height, c.Width, m.scale)
	if err := m.vis.Apply(rows[2*k*n:3*k*n], lr); err != nil {
		return nil, err
	}
	for i := range k {
		Enlarge(rows[i*n:(i+1)*n], rows[(k+i)*n:(k+i+1)*n], lr[i*c.Channels*ls*ls:(i+1)*c.Channels*ls*ls], ls, ls, m.scale)
	}
	for i, v := range rows[2*k*n : 3*k*n] { // G's output is not bounded
		rows[2*k*n+i] = max(-1, min(1, v))
	}
	return gan.Grid(rows, datasets.Shape{C: c.Channels, H: c.Height, W: c.Width}, 4, k), nil
}

// Enlarge writes to nearest and cubic the 3 x h x w image lr (values in
// [-1, 1] that are 8-bit pixels) enlarged by k, by pixel repetition and
// by MATLAB's bicubic imresize rounded to 8 bits.
func Enlarge(nearest, cubic, lr []float32, h, w, k int) {
	H, W := h*k, w*k
	buf := make([]float64, len(lr))
	for c := range 3 {
		for y := range H {
			for x := range W {
				nearest[c*H*W+y*W+x] = lr[c*h*w+(y/k)*w+x/k]
			}
		}
	}
	for i, v := range lr {
		buf[i] = (float64(v) + 1) * 127.5
	}
	up, _, _ := datasets.Bicubic(buf, 3, h, w, float64(k))
	for i, v := range up {
		cubic[i] = float32(float64(datasets.Round8(v))/127.5 - 1)
	}
}
