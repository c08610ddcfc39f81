package gan_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/sparsity"
)

// maxKept is the most weights an N:M mask keeps of m's weights: N of every
// full block, min(N, r) of a partial block of r.
func maxKept(m interface {
	Dims() (int, int, sparsity.Axis)
}, p sparsity.Pattern) int {
	rows, cols, axis := m.Dims()
	lines, length := rows, cols
	if axis == sparsity.AlongColumn {
		lines, length = cols, rows
	}
	return lines * (length/p.M*p.N + min(p.N, length%p.M))
}

// A run with a sparse policy logs, per step, the fraction of zeros in each
// masked layer's weights: with |w| scores and no zero master weights,
// 1 - maxKept/size (to the 15 digits logged); a dense run writes no sparsity log.
func TestSparsityLog(t *testing.T) {
	ds := toyData(t, 32, 8, 1)
	dir := t.TempDir()
	tr := newTrainer(t, tinyCGAN(), ds, gan.Options{Policy: mustPolicy(t, "posit8+@2:4"), Batch: 8, Seed: 5})
	if _, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 3}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, gan.SparsityLog))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	ms := tr.Nets().Masks()
	if len(ms) == 0 || len(lines) != 4 {
		t.Fatalf("%d masks, sparsity log:\n%s", len(ms), data)
	}
	header := strings.Split(lines[0], ",")
	for i, m := range ms {
		if header[i+1] != m.Layer() {
			t.Errorf("column %d is %q, want %q", i+1, header[i+1], m.Layer())
		}
		rows, cols, _ := m.Dims()
		want := 1 - float64(maxKept(m, sparsity.Pattern{N: 2, M: 4}))/float64(rows*cols)
		for _, l := range lines[1:] {
			got, err := strconv.ParseFloat(strings.Split(l, ",")[i+1], 64)
			if err != nil || math.Abs(got-want) > 1e-14 { // logged to 15 digits
				t.Errorf("%s: logged sparsity %q, want %v", m.Layer(), strings.Split(l, ",")[i+1], want)
			}
		}
	}

	dense := t.TempDir()
	tr = newTrainer(t, tinyCGAN(), ds, gan.Options{Policy: mustPolicy(t, "posit8+"), Batch: 8, Seed: 5})
	if _, err := tr.Run(context.Background(), gan.RunOptions{Dir: dense, Steps: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dense, gan.SparsityLog)); err == nil {
		t.Error("a dense run wrote a sparsity log")
	}
}

// A frozen mask is saved in the checkpoint, as 0/1 of the weight's shape
// that conforms to the pattern; a checkpoint whose mask is not one is
// refused on resume.
func TestFrozenMaskCheckpoint(t *testing.T) {
	ds := toyData(t, 32, 8, 1)
	tr := newTrainer(t, tinyCGAN(), ds, gan.Options{Policy: policyWith(t, "fp32@2:4 fixed_after=1"), Batch: 8, Seed: 5})
	for range 2 {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, ten := range c.Tensors {
		w, ok := strings.CutPrefix(name, gan.MaskTensor)
		if !ok {
			continue
		}
		n++
		wt := c.Tensors[w]
		rows := ten.Shape[0]
		axis := sparsity.AlongRow
		if !sparsity.Conforms(ten.Data, rows, len(ten.Data)/rows, sparsity.Pattern{N: 2, M: 4}, axis) || len(wt.Data) != len(ten.Data) {
			t.Errorf("%s: mask does not conform to 2:4 or fit %s", name, w)
		}
	}
	if n != len(tr.Nets().Masks()) || n == 0 {
		t.Fatalf("%d masks in the checkpoint, the networks have %d", n, len(tr.Nets().Masks()))
	}
	if _, err := models.Resume(c, ds); err != nil {
		t.Fatalf("Resume of a good checkpoint: %v", err)
	}
	key := gan.MaskTensor + "G/fc2.w" // rows of 8 or more: all kept breaks 2:4
	good, ok := c.Tensors[key]
	if !ok {
		t.Fatalf("no %s in the checkpoint", key)
	}
	for what, bad := range map[string]ckpt.Tensor{
		"value 2":       {Shape: good.Shape, Data: with(good.Data, 0, 2)},
		"all kept":      {Shape: good.Shape, Data: ones(len(good.Data))},
		"another shape": {Shape: []int{len(good.Data)}, Data: good.Data},
	} {
		c.Tensors[key] = bad
		if _, err := models.Resume(c, ds); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: Resume error %v, want one naming %s", what, err, key)
		}
	}
}

func with(s []float32, i int, v float32) []float32 {
	c := clone(s)
	c[i] = v
	return c
}

func ones(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = 1
	}
	return s
}
