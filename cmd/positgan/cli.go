package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// A command is either a group of subcommands or a leaf with a run function.
type command struct {
	name    string
	summary string
	sub     []*command
	// leaf: usage is the argument synopsis, setup declares flags on fs and
	// returns the function that runs with the positional arguments.
	usage string
	setup func(fs *flag.FlagSet) func(args []string, io stdio) error
}

// root lists every command of the CLI. Each command's file adds one entry.
func root() *command {
	return &command{name: "positgan", sub: []*command{
		formatCmd(),
		approxCmd(),
		evalCmd(),
		trainCmd(),
		sampleCmd(),
		scaleCmd(),
		lenetCmd(),
		compareCmd(),
		translateCmd(),
		versionCmd(),
		classifyCmd(),
		exportCmd(),
		generateCmd(),
		deployCompareCmd(),
		downscaleCmd(),
		upscaleCmd(),
		importCmd(),
	}}
}

// usageError marks errors caused by bad command-line input (exit status 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef returns a usage error with a formatted message.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

var errHelp = errors.New("help requested")

func (c *command) run(args []string, io stdio) error {
	return c.runPath(c.name, args, io)
}

func (c *command) runPath(path string, args []string, io stdio) error {
	if c.setup != nil {
		return c.runLeaf(path, args, io)
	}
	if len(args) == 0 {
		return usagef("%s: missing command (run '%s help')", path, path)
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		if len(args) > 1 {
			if s := c.find(args[1]); s != nil {
				return s.runPath(path+" "+s.name, []string{"--help"}, io)
			}
		}
		c.printGroup(path, io.out)
		return errHelp
	}
	s := c.find(name)
	if s == nil {
		return usagef("%s: unknown command %q (run '%s help')", path, name, path)
	}
	return s.runPath(path+" "+s.name, args[1:], io)
}

func (c *command) find(name string) *command {
	for _, s := range c.sub {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (c *command) printGroup(path string, w io.Writer) {
	fmt.Fprintf(w, "Usage: %s <command> [flags] [args]\n\nCommands:\n", path)
	subs := append([]*command(nil), c.sub...)
	sort.Slice(subs, func(i, j int) bool { return subs[i].name < subs[j].name })
	width := 10 // of the name column: the longest name's
	for _, s := range subs {
		width = max(width, len(s.name))
	}
	for _, s := range subs {
		first := fmt.Sprintf("  %-*s ", width, s.name)
		for _, l := range wrap(firstSentence(s.summary), helpWidth, first, strings.Repeat(" ", len(first))) {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "\nRun '%s <command> --help' for details.\n", path)
}

func (c *command) runLeaf(path string, args []string, io stdio) error {
	fs := flag.NewFlagSet(path, flag.ContinueOnError)
	fs.SetOutput(discard{})
	run := c.setup(fs)
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(io.out, "Usage: %s %s\n\n%s\n", path, c.usage, reflow(c.summary, helpWidth))
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		if b.Len() > 0 {
			fmt.Fprintf(io.out, "\nFlags:\n%s", wrapFlagDefaults(b.String(), helpWidth))
		}
		return errHelp
	}
	if err != nil {
		return usagef("%s: %v", path, err)
	}
	if err := run(pos, io); err != nil {
		var u usageError
		if errors.As(err, &u) {
			return usagef("%s: %v", path, u.err)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// givenFlags returns the names of the flags given on the command line.
func givenFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool { return givenFlags(fs)[name] }

// parseInterspersed parses flags that may come before, between or after
// positional arguments (the flag package stops at the first positional
// one). An argument "--" ends flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse consumed a "--" if it was right before rest.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
