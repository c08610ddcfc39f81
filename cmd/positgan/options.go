package main

import (
	"fmt"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/models"
)

// modelOptions is the value of train's and compare's repeatable --option
// key=value (experiment.ModelOptions).
type modelOptions = experiment.ModelOptions

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
