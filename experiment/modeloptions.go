package experiment

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ModelOptions are model-specific settings (models.Config.Options) as a
// repeatable flag takes them, one key=value at a time: positgan train's
// and compare's --option. It is a flag.Value and a MultiValue, so that
// run.toml holds the options as an array.
type ModelOptions map[string]string

// String returns the options as key=value, sorted by key and separated
// by commas: "blocks=9,gc=16".
func (o *ModelOptions) String() string {
	if o == nil {
		return ""
	}
	return strings.Join(o.Strings(), ",")
}

// Strings returns the options as key=value, sorted by key: run.toml holds
// them as an array, which ApplyRunConfig sets one by one.
func (o *ModelOptions) Strings() []string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(*o)) {
		s = append(s, k+"="+(*o)[k])
	}
	return s
}

// Set adds one option, key=value; spaces around either are dropped. A key
// given twice, or without a value, is an error.
func (o *ModelOptions) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	switch {
	case !ok || k == "":
		return errors.New("want key=value")
	case v == "":
		return fmt.Errorf("%s has no value", k)
	}
	if _, dup := (*o)[k]; dup {
		return fmt.Errorf("%s given twice", k)
	}
	if *o == nil {
		*o = ModelOptions{}
	}
	(*o)[k] = v
	return nil
}
