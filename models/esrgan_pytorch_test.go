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

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/pyref"
	"github.com/positgan/positgan/models"
)

// esrganRef is the reference: ESRGAN's RRDBNet x4, written here from its
// definition (BasicSR's names), with random weights, saved in BasicSR's
// layout wrapped as {"params_ema": ...} and renamed to the original
// ESRGAN repository's layout, and its output on the [0, 1] pixels in x.bin.
const esrganRef = `
import sys, collections, torch, torch.nn as nn, torch.nn.functional as F
nf, gc, nb, n, side, out = [int(a) for a in sys.argv[1:6]] + [sys.argv[6]]
torch.manual_seed(5)
class RDB(nn.Module):
    def __init__(self):
        super().__init__()
        for j in range(5):
            setattr(self, "conv%d" % (j + 1), nn.Conv2d(nf + j * gc, gc if j < 4 else nf, 3, 1, 1))
        self.lrelu = nn.LeakyReLU(0.2, True)
    def forward(self, x):
        feats = [x]
        for j in range(4):
            feats.append(self.lrelu(getattr(self, "conv%d" % (j + 1))(torch.cat(feats, 1))))
        return x + 0.2 * self.conv5(torch.cat(feats, 1))
class RRDB(nn.Module):
    def __init__(self):
        super().__init__()
        self.rdb1, self.rdb2, self.rdb3 = RDB(), RDB(), RDB()
    def forward(self, x):
        return x + 0.2 * self.rdb3(self.rdb2(self.rdb1(x)))
class RRDBNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_first = nn.Conv2d(3, nf, 3, 1, 1)
        self.body = nn.Sequential(*[RRDB() for _ in range(nb)])
        self.conv_body = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_up1 = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_up2 = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_hr = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_last = nn.Conv2d(nf, 3, 3, 1, 1)
        self.lrelu = nn.LeakyReLU(0.2, True)
    def forward(self, x):
        feat = self.conv_first(x)
        feat = feat + self.conv_body(self.body(feat))
        feat = self.lrelu(self.conv_up1(F.interpolate(feat, scale_factor=2, mode="nearest")))
        feat = self.lrelu(self.conv_up2(F.interpolate(feat, scale_factor=2, mode="nearest")))
        return self.conv_last(self.lrelu(self.conv_hr(feat)))
net = RRDBNet().eval()
x = torch.frombuffer(bytearray(open(out + "/x.bin", "rb").read()), dtype=torch.float32).reshape(n, 3, side, side)
with torch.no_grad():
    y = net(x)
open(out + "/y.bin", "wb").write(y.contiguous().numpy().tobytes())
sd = net.state_dict()
torch.save({"params_ema": sd}, out + "/basicsr.pth")
ren = [("conv_body", "trunk_conv"), ("body.", "RRDB_trunk."), (".rdb", ".RDB"), ("conv_up1", "upconv1"),
       ("conv_up2", "upconv2"), ("conv_hr", "HRconv")]
orig = collections.OrderedDict()
for k, v in sd.items():
    for a, b in ren:
        k = k.replace(a, b)
    orig[k] = v
torch.save(orig, out + "/esrgan.pth")
`

