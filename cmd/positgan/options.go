package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/positgan/positgan/models"
)

// modelOptions is the value of train's repeatable --option key=value:
// model-specific settings (models.Config.Options).
type modelOptions map[string]string

func (o *modelOptions) String() string {
	if o == nil {
		return ""
	}
	return strings.Join(o.Strings(), ",")
}

// Strings returns the options as key=value, sorted: run.toml holds them
// as an array, which --config sets one by one (experiment.MultiValue).
func (o *modelOptions) Strings() []string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(*o)) {
		s = append(s, k+"="+(*o)[k])
	}
	return s
}

func (o *modelOptions) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	switch {
	case !ok || k == "":
		return fmt.Errorf("want key=value")
	case v == "":
		return fmt.Errorf("%s has no value", k)
	}
	if _, dup := (*o)[k]; dup {
		return fmt.Errorf("%s given twice", k)
	}
	if *o == nil {
		*o = modelOptions{}
	}
	(*o)[k] = v
	return nil
}

// optionHelp describes --option with the options of every model that has
// some.
func optionHelp() string {
	return "model option key=value, repeatable (" + models.OptionsNote() + ")"
}

// checkOptions reports, as a usage error, an --option the model does not
// read.
func checkOptions(model string, o modelOptions) error {
	if err := models.CheckOptions(model, o); err != nil {
		return usageError{fmt.Errorf("--option: %w", err)}
	}
	return nil
}
