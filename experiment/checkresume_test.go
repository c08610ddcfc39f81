package experiment_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// untrained returns the checkpoint of a CGAN trainer on toy data before
// its first step, with seed 3, batch 8, lr 1e-3, policy posit8 and data
// set "toy", its configuration, policy and data.
func untrained(t *testing.T) (*ckpt.Checkpoint, models.Config, *policy.Policy, *datasets.Set) {
	t.Helper()
	data := writeIDXSplits(t, filepath.Join(t.TempDir(), "data"), 16)
	ds, err := datasets.Load(data, datasets.Options{Split: datasets.Train})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Parse("posit8")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := models.DefaultConfig(models.CGAN, ds.Shape(), ds.NumClasses())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Features = 4
	cfg = cfg.WithPolicy(pol)
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{ds}, gan.Options{Policy: pol, Batch: 8, Seed: 3, LR: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if c.Meta == nil {
		c.Meta = map[string]string{}
	}
	c.Meta[gan.MetaDataset] = "toy"
	return c, cfg, pol, ds
}

func TestCheckResume(t *testing.T) {
	c, cfg, pol, _ := untrained(t)
	fp32, err := policy.Parse("fp32")
	if err != nil {
		t.Fatal(err)
	}
	all := []experiment.Setting{experiment.SettingModel, experiment.SettingConfig, experiment.SettingOption,
		experiment.SettingSeed, experiment.SettingBatch, experiment.SettingLR, experiment.SettingDataset,
		experiment.SettingPolicy, experiment.SettingStep}
	same := experiment.Resume{Compare: all, Config: cfg, Seed: 3, Batch: 8, LR: 1e-3, Dataset: "toy", Policy: pol}
	res, err := experiment.CheckResume(c, same)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Mismatches) != 0 || res.Dataset != "toy" || res.Config.String() != cfg.String() ||
		res.State.Options.Batch != 8 || res.State.Step != 0 {
		t.Errorf("the same run: %+v", res)
	}

	other := cfg
	other.Arch, other.Features = models.DCGAN, 8
	diff := experiment.Resume{Compare: []experiment.Setting{experiment.SettingBatch, experiment.SettingSeed,
		experiment.SettingModel, experiment.SettingConfig, experiment.SettingOption, experiment.SettingLR,
		experiment.SettingDataset, experiment.SettingPolicy, experiment.SettingStep},
		Config: other, Options: map[string]string{"b": "2", "a": "1"}, Seed: 4, Batch: 16, LR: 2e-4,
		Dataset: "mnist", Policy: fp32, Steps: -1}
	res, err = experiment.CheckResume(c, diff)
	if err != nil {
		t.Fatal(err)
	}
	want := []experiment.Mismatch{ // in Compare's order, options sorted
		{Setting: experiment.SettingBatch, Saved: "8", Want: "16"},
		{Setting: experiment.SettingSeed, Saved: "3", Want: "4"},
		{Setting: experiment.SettingModel, Saved: models.CGAN, Want: models.DCGAN},
		{Setting: experiment.SettingConfig, Saved: cfg.String(), Want: other.String()},
		{Setting: experiment.SettingOption, Option: "a", Want: "1"},
		{Setting: experiment.SettingOption, Option: "b", Want: "2"},
		{Setting: experiment.SettingLR, Saved: "0.001", Want: "0.0002"},
		{Setting: experiment.SettingDataset, Saved: "toy", Want: "mnist"},
		{Setting: experiment.SettingPolicy, Saved: "posit8", Want: "fp32"},
		{Setting: experiment.SettingStep, Saved: "0", Want: "-1"},
	}
	if !reflect.DeepEqual(res.Mismatches, want) {
		t.Errorf("mismatches\n%+v\nwant\n%+v", res.Mismatches, want)
	}

	// Settings not named are not compared; a checkpoint without a data
	// set matches any.
	delete(c.Meta, gan.MetaDataset)
	diff.Compare = []experiment.Setting{experiment.SettingDataset}
	if res, err = experiment.CheckResume(c, diff); err != nil || len(res.Mismatches) != 0 {
		t.Errorf("only the unrecorded data set compared: %+v, %v", res.Mismatches, err)
	}

	if _, err := experiment.CheckResume(&ckpt.Checkpoint{Meta: map[string]string{}}, same); err == nil {
		t.Error("a checkpoint without training state: no error")
	}
}

// NewTrainer resumes a checkpoint's run in its own settings, or starts
// the configured model in the options' policy.
func TestNewTrainer(t *testing.T) {
	c, cfg, pol, ds := untrained(t)
	data := []datasets.Dataset{ds}
	fp32, err := policy.Parse("fp32")
	if err != nil {
		t.Fatal(err)
	}
	// The options are the checkpoint's when resuming, whatever o says.
	tr, err := experiment.NewTrainer(c, models.Config{}, data, gan.Options{Policy: fp32, Batch: 4, Seed: 9, LR: 1})
	if err != nil {
		t.Fatal(err)
	}
	if o := tr.Options(); o.Seed != 3 || o.Batch != 8 || o.LR != 1e-3 || o.Policy.String() != pol.String() {
		t.Errorf("resumed with %+v, want the checkpoint's settings", o)
	}
	tr, err = experiment.NewTrainer(nil, cfg, data, gan.Options{Policy: fp32, Batch: 4, Seed: 9, LR: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if o := tr.Options(); o.Seed != 9 || o.Batch != 4 || tr.Step() != 0 || tr.Model().Config() != cfg.WithPolicy(fp32).String() {
		t.Errorf("started with %+v, model %s", o, tr.Model().Config())
	}
}

// ResumeRuns resumes the run with a checkpoint and takes its settings;
// a given setting that differs is a *ResumeMismatchError, and folders
// without any run a *NoCheckpointError.
func TestResumeRuns(t *testing.T) {
	c, cfg, pol, _ := untrained(t)
	fp32, err := policy.Parse("fp32")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	runs := experiment.TrainRuns(out, []experiment.NamedPolicy{{Spec: "posit8", Label: "posit8", Policy: pol}, {Spec: "fp32", Label: "fp32", Policy: fp32}})
	if err := os.MkdirAll(runs[0].Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ckpt.Save(filepath.Join(runs[0].Dir, "checkpoint.safetensors"), c); err != nil {
		t.Fatal(err)
	}
	s := experiment.TrainSettings{Model: models.CGAN, Dataset: models.DefaultDataset, Seed: 1, Batch: 5, LR: 2e-4, Given: map[string]bool{}}
	got, err := s.ResumeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != cfg.String() || s.Seed != 3 || s.Batch != 8 || s.LR != 1e-3 || s.Dataset != "toy" || runs[1].Checkpoint != nil {
		t.Errorf("config %v, settings %+v; want %v, seed 3, batch 8, lr 0.001, dataset toy", got, s, cfg)
	}
	s = experiment.TrainSettings{Model: models.CGAN, Seed: 1, Given: map[string]bool{"seed": true}}
	_, err = s.ResumeRuns(runs)
	var me *experiment.ResumeMismatchError
	if !errors.As(err, &me) || me.Run != runs[0] || len(me.Mismatches) != 1 || me.Mismatches[0].Setting != experiment.SettingSeed {
		t.Errorf("given seed 1: %v, want a seed mismatch of the first run", err)
	}
	var ne *experiment.NoCheckpointError
	if _, err := s.ResumeRuns(experiment.TrainRuns(t.TempDir(), []experiment.NamedPolicy{{Label: "fp32", Policy: fp32}})); !errors.As(err, &ne) {
		t.Errorf("no run: %v, want a *NoCheckpointError", err)
	}
}
