package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
)

// writeIDX writes n 28x28 images of 10 classes (a bar whose position
// depends on the class) as train-images-idx3-ubyte and
// train-labels-idx1-ubyte in dir, and returns the images file.
func writeIDX(t *testing.T, dir string, n int) string {
	t.Helper()
	var im, lb bytes.Buffer
	binary.Write(&im, binary.BigEndian, []uint32{0x803, uint32(n), 28, 28})
	binary.Write(&lb, binary.BigEndian, []uint32{0x801, uint32(n)})
	for i := 0; i < n; i++ {
		c := i % 10
		lb.WriteByte(byte(c))
		for y := 0; y < 28; y++ {
			for x := 0; x < 28; x++ {
				v := byte((x * y * (i + 1)) % 50)
				if x/3 == c {
					v = 250
				}
				im.WriteByte(v)
			}
		}
	}
	images := filepath.Join(dir, "train-images-idx3-ubyte")
	if err := os.WriteFile(images, im.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "train-labels-idx1-ubyte"), lb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return images
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("%q: exit %d\nstdout: %s\nstderr: %s", args, code, out, stderr)
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// A short CGAN run writes its outputs; resuming it gives the same
// parameters as training straight through; sample and scale histogram
// read its checkpoint.
func TestTrainResumeSample(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 40)
	common := []string{"--dataset", data, "--policy", "posit8+", "--batch", "8", "--features", "4", "--seed", "7", "--bias-every", "2"}

	half := filepath.Join(dir, "half")
	out := mustRun(t, append([]string{"train", "--steps", "3", "--out", half, "--sample-every", "2"}, common...)...)
	if !strings.Contains(out, "3 steps in") {
		t.Errorf("train output:\n%s", out)
	}
	for _, f := range []string{"log.csv", "samples_000002.png", "samples.png", "checkpoint.safetensors"} {
		if !exists(filepath.Join(half, f)) {
			t.Errorf("no %s", f)
		}
	}
	out = mustRun(t, "train", "--resume", "--steps", "6", "--out", half, "--policy", "posit8+")
	if !strings.Contains(out, "resuming at step 3") {
		t.Errorf("resume output:\n%s", out)
	}
	straight := filepath.Join(dir, "straight")
	mustRun(t, append([]string{"train", "--steps", "6", "--out", straight}, common...)...)

	a, err := ckpt.Load(filepath.Join(half, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ckpt.Load(filepath.Join(straight, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Tensors) != len(b.Tensors) || len(a.Tensors) == 0 {
		t.Fatalf("%d and %d tensors", len(a.Tensors), len(b.Tensors))
	}
	for name, ta := range a.Tensors {
		tb := b.Tensors[name]
		for i := range ta.Data {
			if math.Float32bits(ta.Data[i]) != math.Float32bits(tb.Data[i]) {
				t.Errorf("%s[%d]: resumed %v, straight %v", name, i, ta.Data[i], tb.Data[i])
				break
			}
		}
	}
	la, _ := os.ReadFile(filepath.Join(half, "log.csv"))
	lb, _ := os.ReadFile(filepath.Join(straight, "log.csv"))
	if cut := func(s []byte) string { // drop the timing columns
		var b strings.Builder
		for _, l := range strings.Split(string(s), "\n") {
			f := strings.Split(l, ",")
			b.WriteString(strings.Join(f[:min(len(f), 10)], ",") + "\n")
		}
		return b.String()
	}; cut(la) != cut(lb) {
		t.Errorf("logs differ:\n%s\n%s", la, lb)
	}

	grid := filepath.Join(dir, "grid.png")
	out = mustRun(t, "sample", "--checkpoint", filepath.Join(half, "checkpoint.safetensors"), "--n", "20", "--out", grid)
	f, err := os.Open(grid)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 10 rows (classes) of 2 images, 28 pixels and 2-pixel gaps.
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 2*30+2 || h != 10*30+2 {
		t.Errorf("grid is %dx%d, want 62x302 (%s)", w, h, out)
	}

	hist := filepath.Join(dir, "hist")
	out = mustRun(t, "scale", "histogram", "--checkpoint", filepath.Join(half, "checkpoint.safetensors"), "--out", hist, "--n", "16")
	for _, want := range []string{"G/fc1", "D/fc4", "weight", "err", "posit(8,1"} {
		if !strings.Contains(out, want) {
			t.Errorf("histogram output lacks %q:\n%s", want, out)
		}
	}
	for _, role := range []string{"weight", "act", "out", "err"} {
		if !exists(filepath.Join(hist, role+".png")) {
			t.Errorf("no %s.png", role)
		}
	}
}

// A DCGAN run and two policies into subfolders.
func TestTrainDCGANTwoPolicies(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	out := mustRun(t, "train", "--model", "dcgan", "--dataset", data, "--policy", "fp32,fp8-ibm", "--steps", "2",
		"--batch", "4", "--features", "2", "--out", filepath.Join(dir, "o"))
	for _, p := range []string{"fp32", "fp8-ibm"} {
		if !exists(filepath.Join(dir, "o", p, "samples.png")) || !exists(filepath.Join(dir, "o", p, "checkpoint.safetensors")) {
			t.Errorf("%s: outputs missing", p)
		}
	}
	if !strings.Contains(out, "policy") || !strings.Contains(out, "fp8-ibm") {
		t.Errorf("no summary table:\n%s", out)
	}
}

// Bad input gives one line on stderr, a nonzero exit, and leaves nothing
// behind.
func TestTrainErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 20)
	raw, _ := os.ReadFile(data)
	trunc := filepath.Join(dir, "trunc")
	os.Mkdir(trunc, 0o755)
	os.WriteFile(filepath.Join(trunc, "train-images-idx3-ubyte"), raw[:len(raw)-100], 0o644)
	lbl, _ := os.ReadFile(filepath.Join(dir, "train-labels-idx1-ubyte"))
	os.WriteFile(filepath.Join(trunc, "train-labels-idx1-ubyte"), lbl, 0o644)
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)

	// A good checkpoint, then a corrupted copy.
	good := filepath.Join(dir, "good")
	mustRun(t, "train", "--dataset", data, "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--out", good)
	ck, _ := os.ReadFile(filepath.Join(good, "checkpoint.safetensors"))
	bad := filepath.Join(dir, "bad")
	os.Mkdir(bad, 0o755)
	ck[len(ck)-10] ^= 0x40
	os.WriteFile(filepath.Join(bad, "checkpoint.safetensors"), ck, 0o644)

	o := filepath.Join(dir, "o")
	for _, c := range []struct {
		args  []string
		code  int
		want  string
		check string // must not exist afterwards
	}{
		{[]string{"train", "--dataset", filepath.Join(trunc, "train-images-idx3-ubyte"), "--out", o}, 1, "trunc", o},
		{[]string{"train", "--dataset", data, "--policy", "posit9000", "--out", o}, 2, "posit9000", o},
		{[]string{"train", "--dataset", data, "--policy", "fp32,nosuch", "--out", o}, 2, "nosuch", o},
		{[]string{"train", "--dataset", data, "--policy", "fp32", "--features", "2", "--batch", "4", "--out", filepath.Join(file, "sub")}, 1, "afile", ""},
		{[]string{"train", "--dataset", filepath.Join(dir, "nothere"), "--out", o}, 1, "nothere", o},
		{[]string{"train", "--resume", "--policy", "fp32", "--out", bad}, 1, "not a valid checkpoint", filepath.Join(bad, "log.csv")},
		{[]string{"train", "--resume", "--policy", "fp32", "--out", o}, 1, "no checkpoint", o},
		{[]string{"sample", "--checkpoint", filepath.Join(bad, "checkpoint.safetensors"), "--out", filepath.Join(dir, "g.png")}, 1, "not a valid checkpoint", filepath.Join(dir, "g.png")},
		{[]string{"sample", "--out", filepath.Join(dir, "g.png")}, 2, "--checkpoint", filepath.Join(dir, "g.png")},
		{[]string{"scale", "histogram", "--checkpoint", filepath.Join(bad, "checkpoint.safetensors"), "--out", filepath.Join(dir, "h")}, 1, "not a valid checkpoint", filepath.Join(dir, "h")},
		{[]string{"train", "--model", "gan9", "--out", o}, 2, "gan9", o},
		{[]string{"train", "--steps", "0", "--out", o}, 2, "--steps", o},
	} {
		_, stderr, code := runCLI(t, "", c.args...)
		if code != c.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", c.args, code, c.code, stderr)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: stderr %q, want one line containing %q", c.args, stderr, c.want)
		}
		if c.check != "" && exists(c.check) {
			t.Errorf("%q: left %s behind", c.args, c.check)
		}
	}
	// Nothing but the checkpoint in the corrupted run's folder.
	if ents, _ := os.ReadDir(bad); len(ents) != 1 {
		t.Errorf("folder of the corrupted checkpoint has %d entries, want 1", len(ents))
	}
}

