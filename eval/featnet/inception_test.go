package featnet

import (
	"encoding/binary"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nlpodyssey/safetensors"
	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestInceptionArchitecture checks the layer list against two published
// counts: Inception-v3 has 94 convolutions, each followed by batch
// normalisation, and Keras' InceptionV3(include_top=False), whose batch
// normalisation has no scale (gamma), has 21,802,784 parameters: the
// convolution weights plus 3 per channel (beta, mean, variance).
func TestInceptionArchitecture(t *testing.T) {
	ls := inceptionLayers()
	if len(ls) != 94 {
		t.Errorf("%d conv layers, want 94", len(ls))
	}
	n := 0
	for _, l := range ls {
		n += l.outC*l.inC*l.kh*l.kw + 3*l.outC
	}
	if n != 21802784 {
		t.Errorf("%d parameters in Keras' count, want 21802784", n)
	}
	// Spatial sizes: 299 → 149 → 147 → 147 → 73 → 73 → 71 → 35 → 17 → 8.
	if got := inceptionOut(299); got != 8 {
		t.Errorf("final grid %d, want 8", got)
	}
}

// inceptionOut returns the side of the grid Mixed_7c sees for an input of
// side s, following the strided layers.
func inceptionOut(s int) int {
	conv := func(s, k, stride, pad int) int { return (s+2*pad-k)/stride + 1 }
	s = conv(s, 3, 2, 0)    // Conv2d_1a
	s = conv(s, 3, 1, 0)    // Conv2d_2a
	s = conv(s, 3, 2, 0)    // max pool (2b keeps the size)
	s = conv(s, 3, 1, 0)    // Conv2d_4a
	s = conv(s, 3, 2, 0)    // max pool
	s = conv(s, 3, 2, 0)    // Mixed_6a
	return conv(s, 3, 2, 0) // Mixed_7a
}

// TestConvBNDirect compares a folded BasicConv2d with a rectangular,
// strided, padded kernel, as the network builds it, against the
// definition computed directly in float64.
func TestConvBNDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	l := &convBN{name: "c", inC: 2, outC: 3, kh: 3, kw: 2, s: 2, ph: 1, pw: 0}
	r := func(n int, lo, hi float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(lo + (hi-lo)*rng.Float64())
		}
		return v
	}
	w := r(3*2*3*2, -1, 1)
	gamma, beta, mean, vr := r(3, 0.5, 2), r(3, -1, 1), r(3, -1, 1), r(3, 0.1, 2)
	g := gorgonia.NewGraph()
	c, err := l.layer(g, w, gamma, beta, mean, vr)
	if err != nil {
		t.Fatal(err)
	}
	x := r(2*5*4, -1, 1)
	b := &inceptionBuilder{g: g, layers: map[string]*nn.RectConv2d{"c": c}}
	yn := b.cv("c", gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(1, 2, 5, 4), tensor.WithBacking(x)), gorgonia.WithName("x")))
	if b.err != nil {
		t.Fatal(b.err)
	}
	prog, err := graphexec.Compile(yn)
	if err != nil {
		t.Fatal(err)
	}
	if err := prog.Run(); err != nil {
		t.Fatal(err)
	}
	oh, ow := (5+2-3)/2+1, (4-2)/2+1
	if s := yn.Shape(); !s.Eq(tensor.Shape{1, 3, oh, ow}) {
		t.Fatalf("output %v, want (1, 3, %d, %d)", s, oh, ow)
	}
	y := yn.Value().Data().([]float32)
	for o := 0; o < 3; o++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				var s float64
				for c := 0; c < 2; c++ {
					for i := 0; i < 3; i++ {
						for j := 0; j < 2; j++ {
							iy, ix := oy*2-1+i, ox*2+j
							if iy < 0 || iy >= 5 || ix < 0 || ix >= 4 {
								continue
							}
							s += float64(w[((o*2+c)*3+i)*2+j]) * float64(x[(c*5+iy)*4+ix])
						}
					}
				}
				want := (s-float64(mean[o]))*float64(gamma[o])/math.Sqrt(float64(vr[o])+0.001) + float64(beta[o])
				want = math.Max(want, 0)
				if got := float64(y[(o*oh+oy)*ow+ox]); math.Abs(got-want) > 1e-5 {
					t.Errorf("y[%d,%d,%d] = %v, want %v", o, oy, ox, got, want)
				}
			}
		}
	}
	if _, err := l.layer(g, w, gamma, beta, mean, []float32{1, -1, 1}); err == nil || !strings.Contains(err.Error(), `"c.bn.running_var"`) {
		t.Errorf("negative variance: error %v", err)
	}
}

// The pools Inception uses (count_include_pad=False averages, max pools
// whose padding never wins, the final mean) are nn's, tested there
// (nn.TestPadPools).

// randomInception returns random weights of the right shapes (He-scaled
// convolutions, batch normalisation near the identity), plus the tensors
// pytorch-fid's state_dict carries that the features ignore.
func randomInception(seed uint64) map[string]ckpt.Tensor {
	rng := rand.New(rand.NewPCG(seed, 1))
	names, shapes := inceptionTensors()
	ts := map[string]ckpt.Tensor{}
	for i, name := range names {
		sh := shapes[i]
		n := 1
		for _, d := range sh {
			n *= d
		}
		d := make([]float32, n)
		switch {
		case strings.HasSuffix(name, ".conv.weight"):
			std := math.Sqrt(2 / float64(sh[1]*sh[2]*sh[3]))
			for j := range d {
				d[j] = float32(std * rng.NormFloat64())
			}
		case strings.HasSuffix(name, ".running_var"), strings.HasSuffix(name, ".bn.weight"):
			for j := range d {
				d[j] = float32(0.5 + rng.Float64())
			}
		default:
			for j := range d {
				d[j] = float32(0.1 * rng.NormFloat64())
			}
		}
		ts[name] = ckpt.Tensor{Shape: sh, Data: d}
	}
	ts["fc.weight"] = ckpt.Tensor{Shape: []int{1008, 2048}, Data: make([]float32, 1008*2048)}
	ts["fc.bias"] = ckpt.Tensor{Shape: []int{1008}, Data: make([]float32, 1008)}
	return ts
}

