package main

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// readNPY reads a float32 .npy file written by --npy.
func readNPY(t *testing.T, path string) ([]float32, []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := npy.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if r.Header.Descr.Type != "<f4" || r.Header.Descr.Fortran {
		t.Errorf("%s: dtype %s, Fortran order %v; want <f4 in C order", path, r.Header.Descr.Type, r.Header.Descr.Fortran)
	}
	var v []float32
	if err := r.Read(&v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v, r.Header.Descr.Shape
}

// sample --noise draws one image from each row of the file, and --npy
// writes exactly what the generator makes of those rows in Go, for an
// unconditional and a conditional model (--class, or one row per
// class); bad noise files are one-line usage errors.
func TestSampleNoiseNPY(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	for _, model := range []string{"dcgan", "cgan"} {
		run := filepath.Join(dir, model)
		mustRun(t, "train", "--model", model, "--dataset", data, "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--out", run)
		ck := filepath.Join(run, "checkpoint.safetensors")
		c, err := ckpt.Load(ck)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := models.Load(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		spec := m.Model.(gan.Generator).Generator()
		nz := spec.ZSize()

		rows := 3
		var class []string
		labels := []int(nil)
		if spec.Classes > 0 {
			rows, class = 2*spec.Classes, []string{"--class", "-1"}
			for i := range rows {
				labels = append(labels, i/2)
			}
		}
		z := make([]float32, rows*nz)
		for i := range z {
			z[i] = float32(math.Sin(float64(i))) * 1.5
		}
		noise := filepath.Join(dir, model+"-z.npy")
		if err := experiment.WriteNPY(noise, z, []int{rows, nz}); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, model+"-out.npy")
		args := append([]string{"sample", "--checkpoint", ck, "--noise", noise, "--npy", out, "--out", filepath.Join(dir, "g.png")}, class...)
		stdout := mustRun(t, args...)
		sh := spec.Image
		if !strings.Contains(stdout, out+": float32 ("+itoa(rows)+", "+itoa(sh.C)+", "+itoa(sh.H)+", "+itoa(sh.W)+")") {
			t.Errorf("%s: output %q", model, stdout)
		}
		got, shape := readNPY(t, out)
		if !slices.Equal(shape, []int{rows, sh.C, sh.H, sh.W}) {
			t.Errorf("%s: shape %v", model, shape)
		}
		sm, err := gan.NewSampler(m, rows, gan.SampleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, rows*sh.Size())
		if err := sm.Generate(want, z, labels); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: --npy differs from the generator run on the noise in Go", model)
		}

		if spec.Classes > 0 {
			// --class k: every row of class k.
			mustRun(t, "sample", "--checkpoint", ck, "--noise", noise, "--npy", out, "--class", "7", "--out", filepath.Join(dir, "g.png"))
			got, _ = readNPY(t, out)
			for i := range labels {
				labels[i] = 7
			}
			if err := sm.Generate(want, z, labels); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s --class 7: --npy differs from the generator run on the noise in Go", model)
			}
		}

		if py, err := exec.LookPath("/usr/bin/python3"); err == nil && exec.Command(py, "-c", "import numpy").Run() == nil {
			b, err := exec.Command(py, "-c", "import numpy, sys; a = numpy.load(sys.argv[1]); print(a.dtype, a.shape)", out).CombinedOutput()
			if want := fmt.Sprintf("float32 (%d, %d, %d, %d)", rows, sh.C, sh.H, sh.W); err != nil || strings.TrimSpace(string(b)) != want {
				t.Errorf("numpy reads %q, %v", b, err)
			}
		}

		bad := func(name, dict string, data []byte) string {
			var b bytes.Buffer
			b.WriteString("\x93NUMPY\x01\x00")
			b.Write([]byte{byte(len(dict) + 1), 0})
			b.WriteString(dict + "\n")
			b.Write(data)
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--noise", bad("f8.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1, "+itoa(nz)+"), }", make([]byte, 8*nz))}, "dtype <f8"},
			{[]string{"--noise", bad("nz.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, "+itoa(nz+1)+"), }", make([]byte, 4*nz+4))}, "shape [1 " + itoa(nz+1) + "]"},
			{[]string{"--noise", bad("rows.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (10001, "+itoa(nz)+"), }", make([]byte, 4))}, "10001 rows"},
			{[]string{"--noise", noise, "--n", "4"}, "--n: --noise gives the latent vectors"},
			{[]string{"--noise", noise, "--seed", "4"}, "--seed: --noise gives the latent vectors"},
			{[]string{"--noise", filepath.Join(dir, "z.txt")}, "want a .npy file name"},
			{[]string{"--npy", filepath.Join(dir, "out.png")}, "want a .npy file name"},
		} {
			args := append([]string{"sample", "--checkpoint", ck, "--out", filepath.Join(dir, "g.png")}, tc.args...)
			_, stderr, code := runCLI(t, "", args...)
			if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s %v: exit %d, %q; want exit 2 with %q", model, tc.args, code, stderr, tc.want)
			}
		}
		if spec.Classes > 0 {
			odd := filepath.Join(dir, "odd.npy")
			if err := experiment.WriteNPY(odd, z[:3*nz], []int{3, nz}); err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := runCLI(t, "", "sample", "--checkpoint", ck, "--noise", odd, "--out", filepath.Join(dir, "g.png")); code != 2 || !strings.Contains(stderr, "multiple of 10") {
				t.Errorf("3 rows, one row per class: exit %d, %q", code, stderr)
			}
		}
	}
}

