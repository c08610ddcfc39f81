package gan_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// A checkpoint in the layout written before parameter groups (two Adams
// and two loss scalers by name, one loader, no batch-norm running
// statistics) still resumes bit for bit and still samples, with batch
// statistics.
func TestLegacyCheckpoint(t *testing.T) {
	ds := toyData(t, 40, 8, 1)
	opt := gan.Options{Policy: mustPolicy(t, "posit8+"), Batch: 16, Seed: 9}
	straight := newTrainer(t, tinyCGAN(), ds, opt)
	var want []gan.StepStats
	for i := 0; i < 5; i++ {
		st, err := straight.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, st)
	}

	tr := newTrainer(t, tinyCGAN(), ds, opt)
	for i := 0; i < 3; i++ {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	// Rewrite the state as the old layout had it.
	var st map[string]any
	dec := json.NewDecoder(strings.NewReader(c.Meta[gan.MetaState]))
	dec.UseNumber() // seeds are 64-bit
	if err := dec.Decode(&st); err != nil {
		t.Fatal(err)
	}
	adamT := st["adam_t"].(map[string]any)
	scalers := st["loss_scalers"].(map[string]any)
	st["adam_t_d"], st["adam_t_g"] = adamT["D"], adamT["G"]
	st["loss_scaler_d"], st["loss_scaler_g"] = scalers["D"], scalers["G"]
	st["loader"] = st["loaders"].([]any)[0]
	delete(st, "adam_t")
	delete(st, "loss_scalers")
	delete(st, "loaders")
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	c.Meta[gan.MetaState] = string(js)
	for name := range c.Tensors {
		if strings.Contains(name, ".running_") {
			delete(c.Tensors, name)
		}
	}

	resumed, err := models.Resume(c, ds)
	if err != nil {
		t.Fatal(err)
	}
	for i := 3; i < 5; i++ {
		got, err := resumed.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("step %d: resumed %+v, straight %+v", i+1, got, want[i])
		}
	}
	nets, _, err := models.Load(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !nets.BatchStats {
		t.Error("networks without running statistics do not report BatchStats")
	}
	if _, err := gan.GenerateSet(nets, 4, 1, 0, gan.SampleOptions{}); err != nil {
		t.Fatal(err)
	}
}
