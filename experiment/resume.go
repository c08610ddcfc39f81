package experiment

// The one check that a checkpoint is the run meant to continue: positgan
// train --resume and a sweep's runs (Compare) both ask it, each about the
// settings it fixes, and word the answer for their own users.

import (
	"maps"
	"slices"
	"strconv"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
)

// A Setting is a setting of a training run that CheckResume compares.
type Setting string

// The settings CheckResume compares.
const (
	SettingModel   Setting = "model"   // the registered model (Config.Arch)
	SettingConfig  Setting = "config"  // the whole model configuration, as models.Config.String
	SettingOption  Setting = "option"  // each of Resume.Options
	SettingSeed    Setting = "seed"    // gan.Options.Seed
	SettingBatch   Setting = "batch"   // gan.Options.Batch
	SettingLR      Setting = "lr"      // gan.Options.LR
	SettingDataset Setting = "dataset" // the data set (gan.MetaDataset), if the checkpoint records it
	SettingPolicy  Setting = "policy"  // the quantization policy, if the checkpoint has one
	SettingStep    Setting = "step"    // the checkpoint's step, which must not be past Resume.Steps
)

// Resume describes the run meant to continue a checkpoint.
type Resume struct {
	// Compare lists the settings to compare, in the order in which
	// mismatches are reported; the others are not read.
	Compare []Setting
	Config  models.Config     // SettingModel reads only its Arch
	Options map[string]string // model options the checkpoint's configuration must have so
	Seed    uint64
	Batch   int
	LR      float64
	Dataset string
	Policy  *policy.Policy
	Steps   int // the run's length
}

// A Mismatch is a setting in which a checkpoint's run differs from the
// run meant to continue it.
type Mismatch struct {
	Setting Setting
	Option  string // the option's name, for SettingOption
	// Saved is the checkpoint's value ("" for an option it does not
	// set; its raw configuration for SettingConfig) and Want the wanted
	// one, formatted as %d and %g format them; for SettingPolicy, the
	// policies' names.
	Saved, Want string
}

// Resumed is a checkpoint's run as CheckResume reads it.
type Resumed struct {
	State *gan.Saved
	// Config is the checkpoint's model configuration; the zero Config
	// if it cannot be read and only SettingConfig needed it (which is
	// then a mismatch).
	Config     models.Config
	Dataset    string // the data set it was trained on; "" if not recorded
	Mismatches []Mismatch
}

// CheckResume reads the run checkpoint c holds and compares the settings
// want.Compare names with want. An unreadable checkpoint is an error; a
// run that differs is not, but has Mismatches.
func CheckResume(c *ckpt.Checkpoint, want Resume) (Resumed, error) {
	st, err := gan.ReadState(c)
	if err != nil {
		return Resumed{}, err
	}
	r := Resumed{State: st, Dataset: c.Meta[gan.MetaDataset]}
	cfg, cfgErr := models.ConfigOf(c)
	if cfgErr == nil {
		r.Config = cfg
	}
	o := st.Options
	add := func(s Setting, saved, want string) {
		r.Mismatches = append(r.Mismatches, Mismatch{Setting: s, Saved: saved, Want: want})
	}
	for _, s := range want.Compare {
		if cfgErr != nil && (s == SettingModel || s == SettingOption) {
			return Resumed{}, cfgErr
		}
		switch s {
		case SettingModel:
			if want.Config.Arch != cfg.Arch {
				add(s, cfg.Arch, want.Config.Arch)
			}
		case SettingConfig:
			if w := want.Config.String(); cfgErr != nil || cfg.String() != w {
				add(s, st.Model, w)
			}
		case SettingOption:
			for _, k := range slices.Sorted(maps.Keys(want.Options)) {
				if v, ok := cfg.Options[k]; !ok || v != want.Options[k] {
					r.Mismatches = append(r.Mismatches, Mismatch{Setting: s, Option: k, Saved: v, Want: want.Options[k]})
				}
			}
		case SettingSeed:
			if o.Seed != want.Seed {
				add(s, strconv.FormatUint(o.Seed, 10), strconv.FormatUint(want.Seed, 10))
			}
		case SettingBatch:
			if o.Batch != want.Batch {
				add(s, strconv.Itoa(o.Batch), strconv.Itoa(want.Batch))
			}
		case SettingLR:
			if o.LR != want.LR {
				add(s, strconv.FormatFloat(o.LR, 'g', -1, 64), strconv.FormatFloat(want.LR, 'g', -1, 64))
			}
		case SettingDataset:
			if r.Dataset != "" && r.Dataset != want.Dataset {
				add(s, r.Dataset, want.Dataset)
			}
		case SettingPolicy:
			if o.Policy != nil && o.Policy.String() != want.Policy.String() {
				add(s, o.Policy.Name, want.Policy.Name)
			}
		case SettingStep:
			if st.Step > want.Steps {
				add(s, strconv.Itoa(st.Step), strconv.Itoa(want.Steps))
			}
		default:
			panic("experiment: CheckResume: unknown setting " + string(s))
		}
	}
	return r, nil
}
