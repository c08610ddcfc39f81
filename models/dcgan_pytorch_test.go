package models_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/pyref"
	"github.com/positgan/positgan/models"
)

// dcganRef is the reference: pytorch/examples' DCGAN generator, written
// here from its definition (dcgan/main.py's Generator), with random
// weights and batch-norm statistics, saved in the layouts people have
// (bare, legacy format, BasicSR's params_ema, DataParallel's module.,
// a training script's state_dict), and its evaluation-mode output on the
// noise in z.bin.
const dcganRef = `
import sys, torch, torch.nn as nn
nz, ngf, nc, n, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
torch.manual_seed(7)
g = nn.Sequential(
    nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
    nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
    nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
    nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
    nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())
class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = g
    def forward(self, z):
        return self.main(z)
net = Generator()
with torch.no_grad():
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.uniform_(0.5, 1.5); m.bias.normal_(0, 0.2)
            m.running_mean.normal_(0, 0.3); m.running_var.uniform_(0.3, 2.0)
            m.num_batches_tracked.fill_(100)
net.eval()
z = torch.frombuffer(bytearray(open(out + "/z.bin", "rb").read()), dtype=torch.float32).reshape(n, nz, 1, 1)
with torch.no_grad():
    y = net(z)
open(out + "/y.bin", "wb").write(y.contiguous().numpy().tobytes())
sd = net.state_dict()
torch.save(sd, out + "/bare.pth")
torch.save(sd, out + "/legacy.pth", _use_new_zipfile_serialization=False)
other = {k: torch.zeros_like(v) for k, v in sd.items()}
torch.save({"params": other, "params_ema": sd}, out + "/ema.pth")
torch.save(nn.DataParallel(net).state_dict(), out + "/module.pth")
torch.save({"epoch": 3, "state_dict": sd}, out + "/wrapped.pt")
`

func f32file(t *testing.T, path string, xs []float32) {
	t.Helper()
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, xs)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runG returns the fp32 output of the generator checkpoint c holds on z.
func runG(t *testing.T, c *ckpt.Checkpoint, n, nz int, z []float32) []float32 {
	t.Helper()
	nets, _, err := models.Load(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := gan.NewApplier(nets, "G", []int{n, nz, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float32, a.OutSize())
	if err := a.Apply(y, z); err != nil {
		t.Fatal(err)
	}
	return y
}

// TestDCGANPyTorchFidelity: an imported pytorch/examples DCGAN generator
// gives PyTorch's evaluation-mode output within 1e-4·max(1, max|y|), from
// every layout it is saved in (and from safetensors), with the
// checkpoint written and read back.
func TestDCGANPyTorchFidelity(t *testing.T) {
	py := pyref.Python("torch")
	if py == "" {
		t.Skip("python3-torch is not installed")
	}
	for _, sz := range []struct{ nz, ngf, nc int }{{16, 8, 3}, {10, 4, 1}} {
		dir := t.TempDir()
		const n = 3
		r := rand.New(rand.NewPCG(1, uint64(sz.nz)))
		z := make([]float32, n*sz.nz)
		for i := range z {
			z[i] = float32(r.NormFloat64())
		}
		f32file(t, filepath.Join(dir, "z.bin"), z)
		cmd := exec.Command(py, "-c", dcganRef, strconv.Itoa(sz.nz), strconv.Itoa(sz.ngf), strconv.Itoa(sz.nc), strconv.Itoa(n), dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("reference: %v\n%s", err, out)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "y.bin"))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, len(raw)/4)
		binary.Read(bytes.NewReader(raw), binary.LittleEndian, want)
		if len(want) != n*sz.nc*64*64 {
			t.Fatalf("reference output of %d values", len(want))
		}
		// A safetensors file of the same state dict.
		sd, err := models.ImportTorch("dcgan", filepath.Join(dir, "bare.pth"), "")
		if err != nil {
			t.Fatal(err)
		}
		st := ckpt.New()
		for name, tn := range sd.Tensors {
			st.Tensors[dcganKey(name)] = tn
		}
		if err := ckpt.Save(filepath.Join(dir, "sd.safetensors"), st); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"bare.pth", "legacy.pth", "ema.pth", "module.pth", "wrapped.pt", "sd.safetensors"} {
			c, err := models.ImportTorch("dcgan", filepath.Join(dir, f), "")
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out := filepath.Join(dir, "g.safetensors")
			if err := ckpt.Save(out, c); err != nil {
				t.Fatal(err)
			}
			if c, err = ckpt.Load(out); err != nil {
				t.Fatal(err)
			}
			cfg, err := models.ConfigOf(c)
			if err != nil || cfg.ZDim != sz.nz || cfg.Features != sz.ngf || cfg.Channels != sz.nc {
				t.Fatalf("%s: config %+v, %v", f, cfg, err)
			}
			got := runG(t, c, n, sz.nz, z)
			var maxErr, maxY float64
			for i := range want {
				maxErr = math.Max(maxErr, math.Abs(float64(got[i]-want[i])))
				maxY = math.Max(maxY, math.Abs(float64(want[i])))
			}
			if tol := 1e-4 * math.Max(1, maxY); !(maxErr <= tol) {
				t.Errorf("%v %s: max |error| %g > %g", sz, f, maxErr, tol)
			}
			t.Logf("%v %s: max |error| %.3g, max |y| %.3g", sz, f, maxErr, maxY)
		}
	}
}