// randomWeights returns randomInception(1), made once: the tests only
// replace its entries.
var randomWeights = sync.OnceValue(func() map[string]ckpt.Tensor { return randomInception(1) })

// writeSafetensors writes ts as a plain safetensors file, as the
// conversion script does, plus one int64 num_batches_tracked tensor.
func writeSafetensors(t *testing.T, path string, ts map[string]ckpt.Tensor) {
	t.Helper()
	views := map[string]safetensors.TensorView{}
	for name, tn := range ts {
		shape := make([]uint64, len(tn.Shape))
		for i, d := range tn.Shape {
			shape[i] = uint64(d)
		}
		b := make([]byte, 4*len(tn.Data))
		for i, v := range tn.Data {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		v, err := safetensors.NewTensorView(safetensors.F32, shape, b)
		if err != nil {
			t.Fatal(err)
		}
		views[name] = v
	}
	v, err := safetensors.NewTensorView(safetensors.I64, []uint64{1}, make([]byte, 8))
	if err != nil {
		t.Fatal(err)
	}
	views["Conv2d_1a_3x3.bn.num_batches_tracked"] = v
	buf, err := safetensors.Serialize(views, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInceptionLoad writes random weights of the full network to a file,
// loads it through Load, and extracts features of a gray and an RGB image
// of odd sizes: 2048 finite, non-negative (ReLU, then a mean) values each, not
// all zero. The network runs at 75×75 (the smallest input Inception-v3
// takes) to keep the test short; BenchmarkInception runs it at 299.
func TestInceptionLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "inception.safetensors")
	writeSafetensors(t, path, randomWeights())
	e, err := Load("inception:" + path)
	if err != nil {
		t.Fatal(err)
	}
	m := e.(*Inception)
	if e.Name() != "Inception-v3, pytorch-fid" || e.Dim() != 2048 || MetricName(e) != "FID (Inception-v3, pytorch-fid)" {
		t.Errorf("name %q, dim %d, metric %q", e.Name(), e.Dim(), MetricName(e))
	}
	if c, err := Load("inception-clean:" + path); err != nil || MetricName(c) != "FID (Inception-v3, clean-fid)" {
		t.Errorf("inception-clean: %v, %v", c, err)
	}
	m.size = 75
	rng := rand.New(rand.NewPCG(2, 2))
	for _, s := range []datasets.Shape{{C: 1, H: 28, W: 28}, {C: 3, H: 20, W: 33}} {
		imgs := make([]float32, s.Size())
		for i := range imgs {
			imgs[i] = float32(2*rng.Float64() - 1)
		}
		f := make([]float64, 2048)
		if err := e.Features(f, imgs, s); err != nil {
			t.Fatal(err)
		}
		nonzero := 0
		for _, v := range f {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("%v: feature %v", s, v)
			}
			if v > 0 {
				nonzero++
			}
		}
		if nonzero < 100 {
			t.Errorf("%v: only %d non-zero features", s, nonzero)
		}
	}
}

// BenchmarkInception runs the network on one image at the real 299×299.
func BenchmarkInception(b *testing.B) {
	m, err := newInception(randomWeights())
	if err != nil {
		b.Fatal(err)
	}
	f := make([]float64, 2048)
	img := make([]float32, 3*32*32)
	for b.Loop() {
		if err := m.Features(f, img, datasets.Shape{C: 3, H: 32, W: 32}); err != nil {
			b.Fatal(err)
		}
	}
	for _, v := range f {
		if !(v >= 0) || math.IsInf(v, 0) {
			b.Fatalf("feature %v", v)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
}

// TestInceptionBadWeights: a missing, mis-shaped or unknown tensor is an
// error naming it.
func TestInceptionBadWeights(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(ts map[string]ckpt.Tensor)
		want   string
	}{
		{"missing", func(ts map[string]ckpt.Tensor) { delete(ts, "Mixed_6c.branch7x7dbl_4.bn.running_mean") },
			`tensor "Mixed_6c.branch7x7dbl_4.bn.running_mean": missing`},
		{"shape", func(ts map[string]ckpt.Tensor) {
			w := ts["Mixed_7b.branch3x3_2a.conv.weight"]
			w.Shape = []int{384, 384, 3, 1}
			ts["Mixed_7b.branch3x3_2a.conv.weight"] = w
		}, `tensor "Mixed_7b.branch3x3_2a.conv.weight": shape [384 384 3 1], want [384 384 1 3]`},
		{"unknown", func(ts map[string]ckpt.Tensor) {
			ts["Mixed_5b.branch9x9.conv.weight"] = ckpt.Tensor{Shape: []int{1}, Data: []float32{0}}
		}, `tensor "Mixed_5b.branch9x9.conv.weight": not a tensor of the FID Inception-v3`},
	} {
		ts := maps.Clone(randomWeights())
		tc.change(ts)
		_, err := newInception(ts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := LoadInception(filepath.Join(t.TempDir(), "none.safetensors")); err == nil {
		t.Error("missing file: no error")
	}
}
