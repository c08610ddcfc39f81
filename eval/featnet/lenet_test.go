package featnet

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
)

// stripes returns a synthetic two-class data set of n 28×28 images:
// class 0 bright in the top half, class 1 in the bottom half, with noise.
func stripes(t testing.TB, n int, seed uint64) *datasets.Set {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	pix := make([]uint8, n*28*28)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 2
		img := pix[i*784 : (i+1)*784]
		for p := range img {
			v := rng.IntN(100)
			if (p < 392) == (labels[i] == 0) {
				v += 150
			}
			img[p] = uint8(v)
		}
	}
	s, err := datasets.NewSet("stripes", datasets.Shape{C: 1, H: 28, W: 28}, pix, labels, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func weightsOf(l *LeNet) []float32 {
	var all []float32
	for _, p := range l.params() {
		all = append(all, p.Data()...)
	}
	return all
}

// TestLeNetTrain trains on the synthetic stripes: the network must learn
// them, in float32 and in posit(16,2), and the same seed must give the
// same weights, bit for bit.
func TestLeNetTrain(t *testing.T) {
	train, test := stripes(t, 128, 1), stripes(t, 100, 2)
	p16 := &policy.Policy{Name: "posit(16,2)"}
	if err := p16.Set("", "all", "posit(16,2)"); err != nil {
		t.Fatal(err)
	}
	var byPolicy [][]float32
	for _, pol := range []*policy.Policy{nil, p16} {
		var first []float32
		for rep := 0; rep < 2; rep++ {
			l, err := NewLeNet(2, pol, 3)
			if err != nil {
				t.Fatal(err)
			}
			var losses []float64
			err = l.Train(train, TrainOptions{Epochs: 2, Batch: 32, LR: 0.005, Seed: 5,
				Progress: func(_, _, _ int, loss float64) { losses = append(losses, loss) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(losses) != 8 || !(losses[len(losses)-1] < losses[0]/4) {
				t.Errorf("policy %s: losses %v: want 8 steps, falling fourfold", name(pol), losses)
			}
			acc, err := l.Accuracy(test)
			if err != nil {
				t.Fatal(err)
			}
			if acc < 0.99 {
				t.Errorf("policy %s: accuracy %v on the stripes, want ≥ 0.99", name(pol), acc)
			}
			w := weightsOf(l)
			if rep == 0 {
				first = w
				byPolicy = append(byPolicy, w)
			} else if !slices.Equal(first, w) {
				t.Errorf("policy %s: same seed, different weights", name(pol))
			}
		}
	}
	// The policy must reach the layers: posit(16,2) rounding changes the
	// trained weights, a little.
	same, maxDiff := 0, 0.0
	for i, v := range byPolicy[0] {
		if v == byPolicy[1][i] {
			same++
		}
		maxDiff = math.Max(maxDiff, math.Abs(float64(v-byPolicy[1][i])))
	}
	if same > len(byPolicy[0])/2 || maxDiff > 0.05 {
		t.Errorf("float32 and posit(16,2) training: %d of %d weights equal, largest difference %g", same, len(byPolicy[0]), maxDiff)
	}
}

// TestLeNetModel drives LeNet training as a gan.Model through the
// trainer: one update C, the policy's layer names, the checkpoint's
// tensor names, an accuracy metric that rises to 1 on the stripes.
func TestLeNetModel(t *testing.T) {
	m := &lenetModel{classes: 2}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{stripes(t, 64, 1)}, gan.Options{Batch: 16, Seed: 5, LR: 0.005, Beta1: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.LogColumns(), []string{"c_loss", "accuracy", "loss_scale_c", "skipped_c"}; !slices.Equal(got, want) {
		t.Errorf("log columns %v, want %v", got, want)
	}
	net := tr.Nets().Net(lenetGroup)
	if got := nn.Layers(net); !slices.Equal(got, lenetLayers) {
		t.Errorf("layers %v, want %v", got, lenetLayers)
	}
	l, err := NewLeNet(2, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range net.Params() {
		names = append(names, p.Name)
	}
	if want := sortedKeys(l.Checkpoint().Tensors); !slices.Equal(sortedKeys(toSet(names)), want) {
		t.Errorf("trainer's tensors %v, a LeNet's %v", names, want)
	}
	var acc []float64
	for range 8 {
		st, err := tr.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if a := st.Metrics[0]; !(a >= 0 && a <= 1) || st.Skipped[0] {
			t.Fatalf("step %d: accuracy %v, skipped %v", st.Step, a, st.Skipped[0])
		}
		acc = append(acc, st.Metrics[0])
	}
	if acc[len(acc)-1] != 1 {
		t.Errorf("batch accuracies %v: want 1 at the end", acc)
	}
	if _, err := tr.Checkpoint(); err != nil {
		t.Errorf("checkpoint: %v", err)
	}
	if err := m.Check([]datasets.Dataset{stripes(t, 4, 1), stripes(t, 4, 2)}); err == nil {
		t.Error("two data sets: no error")
	}
}

func toSet(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// TestLeNetBiasEvery: with exponent-bias re-estimation the trained network
// keeps the biases chosen in training (its features differ from those of
// the same weights in the policy's formats) and still learns.
func TestLeNetBiasEvery(t *testing.T) {
	pol, err := policy.Parse("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLeNet(2, pol, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Train(stripes(t, 128, 1), TrainOptions{Epochs: 2, Batch: 32, LR: 0.005, Seed: 5, BiasEvery: 2}); err != nil {
		t.Fatal(err)
	}
	if acc, err := l.Accuracy(stripes(t, 100, 2)); err != nil || acc < 0.99 {
		t.Errorf("accuracy %v (%v), want ≥ 0.99", acc, err)
	}
	plain, err := NewLeNet(2, pol, 3)
	if err != nil {
		t.Fatal(err)
	}
	dst := plain.params()
	for i, p := range l.params() {
		copy(dst[i].Data(), p.Data())
	}
	imgs := make([]float32, 4*784)
	ds := stripes(t, 4, 4)
	for i := 0; i < 4; i++ {
		ds.Image(imgs[i*784:(i+1)*784], i)
	}
	f1, f2 := make([]float64, 4*84), make([]float64, 4*84)
	if err := l.features(f1, imgs, 4); err != nil {
		t.Fatal(err)
	}
	if err := plain.features(f2, imgs, 4); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(f1, f2) {
		t.Error("the trained network computes in the policy's formats: the chosen biases were dropped")
	}
}

func name(p *policy.Policy) string {
	if p == nil {
		return "float32"
	}
	return p.Name
}

// TestLeNetSaveLoad writes a network and reads it back: same weights, same
// features, metadata kept; a damaged file names what is wrong.
func TestLeNetSaveLoad(t *testing.T) {
	l, err := NewLeNet(10, nil, 9)
	if err != nil {
		t.Fatal(err)
	}
	l.Name = "LeNet-Test"
	l.Meta["dataset"] = "stripes"
	path := filepath.Join(t.TempDir(), "lenet.safetensors")
	if err := l.Save(path); err != nil {
		t.Fatal(err)
	}
	l2, err := LoadLeNet(path)
	if err != nil {
		t.Fatal(err)
	}
	if l2.Name != "LeNet-Test" || l2.Meta["dataset"] != "stripes" || l2.Classes != 10 {
		t.Errorf("loaded name %q, meta %v, %d classes", l2.Name, l2.Meta, l2.Classes)
	}
	if !slices.Equal(weightsOf(l), weightsOf(l2)) {
		t.Error("loaded weights differ")
	}
	ds := stripes(t, 3, 4)
	imgs := make([]float32, 3*784)
	for i := 0; i < 3; i++ {
		ds.Image(imgs[i*784:(i+1)*784], i)
	}
	f1, f2 := make([]float64, 3*84), make([]float64, 3*84)
	e1, e2 := l.Extractor(), l2.Extractor()
	if err := e1.Features(f1, imgs, ds.Shape()); err != nil {
		t.Fatal(err)
	}
	if err := e2.Features(f2, imgs, ds.Shape()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f1, f2) {
		t.Error("loaded network gives other features")
	}
	if e2.Name() != "LeNet-Test" || MetricName(e2) != "FID (LeNet-Test)" || e2.Dim() != 84 {
		t.Errorf("extractor %q, metric %q, dim %d", e2.Name(), MetricName(e2), e2.Dim())
	}

	// Damaged: a tensor missing or of the wrong shape.
	c := l.Checkpoint()
	delete(c.Tensors, "conv2.w")
	if _, err := lenetFrom(c.Tensors, c.Meta); err == nil || !contains(err.Error(), `"conv2.w": missing`) {
		t.Errorf("missing tensor: error %v", err)
	}
	c = l.Checkpoint()
	w := c.Tensors["fc1.w"]
	w.Shape = []int{120, 84}
	c.Tensors["fc1.w"] = w
	if _, err := lenetFrom(c.Tensors, c.Meta); err == nil || !contains(err.Error(), `"fc1.w": shape [120 84], want [84 120]`) {
		t.Errorf("mis-shaped tensor: error %v", err)
	}
}

// TestLeNetFeaturesShapes: features lie in (-1, 1) (tanh); RGB and other
// sizes are converted; a batch split in two gives the same rows.
func TestLeNetFeaturesShapes(t *testing.T) {
	l, err := NewLeNet(10, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	e := l.Extractor()
	rng := rand.New(rand.NewPCG(3, 3))
	imgs := make([]float32, 150*784) // more than one inference batch
	for i := range imgs {
		imgs[i] = float32(2*rng.Float64() - 1)
	}
	s := datasets.Shape{C: 1, H: 28, W: 28}
	all := make([]float64, 150*84)
	if err := e.Features(all, imgs, s); err != nil {
		t.Fatal(err)
	}
	part := make([]float64, 7*84)
	if err := e.Features(part, imgs[143*784:], s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(part, all[143*84:]) {
		t.Error("features depend on the batch an image is in")
	}
	for _, v := range all {
		if !(v > -1 && v < 1) {
			t.Fatalf("feature %v outside (-1, 1)", v)
		}
	}
	// An RGB image whose three planes are equal is its gray image.
	rgb := make([]float32, 3*784)
	for c := 0; c < 3; c++ {
		copy(rgb[c*784:], imgs[:784])
	}
	one := make([]float64, 84)
	if err := e.Features(one, rgb, datasets.Shape{C: 3, H: 28, W: 28}); err != nil {
		t.Fatal(err)
	}
	for i, v := range one {
		if math.Abs(v-all[i]) > 1e-5 {
			t.Fatalf("RGB feature %d = %v, gray %v", i, v, all[i])
		}
	}
	// 32×32 images are resized.
	if err := e.Features(one, make([]float32, 32*32), datasets.Shape{C: 1, H: 32, W: 32}); err != nil {
		t.Error(err)
	}
	if err := e.Features(one, make([]float32, 2*784), datasets.Shape{C: 2, H: 28, W: 28}); err == nil {
		t.Error("2 channels: no error")
	}
	if err := e.Features(one, make([]float32, 700), s); err == nil {
		t.Error("partial image: no error")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// BenchmarkLeNetTrainStep measures one training step at batch 64.
func BenchmarkLeNetTrainStep(b *testing.B) {
	for _, name := range []string{"fp32", "posit(16,2)"} {
		b.Run(name, func(b *testing.B) {
			var pol *policy.Policy
			if name != "fp32" {
				pol = &policy.Policy{Name: name}
				if err := pol.Set("", "all", name); err != nil {
					b.Fatal(err)
				}
			}
			l, err := NewLeNet(10, pol, 1)
			if err != nil {
				b.Fatal(err)
			}
			ds := stripes(b, 64*8, 1)
			b.ReportAllocs()
			for b.Loop() {
				if err := l.Train(ds, TrainOptions{Epochs: 1, Batch: 64}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*64*8)/b.Elapsed().Seconds(), "images/s")
		})
	}
}

// TestLeNetLossScaling: in float32 a static loss scale of 2^10 scales
// every gradient by an exact power of two and unscales it again, so the
// trained weights must equal those of training without scaling, bit for
// bit; the scale must reach the backward pass (a scale of 2^200 overflows
// and every step is skipped, leaving the weights as they started).
func TestLeNetLossScaling(t *testing.T) {
	train := stripes(t, 64, 1)
	run := func(scale float64) []float32 {
		var pol *policy.Policy
		if scale != 0 {
			pol = &policy.Policy{Name: "scaled", LossScale: policy.LossScale{Scale: scale}}
		}
		l, err := NewLeNet(2, pol, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Train(train, TrainOptions{Epochs: 1, Batch: 32, Seed: 5}); err != nil {
			t.Fatal(err)
		}
		return weightsOf(l)
	}
	plain, scaled := run(0), run(1024)
	if !slices.Equal(plain, scaled) {
		t.Error("loss scale 2^10 changed the float32 training")
	}
	init, err := NewLeNet(2, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(run(0x1p200), weightsOf(init)) {
		t.Error("loss scale 2^200: steps were applied")
	}
}
