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
	if code != 0 || !strings.Contains(out, "dcgan-pytorch: z 8, 1 channels, 64x64, width 2") {
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
