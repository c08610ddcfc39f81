// Command positgan trains, quantizes and evaluates GANs in small number
// formats (posits, FP8, fixed point).
//
// Usage:
//
//	positgan <command> [subcommand] [flags] [args]
//
// Run "positgan help" for the list of commands, and "positgan <command>
// --help" for one command's flags. Usage errors exit with status 2, other
// failures with status 1.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// stdio carries the streams a command uses, so tests can run commands
// in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// run executes the command line args and returns the exit status.
func run(args []string, io stdio) int {
	err := root().run(args, io)
	var u usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		return 0
	case errors.As(err, &u):
		fmt.Fprintln(io.err, err)
		return 2
	default:
		fmt.Fprintln(io.err, err)
		return 1
	}
}
