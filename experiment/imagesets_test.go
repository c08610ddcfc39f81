package experiment_test

import (
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
)

// SetFeatures and SetStats read a checkpoint as the images its generator
// makes, and a statistics file as it is.
func TestSetStats(t *testing.T) {
	dir := t.TempDir()
	ckptPath := filepath.Join(dir, "g.safetensors")
	if err := ckpt.Save(ckptPath, trainedCGAN(t)); err != nil {
		t.Fatal(err)
	}
	ext, err := featnet.Load("lenet-mnist")
	if err != nil {
		t.Fatal(err)
	}
	o := experiment.SetOptions{}
	o.Set.N, o.Set.Seed = 30, 1
	f, _, err := experiment.SetFeatures(ckptPath, ext, o)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := f.Dims(); r != 30 {
		t.Errorf("SetFeatures of a checkpoint: %d rows, want 30", r)
	}
	st, _, err := experiment.SetStats(ckptPath, ext, o)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eval.StatsOf(f)
	if err != nil {
		t.Fatal(err)
	}
	if st.Features != ext.Name() || len(st.Mu) != len(want.Mu) || st.Mu[0] != want.Mu[0] {
		t.Errorf("SetStats of a checkpoint: features %q, mu[0] %v; want %q and %v", st.Features, st.Mu[0], ext.Name(), want.Mu[0])
	}
	npz := filepath.Join(dir, "s.npz")
	if err := eval.WriteStats(npz, st); err != nil {
		t.Fatal(err)
	}
	back, _, err := experiment.SetStats(npz, nil, experiment.SetOptions{})
	if err != nil || len(back.Mu) != len(st.Mu) || back.Mu[3] != st.Mu[3] {
		t.Errorf("SetStats of a statistics file: %v", err)
	}
	if !experiment.IsStatsFile("A.NPZ") || !experiment.IsCheckpoint("c.SafeTensors") || experiment.IsCheckpoint("x.npz") {
		t.Error("IsStatsFile, IsCheckpoint: wrong by extension")
	}
}
