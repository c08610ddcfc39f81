package deploy_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// toyData returns n side×side images in two classes (a bright left or top
// half, with noise).
func toyData(t testing.TB, n, side int) *datasets.Set {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	sh := datasets.Shape{C: 1, H: side, W: side}
	pix := make([]uint8, n*sh.Size())
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 2
		for y := 0; y < side; y++ {
			for x := 0; x < side; x++ {
				v := rng.IntN(40)
				if (labels[i] == 0 && x < side/2) || (labels[i] == 1 && y < side/2) {
					v += 200
				}
				pix[i*sh.Size()+y*side+x] = uint8(v)
			}
		}
	}
	s, err := datasets.NewSet("toy", sh, pix, labels, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	cgan  = models.Config{Arch: models.CGAN, ZDim: 8, Classes: 2, Channels: 1, Height: 8, Width: 8, Features: 8}
	dcgan = models.Config{Arch: models.DCGAN, ZDim: 8, Channels: 1, Height: 8, Width: 8, Features: 4}
)

var ckpts sync.Map // key → *ckpt.Checkpoint

// trained returns a checkpoint of cfg trained for a few steps under
// policy (a preset name, "" for float32) with exponent biases re-estimated
// every step, so that weights, running statistics and biases are not at
// their initial values.
func trained(t testing.TB, cfg models.Config, preset string) *ckpt.Checkpoint {
	t.Helper()
	key := cfg.Arch + "/" + preset
	if c, ok := ckpts.Load(key); ok {
		return c.(*ckpt.Checkpoint)
	}
	var pol *policy.Policy
	if preset != "" {
		pol = mustPolicy(t, preset)
	}
	m, err := models.New(cfg.WithPolicy(pol))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{toyData(t, 8, cfg.Height)}, gan.Options{Policy: pol, Batch: 4, Seed: 3, BiasEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	ckpts.Store(key, c)
	return c
}

func mustPolicy(t testing.TB, name string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// reference returns the images of the checkpoint's generator under
// policy (nil: the checkpoint's own, with its biases), through
// models.Load and gan.Sampler.
func reference(t *testing.T, c *ckpt.Checkpoint, pol *policy.Policy, z []float32, labels []int) []float32 {
	t.Helper()
	nets, _, err := models.Load(c, pol)
	if err != nil {
		t.Fatal(err)
	}
	spec := nets.Model.(gan.Generator).Generator()
	n := len(z) / spec.ZSize()
	s, err := gan.NewSampler(nets, n, gan.SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, n*spec.Image.Size())
	if err := s.Generate(out, z, labels); err != nil {
		t.Fatal(err)
	}
	return out
}

func noise(spec gan.GeneratorSpec, n int) ([]float32, []int) {
	z, labels := gan.FixedNoise(spec, 7, 1, n)
	return z, labels
}

// roundTrip exports c under pol and reads the model back from its bytes.
func roundTrip(t *testing.T, c *ckpt.Checkpoint, pol *policy.Policy) (exported, loaded *deploy.Model, file []byte) {
	t.Helper()
	m, err := deploy.Export(c, pol)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	l, err := deploy.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return m, l, b
}

// Done means: the model read back from the file generates the images of
// the checkpoint under the same policy, bit for bit, for CGAN and DCGAN,
// fp32, quire and per-op accumulation, and the checkpoint's own policy
// with the exponent biases training chose.
func TestGenerateBitIdentical(t *testing.T) {
	cases := []struct {
		cfg           models.Config
		train, export string // "" export: the checkpoint's policy and biases
	}{
		{cgan, "", "posit6-deploy"},
		{cgan, "", "posit6-deploy-quire"},
		{cgan, "", "posit6-deploy-per-op"},
		{cgan, "", "posit8+t"},
		{cgan, "", "fp8-ibm"},
		{cgan, "", ""},
		{cgan, "posit8", ""},
		{dcgan, "", "posit6-deploy"},
		{dcgan, "", "posit6-deploy-quire"},
		{dcgan, "", "fp8-ibm-per-op"},
		{dcgan, "posit8", ""},
	}
	for _, tc := range cases {
		t.Run(tc.cfg.Arch+"/"+tc.train+"/"+tc.export, func(t *testing.T) {
			c := trained(t, tc.cfg, tc.train)
			var pol *policy.Policy
			if tc.export != "" {
				pol = mustPolicy(t, tc.export)
			}
			_, m, _ := roundTrip(t, c, pol)
			z, labels := noise(m.Spec(), 6)
			got, err := m.Generate(z, labels)
			if err != nil {
				t.Fatal(err)
			}
			want := reference(t, c, pol, z, labels)
			if len(got) != len(want) {
				t.Fatalf("%d values, want %d", len(got), len(want))
			}
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("value %d: %g (%08x), checkpoint %g (%08x)", i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
			// A second batch size builds another graph; the first is not reused wrongly.
			got1, err := m.Generate(z[:m.Spec().ZSize()], labels[:min(len(labels), 1)])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got1, got[:len(got1)]) {
				t.Errorf("one image alone differs from the same image in a batch")
			}
		})
	}
}

// The file read back holds every code, shape and format that was
// exported; weights are bit-packed at their format's width.
func TestRoundTripCodes(t *testing.T) {
	c := trained(t, cgan, "posit8")
	m, l, b := roundTrip(t, c, mustPolicy(t, "posit6-deploy"))
	if len(l.Tensors) != len(m.Tensors) {
		t.Fatalf("%d tensors read, %d written", len(l.Tensors), len(m.Tensors))
	}
	packed := 0
	for i, w := range m.Tensors {
		r := l.Tensors[i]
		if r.Name != w.Name || r.Format != w.Format || !slices.Equal(r.Shape, w.Shape) || !slices.Equal(r.Codes, w.Codes) {
			t.Errorf("tensor %s: read %s %v %v, wrote %s %v %v", w.Name, r.Name, r.Format, r.Shape, w.Name, w.Format, w.Shape)
		}
		if strings.HasSuffix(w.Name, ".w") && w.Format.String() != "posit(6,1)" {
			t.Errorf("weight %s stored as %v", w.Name, w.Format)
		}
		packed += (len(w.Codes)*w.Format.Bits() + 7) / 8
	}
	if !slices.EqualFunc(l.Meta.Layers, m.Meta.Layers, func(a, b deploy.Layer) bool { return a == b }) || l.Meta.Policy != m.Meta.Policy {
		t.Errorf("metadata differs after the round trip")
	}
	if len(b) > packed+8000 {
		t.Errorf("file of %d bytes for %d bytes of codes", len(b), packed)
	}
	// Saved and loaded through a file, the same bytes.
	path := filepath.Join(t.TempDir(), "gen.pgmodel")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	f, err := deploy.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := f.Bytes()
	if !slices.Equal(b, b2) {
		t.Errorf("Load(Save(m)) writes different bytes")
	}
}

// Decoding each stored weight code gives the weight the checkpoint's layer
// computes with: the weight rounded to the layer's weight format.
func TestWeightCodesAreRoundedWeights(t *testing.T) {
	c := trained(t, dcgan, "")
	m, err := deploy.Export(c, mustPolicy(t, "posit6-deploy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tn := range m.Tensors {
		src := c.Tensors[tn.Name].Data
		v := tn.Values()
		for i, x := range src {
			want := x
			if tn.Format != quant.FP32 {
				want = tn.Format.Round(x)
			}
			if math.Float32bits(v[i]) != math.Float32bits(want) {
				t.Fatalf("%s[%d]: decoded %g, want %g (from %g)", tn.Name, i, v[i], want, x)
			}
		}
	}
}

func TestPackUnpack(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for bits := 1; bits <= 32; bits++ {
		for _, n := range []int{0, 1, 7, 8, 9, 33} {
			codes := make([]uint32, n)
			for i := range codes {
				codes[i] = uint32(rng.Uint64() & (1<<bits - 1))
			}
			b := deploy.Pack(codes, bits)
			if len(b) != (n*bits+7)/8 {
				t.Fatalf("%d codes of %d bits: %d bytes", n, bits, len(b))
			}
			if got := deploy.Unpack(b, n, bits); !slices.Equal(got, codes) {
				t.Fatalf("%d bits: Unpack(Pack(%x)) = %x", bits, codes, got)
			}
		}
	}
	// The documented bit order: LSB first.
	if got := deploy.Pack([]uint32{0b101011, 0b000111, 0b111111}, 6); !slices.Equal(got, []byte{0b11_101011, 0b1111_0001, 0b0000_0011}) {
		t.Errorf("Pack 6-bit = %08b", got)
	}
}

// withVersion returns the file with another version number and a
// matching checksum.
func withVersion(b []byte, v uint32) []byte {
	b = slices.Clone(b)
	binary.LittleEndian.PutUint32(b[8:], v)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// A truncated, bit-flipped or wrong-version file gives one clear error.
func TestDamagedFiles(t *testing.T) {
	_, _, b := roundTrip(t, trained(t, dcgan, ""), mustPolicy(t, "posit6-deploy"))
	check := func(what string, data []byte, wantVersion bool, substr string) {
		t.Helper()
		_, err := deploy.Parse(data)
		var fe deploy.FormatError
		var ve deploy.VersionError
		switch {
		case err == nil:
			t.Errorf("%s: no error", what)
		case wantVersion && !errors.As(err, &ve), !wantVersion && !errors.As(err, &fe):
			t.Errorf("%s: error %T %v", what, err, err)
		case !strings.Contains(err.Error(), substr) || strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: error %q, want one line with %q", what, err, substr)
		}
	}
	for _, n := range []int{0, 3, 8, 20, 36, 100, len(b) / 2, len(b) - 5, len(b) - 1} {
		want := "truncated"
		if n == 0 {
			want = "empty"
		}
		check("truncated to "+strconv.Itoa(n), b[:n], false, want)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for range 200 {
		i := 24 + rng.IntN(len(b)-24) // past the magic, version and length
		d := slices.Clone(b)
		d[i] ^= 1 << rng.IntN(8)
		check("bit flipped at "+strconv.Itoa(i), d, false, "checksum")
	}
	check("version 3", withVersion(b, 3), true, "version 3")
	check("version 0", withVersion(b, 0), true, "version 0")
	check("not a model", []byte("PNG\x89 and then some more bytes of a picture"), false, "magic")
	check("trailing bytes", append(slices.Clone(b), 0), false, "after the end")
}

func TestGenerateArguments(t *testing.T) {
	_, m, _ := roundTrip(t, trained(t, cgan, ""), nil)
	for _, tc := range []struct {
		z      []float32
		labels []int
		want   string
	}{
		{nil, nil, "latent values"},
		{make([]float32, 9), []int{0}, "latent values"},
		{make([]float32, 8), nil, "0 labels"},
		{make([]float32, 8), []int{2}, "label 2"},
	} {
		if _, err := m.Generate(tc.z, tc.labels); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Generate(%d values, %v): %v, want an error with %q", len(tc.z), tc.labels, err, tc.want)
		}
	}
}

// The bit-identity test is not vacuous: the export policy changes the
// images, the posit8 checkpoint carries exponent biases, and changing one
// weight code changes the images.
func TestBitIdentityIsSensitive(t *testing.T) {
	c := trained(t, cgan, "posit8")
	s, err := gan.ReadState(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Biases) == 0 {
		t.Errorf("the posit8 checkpoint has no exponent biases")
	}
	exp, m, _ := roundTrip(t, c, mustPolicy(t, "posit6-deploy"))
	z, labels := noise(m.Spec(), 4)
	got, err := m.Generate(z, labels)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(got, reference(t, c, mustPolicy(t, "fp32"), z, labels)) {
		t.Errorf("posit6-deploy and fp32 make the same images")
	}
	w := exp.Tensor("G/fc1.w")
	w.Codes[0] ^= 1 << 4
	b, err := exp.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := deploy.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	got2, err := m2.Generate(z, labels)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(got, got2) {
		t.Errorf("changing a weight code does not change the images")
	}
}

// Folding batch norm into CGAN's layers (which have biases) drops the
// batch norms and, in float32, changes the images by float32 rounding
// only; DCGAN's layers have no bias, so its batch norms stay.
func TestFoldBatchNorm(t *testing.T) {
	c := trained(t, cgan, "")
	fp32 := mustPolicy(t, "fp32")
	m, err := deploy.Export(c, fp32, deploy.FoldBatchNorm())
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Meta.Folded; !slices.Equal(got, []string{"G/bn2", "G/bn3", "G/bn4"}) || len(m.Meta.Norms) != 0 || m.Tensor("G/bn2.gamma") != nil {
		t.Errorf("folded %v, kept %v", got, m.Meta.Norms)
	}
	b, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if m, err = deploy.Parse(b); err != nil {
		t.Fatal(err)
	}
	z, labels := noise(m.Spec(), 6)
	got, err := m.Generate(z, labels)
	if err != nil {
		t.Fatal(err)
	}
	want := reference(t, c, fp32, z, labels)
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > 1e-4 {
			t.Fatalf("value %d: folded %g, checkpoint %g", i, got[i], want[i])
		}
	}

	d := trained(t, dcgan, "")
	pol := mustPolicy(t, "posit6-deploy")
	dm, err := deploy.Export(d, pol, deploy.FoldBatchNorm())
	if err != nil {
		t.Fatal(err)
	}
	if len(dm.Meta.Folded) != 0 || len(dm.Meta.Norms) == 0 {
		t.Errorf("dcgan: folded %v into layers without bias", dm.Meta.Folded)
	}
	if dm.Meta.BatchNorm != "float32" { // nothing was folded (issue 29 item 14)
		t.Errorf("dcgan with nothing folded says its batch norm is %q", dm.Meta.BatchNorm)
	}
	z, _ = noise(dm.Spec(), 3)
	got, err = dm.Generate(z, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, reference(t, d, pol, z, nil)) {
		t.Errorf("dcgan with nothing folded differs from the checkpoint")
	}
}

// Every format the deployment table exports round-trips through the file
// (every code, and the format with its options and exponent bias) and
// the model read back generates the checkpoint's images under the same
// policy bit for bit: each float split with and without Inf, saturation
// and subnormals, floats and posits with exponent biases per layer, the
// narrow posits, for CGAN and DCGAN, fp32 and quire accumulation.
func TestRoundTripFormats(t *testing.T) {
	var dots []string
	for _, b := range []int{4, 6} {
		for _, f := range deploy.FloatCandidates(b) {
			dots = append(dots, f.String())
		}
	}
	dots = append(dots, "posit(4,0)", "posit(5,1)", "posit(6,1,scale=3)", "float(3,2,bias=6,special=none)", "float(4,1,bias=11,subnormals=false)")
	for _, cfg := range []models.Config{cgan, dcgan} {
		c := trained(t, cfg, "")
		for i, dot := range dots {
			accum := []string{"fp32", "quire"}[i%2]
			settings := []string{"all=posit(16,1)", "dot=" + dot, "accum=" + accum,
				"G/*1:weight=posit(6,1,scale=4)", "G/*2:act=float(2,3,bias=0,special=none)"}
			t.Run(cfg.Arch+"/"+dot+"/"+accum, func(t *testing.T) {
				pol := mustPolicy(t, "fp32")
				for _, s := range settings {
					if err := pol.Apply(s); err != nil {
						t.Fatal(err)
					}
				}
				m, l, _ := roundTrip(t, c, pol)
				for i, w := range m.Tensors {
					r := l.Tensors[i]
					if r.Name != w.Name || r.Format.String() != w.Format.String() || !slices.Equal(r.Codes, w.Codes) {
						t.Fatalf("tensor %s: read %s %v, wrote %s %v", w.Name, r.Name, r.Format, w.Name, w.Format)
					}
				}
				if !slices.EqualFunc(l.Meta.Layers, m.Meta.Layers, func(a, b deploy.Layer) bool { return a == b }) {
					t.Fatalf("layers differ after the round trip: %+v", l.Meta.Layers)
				}
				z, labels := noise(l.Spec(), 3)
				got, err := l.Generate(z, labels)
				if err != nil {
					t.Fatal(err)
				}
				want := reference(t, c, pol, z, labels)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("value %d: %g, checkpoint %g", i, got[i], want[i])
					}
				}
			})
		}
	}
}