// generate --npy of an exported model writes the float32 images sample
// --policy --npy writes from its checkpoint, bit for bit.
func TestGenerateNPYMatchesSample(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	run := filepath.Join(dir, "dcgan")
	mustRun(t, "train", "--model", "dcgan", "--dataset", data, "--policy", "fp32", "--steps", "2", "--batch", "4", "--features", "2", "--out", run)
	ck := filepath.Join(run, "checkpoint.safetensors")
	gen := filepath.Join(dir, "g.pgmodel")
	mustRun(t, "export", "--checkpoint", ck, "--policy", "posit6-deploy", "--out", gen)
	a, b := filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	out := mustRun(t, "generate", "--model", gen, "--n", "5", "--seed", "3", "--out", filepath.Join(dir, "a.png"), "--npy", a)
	if !strings.Contains(out, "wrote "+a+": float32 (5, 1, 28, 28)") {
		t.Errorf("generate output %q", out)
	}
	mustRun(t, "sample", "--checkpoint", ck, "--policy", "posit6-deploy", "--n", "5", "--seed", "3", "--out", filepath.Join(dir, "b.png"), "--npy", b)
	pa, _ := os.ReadFile(a)
	pb, _ := os.ReadFile(b)
	if len(pa) == 0 || !bytes.Equal(pa, pb) {
		t.Error("generate --npy and sample --policy --npy differ")
	}
	if _, _, code := runCLI(t, "", "generate", "--model", gen, "--npy", filepath.Join(dir, "x.npz")); code != 2 {
		t.Errorf("generate --npy x.npz: exit %d, want 2", code)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// translate --npy and upscale --npy write the float32 outputs (N, C, H,
// W) whose 8-bit rounding is the images they write.
func TestTranslateUpscaleNPY(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeUnpaired(t, data)
	run := filepath.Join(dir, "cyclegan")
	mustRun(t, "train", "--model", "cyclegan", "--dataset", data, "--image-size", "16", "--features", "4",
		"--policy", "fp32", "--batch", "2", "--steps", "1", "--sample-every", "0", "--out", run)
	ck := filepath.Join(run, "checkpoint.safetensors")
	out, npyFile := filepath.Join(dir, "fakeB"), filepath.Join(dir, "fakeB.npy")
	stdout := mustRun(t, "translate", "--checkpoint", ck, "--in", filepath.Join(data, "testA"), "--out", out, "--npy", npyFile)
	if !strings.Contains(stdout, "wrote "+npyFile+": float32 (6, 3, 16, 16)") {
		t.Errorf("translate output %q", stdout)
	}
	got, shape := readNPY(t, npyFile)
	if !slices.Equal(shape, []int{6, 3, 16, 16}) {
		t.Fatalf("translate --npy shape %v", shape)
	}
	img, err := datasets.OpenImage(filepath.Join(out, "img2.png"))
	if err != nil {
		t.Fatal(err)
	}
	sz := 3 * 16 * 16
	want := experiment.ImageOf(got[2*sz:3*sz], datasets.Shape{C: 3, H: 16, W: 16})
	if !imagesEqual(img, want) {
		t.Error("translate: img2.png is not the 8-bit rounding of its --npy image")
	}
	if _, _, code := runCLI(t, "", "translate", "--checkpoint", ck, "--fid", "--npy", npyFile); code != 2 {
		t.Errorf("translate --fid --npy: exit %d, want 2", code)
	}

	photos := writePhotos(t, 24, 20)
	esr := filepath.Join(dir, "esrgan")
	mustRun(t, "train", "--model", "esrgan", "--dataset", photos, "--image-size", "16", "--features", "4",
		"--batch", "2", "--steps", "1", "--policy", "fp32", "--out", esr, "--sample-every", "0",
		"--option", "scale=2", "--option", "blocks=1", "--option", "gc=2", "--option", "pretrain=1")
	ck = filepath.Join(esr, "checkpoint.safetensors")
	for _, lr := range []bool{false, true} {
		args := []string{"upscale", "--checkpoint", ck, "--in", photos, "--out", filepath.Join(dir, "sr"), "--npy", npyFile}
		h, w := 20, 24 // the ground truth's size
		if lr {
			args, h, w = append(args, "--lr"), 40, 48
		}
		stdout := mustRun(t, args...)
		if !strings.Contains(stdout, fmt.Sprintf("wrote %s: float32 (2, 3, %d, %d)", npyFile, h, w)) {
			t.Errorf("upscale --lr=%v output %q", lr, stdout)
		}
		if _, shape := readNPY(t, npyFile); !slices.Equal(shape, []int{2, 3, h, w}) {
			t.Errorf("upscale --lr=%v --npy shape %v", lr, shape)
		}
	}
	// Images of two sizes make no (N, C, H, W) array.
	if err := os.Rename(filepath.Join(data, "testA", "img0.png"), filepath.Join(photos, "pc.png")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "upscale", "--checkpoint", ck, "--in", photos, "--lr", "--out", filepath.Join(dir, "sr"), "--npy", filepath.Join(dir, "mixed.npy"))
	if code != 2 || !strings.Contains(stderr, "images of one size") || exists(filepath.Join(dir, "mixed.npy")) {
		t.Errorf("upscale --npy of two sizes: exit %d, %q", code, stderr)
	}
}

// imagesEqual reports whether a and b have the same bounds and 8-bit
// RGBA pixels.
func imagesEqual(a, b image.Image) bool {
	if a.Bounds().Size() != b.Bounds().Size() {
		return false
	}
	ab, bb := a.Bounds(), b.Bounds()
	for y := range ab.Dy() {
		for x := range ab.Dx() {
			r1, g1, b1, a1 := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 || a1>>8 != a2>>8 {
				return false
			}
		}
	}
	return true
}
