package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeIDXStripes writes a tiny two-class IDX data set (train and t10k) to
// dir: class 0 bright in the top half, class 1 in the bottom half.
func writeIDXStripes(t *testing.T, dir string, n int) {
	t.Helper()
	for _, split := range []string{"train", "t10k"} {
		img := binary.BigEndian.AppendUint32(nil, 0x803)
		for _, d := range []uint32{uint32(n), 28, 28} {
			img = binary.BigEndian.AppendUint32(img, d)
		}
		lab := binary.BigEndian.AppendUint32(nil, 0x801)
		lab = binary.BigEndian.AppendUint32(lab, uint32(n))
		for i := 0; i < n; i++ {
			c := i % 2
			for p := 0; p < 784; p++ {
				v := byte((i*31 + p*7) % 60)
				if (p < 392) == (c == 0) {
					v += 180
				}
				img = append(img, v)
			}
			lab = append(lab, byte(c))
		}
		for name, data := range map[string][]byte{split + "-images-idx3-ubyte": img, split + "-labels-idx1-ubyte": lab} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestLenetTrainCLI(t *testing.T) {
	dir := t.TempDir()
	writeIDXStripes(t, dir, 64)
	out := filepath.Join(dir, "net.safetensors")
	stdout, stderr, code := runCLI(t, "", "lenet", "train", "--dataset", dir, "--policy", "posit(16,2)",
		"--epochs", "2", "--batch", "16", "--seed", "3", "--out", out, "--name", "LeNet-Stripes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"policy posit(16,2)", "epoch 2/2: mean loss", "test accuracy", "wrote " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	stdout, stderr, code = runCLI(t, "", "lenet", "test", "--features", "lenet:"+out, "--dataset", dir)
	if code != 0 {
		t.Fatalf("lenet test: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "LeNet-Stripes on "+dir+" test: accuracy 100.00% (64 images)") {
		t.Errorf("lenet test output: %s", stdout)
	}
}

func TestLenetUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lenet", "train", "--policy", "nosuch"}, "--policy nosuch"},
		{[]string{"lenet", "train", "--epochs", "0"}, "must be positive"},
		{[]string{"lenet", "train", "--bias-every", "-1"}, "--bias-every -1: must not be negative"},
		{[]string{"lenet", "train", "extra"}, "unexpected arguments"},
		{[]string{"lenet", "test", "--features", "lenet-nosuch"}, `unknown feature network "lenet-nosuch"`},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and a one-line error with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// An unwritable --out fails before any training, and a trained network is
// not named like the shipped one.
func TestLenetTrainOutChecked(t *testing.T) {
	out, stderr, code := runCLI(t, "", "lenet", "train", "--out", "/proc/x/lenet.safetensors")
	if code == 0 || !strings.Contains(stderr, "--out /proc/x/lenet.safetensors") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(out, "epoch") || strings.Contains(out, "lenet:") {
		t.Errorf("trained before checking --out:\n%s", out)
	}
}

// Without --name, a trained LeNet is named after its file, not like the
// shipped LeNet-MNIST, so FIDs measured with it say which network it was.
func TestLenetTrainDefaultName(t *testing.T) {
	dir := t.TempDir()
	writeIDXStripes(t, dir, 32)
	out := filepath.Join(dir, "mine.safetensors")
	if _, stderr, code := runCLI(t, "", "lenet", "train", "--dataset", dir, "--epochs", "1", "--batch", "16", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "", "lenet", "test", "--features", "lenet:"+out, "--dataset", dir)
	if code != 0 {
		t.Fatalf("lenet test: exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "LeNet (mine.safetensors) on ") {
		t.Errorf("lenet test output: %s", stdout)
	}
}
