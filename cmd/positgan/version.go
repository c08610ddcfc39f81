package main

import (
	"flag"
	"fmt"

	"github.com/positgan/positgan/experiment"
)

func versionCmd() *command {
	return &command{name: "version", usage: "",
		summary: "print the module version, the Go version, the matrix-multiply backend and the CPU features used",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			return func(args []string, io stdio) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q (version takes none)", args[0])
				}
				fmt.Fprint(io.out, experiment.BuildInfo())
				return nil
			}
		}}
}