// DCGAN at 64x64 on a folder of the user's own (colour) images.
func TestTrainDCGANFolder(t *testing.T) {
	dir := t.TempDir()
	imgs := filepath.Join(dir, "imgs")
	os.Mkdir(imgs, 0o755)
	for i := 0; i < 6; i++ {
		im := image.NewRGBA(image.Rect(0, 0, 20, 20))
		for p := range im.Pix {
			im.Pix[p] = uint8(p * (i + 3))
		}
		var b bytes.Buffer
		png.Encode(&b, im)
		os.WriteFile(filepath.Join(imgs, fmt.Sprintf("%d.png", i)), b.Bytes(), 0o644)
	}
	o := filepath.Join(dir, "o")
	mustRun(t, "train", "--model", "dcgan", "--dataset", imgs, "--policy", "posit8+", "--steps", "1", "--batch", "2", "--features", "1", "--out", o)
	f, err := os.Open(filepath.Join(o, "samples.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 64 images of 64x64 in an 8x8 grid with 2-pixel gaps.
	if w := img.Bounds().Dx(); w != 8*66+2 {
		t.Errorf("grid width %d, want %d", w, 8*66+2)
	}
	// cgan needs labels: a flat folder has one class.
	_, stderr, code := runCLI(t, "", "train", "--dataset", imgs, "--out", filepath.Join(dir, "o2"))
	if code != 2 || !strings.Contains(stderr, "use --model dcgan") || exists(filepath.Join(dir, "o2")) {
		t.Errorf("cgan on an unlabelled folder: exit %d, %q", code, stderr)
	}
}

// A single format is a policy (posit(8,1): the list is not split inside
// the parentheses), and a policy file's glob that matches no layer is
// reported with the layers that exist.
func TestTrainPolicyFormatsAndGlobs(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	pol := filepath.Join(dir, "typo.toml")
	if err := os.WriteFile(pol, []byte("preset = \"fp32\"\n[[layer]]\nmatch = \"G/out*\"\nout = \"posit(16,1)\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "", "train", "--model", "dcgan", "--dataset", data, "--policy", "posit(8,1),"+pol,
		"--steps", "1", "--batch", "4", "--features", "2", "--out", filepath.Join(dir, "o"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !exists(filepath.Join(dir, "o", "posit(8,1)", "checkpoint.safetensors")) {
		t.Errorf("no run folder posit(8,1):\n%s", out)
	}
	if !strings.Contains(stderr, "G/out* matches no layer") || !strings.Contains(stderr, "G/deconv1") {
		t.Errorf("no warning about the glob:\n%s", stderr)
	}
}
