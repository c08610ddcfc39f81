package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
)

// randomStateDict writes a safetensors file of random tensors of the
// given shapes (running variances positive).
func randomStateDict(t *testing.T, path string, shapes map[string][]int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	c := ckpt.New()
	for name, shape := range shapes {
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(r.NormFloat64() * 0.2)
			if strings.HasSuffix(name, "running_var") {
				data[i] = 1 + data[i]*data[i]
			}
		}
		c.Tensors[name] = ckpt.Tensor{Shape: shape, Data: data}
	}
	if err := ckpt.Save(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportCycleGAN imports a ResnetGenerator (ngf 2, 6 blocks) and
// translates a folder of images with it, in fp32 and in posit8 (export
// writes generators of images from noise only, as for a trained CycleGAN).
func TestImportCycleGAN(t *testing.T) {
	dir := t.TempDir()
	const ngf, blocks = 2, 6
	s := map[string][]int{"model.1.weight": {ngf, 3, 7, 7}, "model.1.bias": {ngf},
		"model.4.weight": {2 * ngf, ngf, 3, 3}, "model.4.bias": {2 * ngf},
		"model.7.weight": {4 * ngf, 2 * ngf, 3, 3}, "model.7.bias": {4 * ngf},
		"model.16.weight": {4 * ngf, 2 * ngf, 3, 3}, "model.16.bias": {2 * ngf},
		"model.19.weight": {2 * ngf, ngf, 3, 3}, "model.19.bias": {ngf},
		"model.23.weight": {3, ngf, 7, 7}, "model.23.bias": {3}}
	for i := range blocks {
		for _, j := range []string{"1", "5"} {
			k := "model." + strconv.Itoa(10+i) + ".conv_block." + j + "."
			s[k+"weight"], s[k+"bias"] = []int{4 * ngf, 4 * ngf, 3, 3}, []int{4 * ngf}
		}
	}
	w := randomStateDict(t, filepath.Join(dir, "latest_net_G_A.safetensors"), s)
	g := filepath.Join(dir, "g.safetensors")
	out, errOut, code := runCLI(t, "", "import", "--arch", "cyclegan", "--weights", w, "--out", g)
	if code != 0 || !strings.Contains(out, "(pytorch-cyclegan: 3 channels, 256x256, width 2, blocks 6)") {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	writeUnpaired(t, dir)
	for _, args := range [][]string{
		{"translate", "--checkpoint", g, "--in", filepath.Join(dir, "testA"), "--out", filepath.Join(dir, "fp32")},
		{"translate", "--checkpoint", g, "--in", filepath.Join(dir, "testA"), "--out", filepath.Join(dir, "p8"), "--policy", "posit8"},
	} {
		out, errOut, code := runCLI(t, "", args...)
		if code != 0 {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "fp32", "img0.png")); err != nil {
		t.Error(err)
	}
}

// dcganStateDict writes a safetensors state dict of pytorch/examples'
// DCGAN generator (nz 8, ngf 2, nc 1) with random weights.
func dcganStateDict(t *testing.T, dir string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	c := ckpt.New()
	add := func(name string, shape ...int) {
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(r.NormFloat64() * 0.2)
		}
		if strings.HasSuffix(name, "running_var") {
			for i := range data {
				data[i] = 1 + data[i]*data[i]
			}
		}
		c.Tensors[name] = ckpt.Tensor{Shape: shape, Data: data}
	}
	add("main.0.weight", 8, 16, 4, 4)
	for i, ch := range []int{16, 8, 4, 2} {
		for _, p := range []string{"weight", "bias", "running_mean", "running_var"} {
			add("main."+strconv.Itoa(3*i+1)+"."+p, ch)
		}
		if i > 0 {
			add("main."+strconv.Itoa(3*i)+".weight", 2*ch, ch, 4, 4)
		}
	}
	add("main.12.weight", 2, 1, 4, 4)
	path := filepath.Join(dir, "netG.safetensors")
	if err := ckpt.Save(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportDCGAN imports a DCGAN generator and runs it where trained
// generators run: sample, scale histogram, export and generate.
func TestImportDCGAN(t *testing.T) {
	dir := t.TempDir()
	w := dcganStateDict(t, dir)
	g := filepath.Join(dir, "g.safetensors")
	out, errOut, code := runCLI(t, "", "import", "--arch", "dcgan", "--weights", w, "--out", g)
	if code != 0 || !strings.Contains(out, "pytorch-dcgan: z 8, 1 channels, 64x64, width 2") {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	for _, args := range [][]string{
		{"sample", "--checkpoint", g, "--n", "4", "--out", filepath.Join(dir, "s.png")},
		{"sample", "--checkpoint", g, "--n", "4", "--policy", "posit8", "--out", filepath.Join(dir, "p.png")},
		{"scale", "histogram", "--checkpoint", g, "--n", "2"},
		{"export", "--checkpoint", g, "--policy", "posit8", "--out", filepath.Join(dir, "g.pgmodel")},
		{"generate", "--model", filepath.Join(dir, "g.pgmodel"), "--n", "4", "--out", filepath.Join(dir, "gen.png")},
	} {
		out, errOut, code := runCLI(t, "", args...)
		t.Logf("%v: %s", args[0], firstLine(out))
		if code != 0 {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
}

// TestImportBadInput: usage errors exit 2, bad files 1 with one line, and
// nothing is written.
func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	w := dcganStateDict(t, dir)
	out := filepath.Join(dir, "out.safetensors")
	bad := filepath.Join(dir, "bad.pth")
	if err := os.WriteFile(bad, []byte("PK\x03\x04 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--arch", "dcgan", "--weights", w}, 2, "required"},
		{[]string{"--arch", "vgg", "--weights", w, "--out", out}, 2, "unknown PyTorch architecture"},
		{[]string{"--arch", "dcgan", "--weights", bad, "--out", out}, 1, "zip"},
		{[]string{"--arch", "dcgan", "--weights", filepath.Join(dir, "none.pth"), "--out", out}, 1, "none.pth"},
		{[]string{"--arch", "dcgan", "--weights", w, "--key", "params_ema", "--out", out}, 1, "params_ema"},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"import"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errOut, c.code, c.want)
		}
		if c.code == 1 && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: more than one line: %q", c.args, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v wrote %s", c.args, out)
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// TestImportESRGAN imports an RRDBNet x4 (original ESRGAN keys, nf 4, gc
// 2, one block) and upscales low-resolution images with it, in fp32 and in
// posit8.
func TestImportESRGAN(t *testing.T) {
	dir := t.TempDir()
	const nf, gc = 4, 2
	s := map[string][]int{"conv_first.weight": {nf, 3, 3, 3}, "conv_first.bias": {nf}}
	for _, l := range []string{"trunk_conv", "upconv1", "upconv2", "HRconv"} {
		s[l+".weight"], s[l+".bias"] = []int{nf, nf, 3, 3}, []int{nf}
	}
	s["conv_last.weight"], s["conv_last.bias"] = []int{3, nf, 3, 3}, []int{3}
	for k := 1; k <= 3; k++ {
		for j := 1; j <= 5; j++ {
			name := "RRDB_trunk.0.RDB" + strconv.Itoa(k) + ".conv" + strconv.Itoa(j) + "."
			out := gc
			if j == 5 {
				out = nf
			}
			s[name+"weight"], s[name+"bias"] = []int{out, nf + (j-1)*gc, 3, 3}, []int{out}
		}
	}
	w := randomStateDict(t, filepath.Join(dir, "RRDB_ESRGAN_x4.safetensors"), s)
	g := filepath.Join(dir, "g.safetensors")
	out, errOut, code := runCLI(t, "", "import", "--arch", "esrgan", "--weights", w, "--out", g)
	if code != 0 || !strings.Contains(out, "(pytorch-esrgan: 3 channels, 128x128, width 4, blocks 1, gc 2, layout esrgan)") {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	writeUnpaired(t, dir)
	for _, args := range [][]string{
		{"upscale", "--checkpoint", g, "--in", filepath.Join(dir, "testA"), "--out", filepath.Join(dir, "fp32"), "--lr"},
		{"upscale", "--checkpoint", g, "--in", filepath.Join(dir, "testA"), "--out", filepath.Join(dir, "p8"), "--policy", "posit8", "--lr"},
		{"scale", "histogram", "--checkpoint", g, "--n", "2"},
	} {
		out, errOut, code := runCLI(t, "", args...)
		if code != 0 {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "fp32", "img0_sr.png")); err != nil {
		t.Error(err)
	}
}
