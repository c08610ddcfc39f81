package models

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
)

// Spec is a registered model: a name the CLI, policies and checkpoints use,
// what it needs, how to configure and build it and, for a model that does
// not make images from noise, how to measure it. A model file calls
// Register from its init function.
type Spec struct {
	Name    string // e.g. "cgan"
	Summary string // one line for --help
	// Labels is true for a conditional model, which needs labelled data.
	Labels bool
	// Domains is the number of data sets the model reads (0 means 1).
	Domains int
	// Default returns the standard configuration for images of shape img
	// in data sets of the given number of classes.
	Default func(img datasets.Shape, classes int) Config
	// Check, if not nil, reports whether the model can be built from c,
	// after the checks all models share (see Config.Check).
	Check func(c Config) error
	// New builds the model of a checked configuration.
	New func(c Config) (gan.Model, error)
	// TrainData, if not nil, loads the model's training data (see
	// TrainData); a model without one trains on one data set loaded by
	// LoadTrainSet.
	TrainData func(s DataSettings) (TrainSets, error)
	// Evaluator, if not nil, returns a new Evaluator of the model, which
	// a sweep measures its runs with instead of the FID of images made
	// from noise. Each call returns one with state of its own (a sweep
	// keeps what its runs share in it).
	Evaluator func() Evaluator
	// Options names the keys of Config.Options the model reads, each
	// with what it sets ("blocks": "residual blocks per generator"), so
	// that a misspelt option given on the command line is an error
	// instead of being ignored (see CheckOptions).
	Options map[string]string
	// Dataset and Batch are the model's training defaults when they
	// differ from DefaultDataset and DefaultBatch (see TrainDefaultsOf);
	// "" and 0 keep those.
	Dataset string
	Batch   int
}

// The registry is written by init functions only (as image.RegisterFormat
// and database/sql.Register are), then read.
var registry struct {
	sync.RWMutex
	specs map[string]Spec
}

// Register adds a model. It panics if the name is taken or the Spec is
// incomplete: both are programming errors, found when the program starts.
func Register(s Spec) {
	registry.Lock()
	defer registry.Unlock()
	switch {
	case s.Name == "" || strings.ContainsAny(s.Name, " ,/"):
		panic(fmt.Sprintf("models: Register: bad model name %q", s.Name))
	case s.Default == nil || s.New == nil:
		panic(fmt.Sprintf("models: Register %s: Default and New are required", s.Name))
	}
	if registry.specs == nil {
		registry.specs = map[string]Spec{}
	}
	if _, dup := registry.specs[s.Name]; dup {
		panic(fmt.Sprintf("models: Register: model %q registered twice", s.Name))
	}
	if s.Domains == 0 {
		s.Domains = 1
	}
	registry.specs[s.Name] = s
}

// Lookup returns the registered model called name.
func Lookup(name string) (Spec, error) {
	registry.RLock()
	defer registry.RUnlock()
	s, ok := registry.specs[name]
	if !ok {
		return Spec{}, fmt.Errorf("models: unknown model %q (registered: %s)", name, strings.Join(namesLocked(), ", "))
	}
	return s, nil
}

// Names returns the names of the registered models, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	ns := make([]string, 0, len(registry.specs))
	for n := range registry.specs {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// DefaultConfig returns the standard configuration of the model called
// name for images of shape img in data sets of the given number of
// classes (0 for unlabelled data), checked.
func DefaultConfig(name string, img datasets.Shape, classes int) (Config, error) {
	s, err := Lookup(name)
	if err != nil {
		return Config{}, err
	}
	c := s.Default(img, classes)
	c.Arch = name
	return c, c.Check()
}

// New builds the model c describes.
func New(c Config) (gan.Model, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	s, _ := Lookup(c.Arch)
	return s.New(c)
}

// ConfigOf returns the model configuration checkpoint c was trained with.
func ConfigOf(c *ckpt.Checkpoint) (Config, error) {
	s, err := gan.ReadState(c)
	if err != nil {
		return Config{}, err
	}
	cfg, err := ParseConfig(s.Model)
	if err != nil {
		return Config{}, fmt.Errorf("models: checkpoint: %w", err)
	}
	return cfg, nil
}

// Load builds the model checkpoint c holds and loads its networks for
// inference, with the checkpoint's policy and exponent biases or, if
// policy is not nil, with that policy and no biases (to run a trained
// generator in other arithmetic; its output tanh follows that policy).
func Load(c *ckpt.Checkpoint, policy *policy.Policy) (*gan.Nets, Config, error) {
	cfg, err := ConfigOf(c)
	if err != nil {
		return nil, cfg, err
	}
	cfg = cfg.WithPolicy(policy)
	m, err := New(cfg)
	if err != nil {
		return nil, cfg, err
	}
	n, _, err := gan.Load(c, m, policy)
	return n, cfg, err
}

// Resume returns a trainer that continues the run checkpoint c saved, on
// the same data sets (one per domain the model reads).
func Resume(c *ckpt.Checkpoint, data ...datasets.Dataset) (*gan.Trainer, error) {
	cfg, err := ConfigOf(c)
	if err != nil {
		return nil, err
	}
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return gan.Resume(c, m, data)
}

// CheckData reports whether data fit a model of configuration c: as many
// data sets as the model has domains, images of c's shape and, for a
// conditional model, c's number of classes.
func CheckData(c Config, data []datasets.Dataset) error {
	s, err := Lookup(c.Arch)
	if err != nil {
		return err
	}
	if len(data) != s.Domains {
		return fmt.Errorf("models: %s reads %d data sets, have %d", c.Arch, s.Domains, len(data))
	}
	for _, ds := range data {
		sh := ds.Shape()
		if sh.C != c.Channels || sh.H != c.Height || sh.W != c.Width {
			return fmt.Errorf("models: the data set has %v images, the model wants %dx%dx%d", sh, c.Channels, c.Height, c.Width)
		}
		if c.Classes > 0 && ds.NumClasses() != c.Classes {
			return fmt.Errorf("models: the data set has %d classes, the model %d", ds.NumClasses(), c.Classes)
		}
	}
	return nil
}
