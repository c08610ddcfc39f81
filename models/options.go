package models

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// An OptionError reports a model option that the model does not read.
type OptionError struct {
	Model string
	Key   string
	Known []string // the model's options, sorted
}

func (e *OptionError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("models: %s has no options (given %s)", e.Model, e.Key)
	}
	return fmt.Sprintf("models: %s has no option %q (its options: %s)", e.Model, e.Key, strings.Join(e.Known, ", "))
}

// OptionNames returns the keys of Config.Options the model reads, sorted.
func (s Spec) OptionNames() []string { return slices.Sorted(maps.Keys(s.Options)) }

// CheckOptions reports, as an *OptionError, the first key of opts (in
// sorted order) that the registered model name does not read. It checks
// names only; Config.Check checks the values.
func CheckOptions(name string, opts map[string]string) error {
	s, err := Lookup(name)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if _, ok := s.Options[k]; !ok {
			return &OptionError{Model: name, Key: k, Known: s.OptionNames()}
		}
	}
	return nil
}

// WithOptions returns c with the options opts set over its own, checked:
// an unknown key gives an *OptionError, a bad value Config.Check's error.
// c's Options map is not modified.
func (c Config) WithOptions(opts map[string]string) (Config, error) {
	if err := CheckOptions(c.Arch, opts); err != nil {
		return c, err
	}
	o := maps.Clone(c.Options)
	if o == nil {
		o = map[string]string{}
	}
	maps.Copy(o, opts)
	c.Options = o
	return c, c.Check()
}
