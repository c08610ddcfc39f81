package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// export then generate draws the grid sample draws from the checkpoint
// under the same policy, for CGAN and DCGAN, fp32 and quire accumulation.
func TestExportGenerate(t *testing.T) {
	dir := t.TempDir()
	data := writeIDX(t, dir, 16)
	for _, model := range []string{"cgan", "dcgan"} {
		run := filepath.Join(dir, model)
		mustRun(t, "train", "--model", model, "--dataset", data, "--policy", "fp32", "--steps", "2", "--batch", "4", "--features", "2", "--out", run)
		c := filepath.Join(run, "checkpoint.safetensors")
		for _, pol := range []string{"posit6-deploy", "posit6-deploy-quire"} {
			gen := filepath.Join(dir, model+"-"+pol+".pgmodel")
			out := mustRun(t, "export", "--checkpoint", c, "--policy", pol, "--out", gen)
			if !strings.Contains(out, "of its tensors as float32") {
				t.Errorf("export output: %s", out)
			}
			for _, args := range [][]string{{"--n", "12"}, {"--n", "5", "--seed", "9"}} {
				a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
				mustRun(t, append([]string{"generate", "--model", gen, "--out", a}, args...)...)
				mustRun(t, append([]string{"sample", "--checkpoint", c, "--policy", pol, "--out", b}, args...)...)
				pa, _ := os.ReadFile(a)
				pb, _ := os.ReadFile(b)
				if len(pa) == 0 || !bytes.Equal(pa, pb) {
					t.Errorf("%s %s %v: generate and sample grids differ", model, pol, args)
				}
			}
		}
	}
	gen := filepath.Join(dir, "cgan-posit6-deploy.pgmodel")
	a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	mustRun(t, "generate", "--model", gen, "--out", a, "--n", "4", "--class", "3")
	mustRun(t, "sample", "--checkpoint", filepath.Join(dir, "cgan", "checkpoint.safetensors"), "--policy", "posit6-deploy", "--out", b, "--n", "4", "--class", "3")
	pa, _ := os.ReadFile(a)
	pb, _ := os.ReadFile(b)
	if !bytes.Equal(pa, pb) {
		t.Errorf("--class 3: generate and sample grids differ")
	}

	hex := filepath.Join(dir, "hex")
	mustRun(t, "export", "--checkpoint", filepath.Join(dir, "cgan", "checkpoint.safetensors"), "--policy", "posit6-deploy",
		"--out", filepath.Join(dir, "h.pgmodel"), "--hex", hex, "--class", "2")
	for _, f := range []string{"manifest.json", "tensors/G_fc1.w.hex", "golden/G_fc1.in.hex", "golden/G_fc5.out.hex", "golden/output.hex", "golden/input.z.hex"} {
		if !exists(filepath.Join(hex, f)) {
			t.Errorf("--hex: no %s", f)
		}
	}
}

func TestExportGenerateErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pgmodel")
	os.WriteFile(bad, []byte("PGMODEL\x00 but far too short"), 0o644)
	// A real file with one bit flipped, and relabelled version 2.
	run := filepath.Join(dir, "run")
	mustRun(t, "train", "--model", "dcgan", "--dataset", writeIDX(t, dir, 16), "--policy", "fp32", "--steps", "1", "--batch", "4", "--features", "2", "--out", run)
	good := filepath.Join(dir, "good.pgmodel")
	mustRun(t, "export", "--checkpoint", filepath.Join(run, "checkpoint.safetensors"), "--policy", "posit6-deploy", "--out", good)
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped, v2 := filepath.Join(dir, "flipped.pgmodel"), filepath.Join(dir, "v2.pgmodel")
	f := bytes.Clone(b)
	f[len(f)/2] ^= 0x10
	os.WriteFile(flipped, f, 0o644)
	v := bytes.Clone(b)
	binary.LittleEndian.PutUint32(v[8:], 3)
	binary.LittleEndian.PutUint32(v[len(v)-4:], crc32.ChecksumIEEE(v[:len(v)-4]))
	os.WriteFile(v2, v, 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "--out", "x.pgmodel"}, 2, "missing --checkpoint"},
		{[]string{"export", "--checkpoint", "c"}, 2, "missing --out"},
		{[]string{"export", "--checkpoint", "c", "--out", "g.pgm"}, 2, ".pgm is an image format"},
		{[]string{"export", "--checkpoint", "c", "--out", "g.pgmodel", "--policy", "nosuch"}, 2, "--policy nosuch"},
		{[]string{"export", "--checkpoint", filepath.Join(dir, "none"), "--out", "g.pgmodel"}, 1, "no such file"},
		{[]string{"generate"}, 2, "missing --model"},
		{[]string{"generate", "--model", bad, "--n", "0"}, 2, "--n 0"},
		{[]string{"generate", "--model", bad, "--out", "x.jpg"}, 2, "want a .png"},
		{[]string{"generate", "--model", bad, "--out", filepath.Join(dir, "x.png")}, 1, "truncated"},
		{[]string{"generate", "--model", bad, "--out", filepath.Join(dir, "x.png")}, 1, "bad.pgmodel: deploy: not a valid pgmodel file"},
		{[]string{"generate", "--model", flipped, "--out", filepath.Join(dir, "x.png")}, 1, "checksum mismatch"},
		{[]string{"generate", "--model", v2, "--out", filepath.Join(dir, "x.png")}, 1, "pgmodel version 3; this build reads versions 1 to 2"},
		{[]string{"generate", "--model", filepath.Join(dir, "none"), "--out", filepath.Join(dir, "x.png")}, 1, "no such file"},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != tc.code || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	if exists(filepath.Join(dir, "x.png")) {
		t.Errorf("a failed generate left a grid behind")
	}
}
