package models_test

import (
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

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/pyref"
	"github.com/positgan/positgan/models"
)

// cycleganRef is the reference: pytorch-CycleGAN-and-pix2pix's
// ResnetGenerator with instance norm (no affine parameters, no running
// statistics), written here from its definition, with random weights and
// biases, its state dict saved bare and DataParallel-wrapped, and its
// output on the images in x.bin.
const cycleganRef = `
import sys, torch, torch.nn as nn
nc, ngf, nb, n, h, w, out = [int(a) for a in sys.argv[1:7]] + [sys.argv[7]]
torch.manual_seed(11)
norm = lambda c: nn.InstanceNorm2d(c, affine=False, track_running_stats=False)
class ResnetBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.conv_block = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3, padding=0, bias=True), norm(dim), nn.ReLU(True),
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3, padding=0, bias=True), norm(dim))
    def forward(self, x):
        return x + self.conv_block(x)
class ResnetGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        m = [nn.ReflectionPad2d(3), nn.Conv2d(nc, ngf, 7, padding=0, bias=True), norm(ngf), nn.ReLU(True)]
        for i in range(2):
            k = 2 ** i
            m += [nn.Conv2d(ngf * k, ngf * k * 2, 3, stride=2, padding=1, bias=True), norm(ngf * k * 2), nn.ReLU(True)]
        m += [ResnetBlock(ngf * 4) for _ in range(nb)]
        for i in range(2):
            k = 2 ** (2 - i)
            m += [nn.ConvTranspose2d(ngf * k, ngf * k // 2, 3, stride=2, padding=1, output_padding=1, bias=True),
                  norm(ngf * k // 2), nn.ReLU(True)]
        m += [nn.ReflectionPad2d(3), nn.Conv2d(ngf, nc, 7, padding=0), nn.Tanh()]
        self.model = nn.Sequential(*m)
    def forward(self, x):
        return self.model(x)
net = ResnetGenerator()
with torch.no_grad():
    for p in net.parameters():
        p.uniform_(-0.1, 0.1)
net.eval()
x = torch.frombuffer(bytearray(open(out + "/x.bin", "rb").read()), dtype=torch.float32).reshape(n, nc, h, w)
with torch.no_grad():
    y = net(x)
open(out + "/y.bin", "wb").write(y.contiguous().numpy().tobytes())
torch.save(net.state_dict(), out + "/G_A.pth")
torch.save(nn.DataParallel(net).state_dict(), out + "/module.pth")
`

// TestCycleGANPyTorchFidelity: an imported ResnetGenerator (6 and 9
// blocks, and resnet_9blocks at its published width ngf 64) gives PyTorch's output within 1e-4·max(1, max|y|), run as
// positgan translate runs it (models.Translate) at the checkpoint's size.
func TestCycleGANPyTorchFidelity(t *testing.T) {
	py := pyref.Python("torch")
	if py == "" {
		t.Skip("python3-torch is not installed")
	}
	for _, sz := range []struct{ nc, ngf, blocks, side int }{{3, 4, 9, 32}, {1, 6, 6, 20}, {3, 64, 9, 16}} {
		dir := t.TempDir()
		const n = 2
		r := rand.New(rand.NewPCG(3, uint64(sz.blocks)))
		x := make([]float32, n*sz.nc*sz.side*sz.side)
		for i := range x {
			x[i] = float32(2*r.Float64() - 1)
		}
		f32file(t, filepath.Join(dir, "x.bin"), x)
		args := []string{"-c", cycleganRef}
		for _, v := range []int{sz.nc, sz.ngf, sz.blocks, n, sz.side, sz.side} {
			args = append(args, strconv.Itoa(v))
		}
		if out, err := exec.Command(py, append(args, dir)...).CombinedOutput(); err != nil {
			t.Fatalf("reference: %v\n%s", err, out)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "y.bin"))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, len(raw)/4)
		binary.Read(bytes.NewReader(raw), binary.LittleEndian, want)
		if len(want) != len(x) {
			t.Fatalf("reference output of %d values, want %d", len(want), len(x))
		}
		for _, f := range []string{"G_A.pth", "module.pth"} {
			c, err := models.ImportTorch("cyclegan", filepath.Join(dir, f), "")
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			cfg, err := models.ConfigOf(c)
			if err != nil || cfg.Features != sz.ngf || cfg.Channels != sz.nc || cfg.Options["blocks"] != strconv.Itoa(sz.blocks) {
				t.Fatalf("%s: config %+v, %v", f, cfg, err)
			}
			// The image size of the source decides the network's input.
			src := gan.NewGenerated(gan.GeneratorSpec{Image: datasets.Shape{C: sz.nc, H: sz.side, W: sz.side}}, x, nil)
			got, err := models.Translate(c, nil, models.GroupGAB, src, 1)
			if err != nil {
				t.Fatal(err)
			}
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

// TestImportCycleGANBadInput: a generator with another number of output
// channels and a missing block are refused by name; pre-0.4 instance-norm
// statistics are ignored.
func TestImportCycleGANBadInput(t *testing.T) {
	shapes := func(nc, ngf, blocks, outC int) map[string][]int {
		s := map[string][]int{"model.1.weight": {ngf, nc, 7, 7}, "model.1.bias": {ngf},
			"model.4.weight": {2 * ngf, ngf, 3, 3}, "model.4.bias": {2 * ngf},
			"model.7.weight": {4 * ngf, 2 * ngf, 3, 3}, "model.7.bias": {4 * ngf}}
		for i := 0; i < blocks; i++ {
			for _, j := range []int{1, 5} {
				k := "model." + strconv.Itoa(10+i) + ".conv_block." + strconv.Itoa(j) + "."
				s[k+"weight"], s[k+"bias"] = []int{4 * ngf, 4 * ngf, 3, 3}, []int{4 * ngf}
			}
		}
		up := 10 + blocks
		s["model."+strconv.Itoa(up)+".weight"], s["model."+strconv.Itoa(up)+".bias"] = []int{4 * ngf, 2 * ngf, 3, 3}, []int{2 * ngf}
		s["model."+strconv.Itoa(up+3)+".weight"], s["model."+strconv.Itoa(up+3)+".bias"] = []int{2 * ngf, ngf, 3, 3}, []int{ngf}
		s["model."+strconv.Itoa(up+7)+".weight"], s["model."+strconv.Itoa(up+7)+".bias"] = []int{outC, ngf, 7, 7}, []int{outC}
		return s
	}
	good := shapes(3, 2, 6, 3)
	good["model.2.running_mean"], good["model.2.running_var"] = []int{2}, []int{2}
	if _, err := models.ImportTorch("cyclegan", torchFile(t, good), ""); err != nil {
		t.Fatalf("a good state dict: %v", err)
	}
	noBias := shapes(3, 2, 6, 3)
	delete(noBias, "model.12.conv_block.5.bias")
	for name, c := range map[string]struct {
		sd   map[string][]int
		want string
	}{
		"channels": {shapes(3, 2, 9, 1), `"model.26.weight" has shape (1, 2, 7, 7), want (nc=3, ngf=2, 7, 7)`},
		"bias":     {noBias, `no "model.12.conv_block.5.bias" (want a tensor of shape (8))`},
		"dcgan":    {dcganShapes(8, 2, 3), `no "model.1.weight"`},
	} {
		_, err := models.ImportTorch("cyclegan", torchFile(t, c.sd), "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
