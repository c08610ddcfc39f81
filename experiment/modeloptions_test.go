package experiment_test

import (
	"flag"
	"fmt"

	"github.com/positgan/positgan/experiment"
)

// ModelOptions collects a repeatable --option flag.
func ExampleModelOptions() {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	var o experiment.ModelOptions
	fs.Var(&o, "option", "model option key=value, repeatable")
	err := fs.Parse([]string{"--option", "gc=16", "--option", " blocks = 9 "})
	fmt.Println(o.String(), o.Strings(), err)
	fmt.Println(o.Set("gc=8"))
	fmt.Println(o.Set("gc"))
	fmt.Println(o.Set("scale="))
	// Output:
	// blocks=9,gc=16 [blocks=9 gc=16] <nil>
	// gc given twice
	// want key=value
	// scale has no value
}
