package featnet

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
)

// TestReadPth reads a small state_dict saved by torch.save in both of its
// formats (testdata/make_pth.py, PyTorch 1.13): float32, a transposed
// (strided) view, float16 and float64 tensors come out contiguous in
// float32, the integer num_batches_tracked is left out, and under
// readInceptionTensors the wrapper's blocks.N.M names are renamed and
// fc.* skipped.
func TestReadPth(t *testing.T) {
	want := map[string]ckpt.Tensor{
		"a.weight":                         {Shape: []int{2, 3}, Data: []float32{0, 0.25, 0.5, 0.75, 1, 1.25}},
		"blocks.2.0.branch1x1.conv.weight": {Shape: []int{3, 2}, Data: []float32{1, 4, 2, 5, 3, 6}},
		"c.half":                           {Shape: []int{3}, Data: []float32{0.5, -1.25, 3}},
		"d.double":                         {Shape: []int{1, 1}, Data: []float32{float32(1.0 / 3)}},
		"fc.weight":                        {Shape: []int{2, 2}, Data: []float32{1, 1, 1, 1}},
	}
	for _, file := range []string{"testdata/small_zip.pth", "testdata/small_legacy.pth"} {
		ts, err := readPth(file, nil)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !reflect.DeepEqual(ts, want) {
			t.Errorf("%s: read %v, want %v", file, ts, want)
		}
		ts, err = readInceptionTensors(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if _, ok := ts["Mixed_5b.branch1x1.conv.weight"]; !ok || len(ts) != 4 {
			t.Errorf("%s: readInceptionTensors gave %v", file, sortedKeys(ts))
		}
	}
}

// TestReadPthErrors wants files that are not state_dicts refused with an
// error naming the file, never a panic.
func TestReadPthErrors(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile("testdata/small_zip.pth")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"empty.pth":     nil,
		"text.pth":      []byte("not a pickle at all\n"),
		"truncated.pth": good[:len(good)/2],
		"garbled.pth":   append(append([]byte{}, good[:600]...), make([]byte, 600)...),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadInception(p); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}

// TestInceptionName maps pytorch-fid's InceptionV3 wrapper names
// (blocks.N.M) to fid_inception_v3's.
func TestInceptionName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"blocks.0.0.conv.weight", "Conv2d_1a_3x3.conv.weight"},
		{"blocks.0.2.bn.running_var", "Conv2d_2b_3x3.bn.running_var"},
		{"blocks.1.1.conv.weight", "Conv2d_4a_3x3.conv.weight"},
		{"blocks.2.0.branch1x1.conv.weight", "Mixed_5b.branch1x1.conv.weight"},
		{"blocks.2.7.branch_pool.bn.bias", "Mixed_6e.branch_pool.bn.bias"},
		{"blocks.3.2.branch3x3_2a.conv.weight", "Mixed_7c.branch3x3_2a.conv.weight"},
		{"Mixed_5b.branch1x1.conv.weight", "Mixed_5b.branch1x1.conv.weight"},
		{"blocks.3.3.x", "blocks.3.3.x"}, // the average pool: no such layer
		{"blocks.9.0.conv.weight", "blocks.9.0.conv.weight"},
		{"blocks.x.0.conv.weight", "blocks.x.0.conv.weight"},
		{"blocks.0", "blocks.0"},
	} {
		if got := inceptionName(tc.in); got != tc.want {
			t.Errorf("inceptionName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Every layer is reachable from some blocks name.
	seen := map[string]bool{}
	for _, b := range inceptionBlocks {
		for _, m := range b {
			seen[m] = true
		}
	}
	for _, l := range inceptionLayers() {
		if top, _, _ := strings.Cut(l.name, "."); !seen[top] {
			t.Errorf("layer %s has no blocks.N.M name", l.name)
		}
	}
}