// dcganKey returns the PyTorch key of a pytorch-dcgan tensor name, for
// the safetensors file written above (see the layer table of
// models.DCGANPyTorch).
func dcganKey(name string) string {
	layer, param, _ := strings.Cut(strings.TrimPrefix(name, "G/"), ".")
	idx := map[string]int{"deconv1": 0, "bn1": 1, "deconv2": 3, "bn2": 4, "deconv3": 6, "bn3": 7, "deconv4": 9, "bn4": 10, "deconv5": 12}[layer]
	switch param {
	case "w", "gamma":
		param = "weight"
	case "beta":
		param = "bias"
	}
	return "main." + strconv.Itoa(idx) + "." + param
}

// torchFile writes a safetensors file of the given PyTorch-named tensors
// (random values) and returns its path.
func torchFile(t *testing.T, shapes map[string][]int) string {
	t.Helper()
	c := ckpt.New()
	for name, sh := range shapes {
		n := 1
		for _, d := range sh {
			n *= d
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(i%7) / 10
		}
		c.Tensors[name] = ckpt.Tensor{Shape: sh, Data: data}
	}
	path := filepath.Join(t.TempDir(), "sd.safetensors")
	if err := ckpt.Save(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

// dcganShapes returns the state dict shapes of a DCGAN generator.
func dcganShapes(nz, ngf, nc int) map[string][]int {
	s := map[string][]int{"main.0.weight": {nz, 8 * ngf, 4, 4}, "main.12.weight": {ngf, nc, 4, 4}}
	for i, ch := range []int{8 * ngf, 4 * ngf, 2 * ngf, ngf} {
		bn := "main." + strconv.Itoa(3*i+1) + "."
		s[bn+"weight"], s[bn+"bias"], s[bn+"running_mean"], s[bn+"running_var"] = []int{ch}, []int{ch}, []int{ch}, []int{ch}
		if i > 0 {
			s["main."+strconv.Itoa(3*i)+".weight"] = []int{2 * ch, ch, 4, 4}
		}
	}
	return s
}

// TestImportTorchBadInput: a state dict of another network, a truncated
// file, a pickle that asks to run code and a huge declared tensor give a
// one-line error naming what is wrong.
func TestImportTorchBadInput(t *testing.T) {
	if _, err := models.ImportTorch("dcgan", torchFile(t, dcganShapes(8, 2, 3)), ""); err != nil {
		t.Fatalf("a good state dict: %v", err)
	}
	missing := dcganShapes(8, 2, 3)
	delete(missing, "main.4.running_var")
	misshaped := dcganShapes(8, 2, 3)
	misshaped["main.6.weight"] = []int{8, 4, 3, 3}
	extra := dcganShapes(8, 2, 3)
	extra["main.12.bias"] = []int{3}
	cases := map[string]struct {
		sd   map[string][]int
		want string
	}{
		"missing":   {missing, `no "main.4.running_var" (want a tensor of shape (8))`},
		"misshaped": {misshaped, `"main.6.weight" has shape (8, 4, 3, 3), want (8, 4, 4, 4)`},
		"extra":     {extra, `"main.12.bias" is not a tensor of this network`},
		"other":     {map[string][]int{"model.1.weight": {64, 3, 7, 7}}, `no "main.0.weight" (want a tensor of shape (nz, 8·ngf, 4, 4))`},
		"size":      {map[string][]int{"main.0.weight": {8, 16, 4, 4}, "main.12.weight": {4, 3, 4, 4}}, `"main.12.weight" has shape (4, 3, 4, 4), want (ngf=2, nc, 4, 4)`},
	}
	for name, c := range cases {
		_, err := models.ImportTorch("dcgan", torchFile(t, c.sd), "")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}

	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join("..", "eval", "featnet", "testdata", "small_zip.pth"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var evil bytes.Buffer
	zw := zip.NewWriter(&evil)
	w, _ := zw.Create("archive/data.pkl")
	w.Write([]byte("\x80\x02cposix\nsystem\nX\x07\x00\x00\x00echo hi\x85R."))
	zw.Close()
	// A safetensors header declaring a 2^40-value tensor in a tiny file.
	hdr := `{"w":{"dtype":"F32","shape":[1048576,1048576],"data_offsets":[0,4398046511104]}}`
	huge := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	huge = append(append(huge, hdr...), 0, 0, 0, 0)
	for name, c := range map[string]struct {
		path, want string
	}{
		"truncated": {write("cut.pth", good[:len(good)/2]), "zip"},
		"code":      {write("evil.pth", evil.Bytes()), `"posix.system"`},
		"huge":      {write("huge.safetensors", huge), "incomplete buffer"},
		"empty":     {write("empty.pth", nil), "EOF"},
		"arch":      {write("x.pth", good), "unknown PyTorch architecture"},
	} {
		arch := "dcgan"
		if name == "arch" {
			arch = "vgg"
		}
		_, err := models.ImportTorch(arch, c.path, "")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