// TestESRGANPyTorchFidelity: an imported RRDBNet x4, in both key layouts,
// gives PyTorch's output on [0, 1] pixels within 1e-4·max(1, max|y|),
// including the full-size network (64 features, 23 blocks, growth 32).
func TestESRGANPyTorchFidelity(t *testing.T) {
	py := pyref.Python("torch")
	if py == "" {
		t.Skip("python3-torch is not installed")
	}
	for _, sz := range []struct{ nf, gc, blocks, side int }{{8, 4, 2, 12}, {64, 32, 23, 6}} {
		dir := t.TempDir()
		const n = 1
		r := rand.New(rand.NewPCG(9, uint64(sz.blocks)))
		x01 := make([]float32, n*3*sz.side*sz.side)
		x := make([]float32, len(x01))
		for i := range x01 {
			x01[i] = float32(r.Float64())
			x[i] = 2*x01[i] - 1
		}
		f32file(t, filepath.Join(dir, "x.bin"), x01)
		args := []string{"-c", esrganRef}
		for _, v := range []int{sz.nf, sz.gc, sz.blocks, n, sz.side} {
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
		if len(want) != 16*len(x) {
			t.Fatalf("reference output of %d values, want %d", len(want), 16*len(x))
		}
		for _, f := range []string{"basicsr.pth", "esrgan.pth"} {
			c, err := models.ImportTorch("esrgan", filepath.Join(dir, f), "")
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			cfg, err := models.ConfigOf(c)
			if err != nil || cfg.Features != sz.nf || cfg.Options["gc"] != strconv.Itoa(sz.gc) || cfg.Options["blocks"] != strconv.Itoa(sz.blocks) ||
				cfg.Options["layout"] != strings.TrimSuffix(f, ".pth") {
				t.Fatalf("%s: config %+v, %v", f, cfg, err)
			}
			nets, _, err := models.Load(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, err := gan.NewApplier(nets, models.GroupG, []int{n, 3, sz.side, sz.side})
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float32, a.OutSize())
			if err := a.Apply(y, x); err != nil {
				t.Fatal(err)
			}
			var maxErr, maxY float64
			for i := range want {
				got := (float64(y[i]) + 1) / 2
				maxErr = math.Max(maxErr, math.Abs(got-float64(want[i])))
				maxY = math.Max(maxY, math.Abs(float64(want[i])))
			}
			if tol := 1e-4 * math.Max(1, maxY); !(maxErr <= tol) {
				t.Errorf("%v %s: max |error| %g > %g", sz, f, maxErr, tol)
			}
			t.Logf("%v %s: max |error| %.3g, max |y| %.3g", sz, f, maxErr, maxY)
		}
	}
}

// TestImportESRGANBadInput: an x2 RRDBNet (BasicSR's pixel-unshuffled
// input), a missing dense-block convolution and a CycleGAN generator are
// refused by the first key that does not fit.
func TestImportESRGANBadInput(t *testing.T) {
	shapes := func(inC, blocks int, prefix, rdb string) map[string][]int {
		const nf, gc = 4, 2
		s := map[string][]int{"conv_first.weight": {nf, inC, 3, 3}, "conv_first.bias": {nf}}
		for _, l := range []string{"conv_body", "conv_up1", "conv_up2", "conv_hr"} {
			s[l+".weight"], s[l+".bias"] = []int{nf, nf, 3, 3}, []int{nf}
		}
		s["conv_last.weight"], s["conv_last.bias"] = []int{3, nf, 3, 3}, []int{3}
		for i := range blocks {
			for k := 1; k <= 3; k++ {
				for j := 1; j <= 5; j++ {
					name := prefix + strconv.Itoa(i) + rdb + strconv.Itoa(k) + ".conv" + strconv.Itoa(j) + "."
					out := gc
					if j == 5 {
						out = nf
					}
					s[name+"weight"], s[name+"bias"] = []int{out, nf + (j-1)*gc, 3, 3}, []int{out}
				}
			}
		}
		return s
	}
	if _, err := models.ImportTorch("esrgan", torchFile(t, shapes(3, 2, "body.", ".rdb")), ""); err != nil {
		t.Fatalf("a good state dict: %v", err)
	}
	missing := shapes(3, 2, "body.", ".rdb")
	delete(missing, "body.1.rdb2.conv4.bias")
	mixed := shapes(3, 2, "body.", ".rdb")
	mixed["trunk_conv.weight"] = []int{4, 4, 3, 3}
	for name, c := range map[string]struct {
		sd   map[string][]int
		want string
	}{
		"x2":       {shapes(12, 1, "body.", ".rdb"), `"conv_first.weight" has shape (4, 12, 3, 3), want (nf, 3, 3, 3)`},
		"missing":  {missing, `no "body.1.rdb2.conv4.bias" (want a tensor of shape (2))`},
		"mixed":    {mixed, `no "RRDB_trunk.0.RDB1.conv1.weight"`},
		"cyclegan": {map[string][]int{"model.1.weight": {64, 3, 7, 7}}, `no "conv_first.weight"`},
	} {
		_, err := models.ImportTorch("esrgan", torchFile(t, c.sd), "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
