package gan_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
)

// Checkpoints from elsewhere that no run could have written are refused
// with an error naming what is wrong (issue 29 item 7): a weight stored
// transposed (right count, wrong shape), a network of NaNs or infinities,
// a step counter that is negative or near overflow.
func TestHostileCheckpoints(t *testing.T) {
	cfg := tinyDCGAN()
	data := []datasets.Dataset{toyData(t, 16, 8, 1)}
	tr := newTrainer(t, cfg, data[0], gan.Options{Batch: 4, Seed: 1})
	good, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	// A weight whose first two dimensions differ.
	var weight string
	for name, tn := range good.Tensors {
		if len(tn.Shape) >= 2 && tn.Shape[0] != tn.Shape[1] && !strings.Contains(name, "adam") && !strings.Contains(name, "state") {
			weight = name
			break
		}
	}
	if weight == "" {
		t.Fatal("no 2-D weight in the checkpoint")
	}
	clone := func() *ckpt.Checkpoint {
		c := &ckpt.Checkpoint{Meta: map[string]string{}, Tensors: map[string]ckpt.Tensor{}}
		for k, v := range good.Meta {
			c.Meta[k] = v
		}
		for k, v := range good.Tensors {
			c.Tensors[k] = ckpt.Tensor{Shape: append([]int(nil), v.Shape...), Data: append([]float32(nil), v.Data...)}
		}
		return c
	}
	state := func(c *ckpt.Checkpoint, key string, v any) {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.Meta[gan.MetaState]), &m); err != nil {
			t.Fatal(err)
		}
		m[key] = v
		b, _ := json.Marshal(m)
		c.Meta[gan.MetaState] = string(b)
	}
	for _, tc := range []struct {
		name string
		edit func(c *ckpt.Checkpoint)
		want string
	}{
		{"transposed", func(c *ckpt.Checkpoint) {
			tn := c.Tensors[weight]
			tn.Shape = append([]int{tn.Shape[1], tn.Shape[0]}, tn.Shape[2:]...)
			c.Tensors[weight] = tn
		}, "has shape"},
		{"NaN", func(c *ckpt.Checkpoint) { c.Tensors[weight].Data[0] = float32(math.NaN()) }, "holds NaN"},
		{"Inf", func(c *ckpt.Checkpoint) { c.Tensors[weight].Data[1] = float32(math.Inf(-1)) }, "holds -Inf"},
		{"negative step", func(c *ckpt.Checkpoint) { state(c, "step", -5) }, "step -5"},
		{"huge Adam step", func(c *ckpt.Checkpoint) { state(c, "adam_t", map[string]int{"D": 1 << 62, "G": 1}) }, "Adam step"},
		{"zero batch", func(c *ckpt.Checkpoint) { state(c, "batch", 0) }, "batch 0"},
	} {
		c := clone()
		tc.edit(c)
		_, err := gan.Resume(c, tr.Model(), data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Resume = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := gan.Resume(clone(), tr.Model(), data); err != nil {
		t.Errorf("the untouched checkpoint: %v", err)
	}
}
