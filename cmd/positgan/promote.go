package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/positgan/positgan/formatinfo"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/quant"
)

// promoteCmd is "format promote": the least upper bound of formats, and why.
func promoteCmd() *command {
	return &command{name: "promote", usage: "A B [C...] [--prefer F1,F2,...]",
		summary: "Print the format that A, B, ... promote to: the smallest known format holding all their values\n(see docs/formats.md, Type promotion), then each candidate format and why it was not chosen:\nthe smallest-magnitude value of an operand it lacks, or the result it contains.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			prefer := fs.String("prefer", "", "comma-separated formats that settle a choice between several least upper bounds")
			return func(args []string, io stdio) error {
				if len(args) < 2 {
					return usagef("want at least two formats, got %d", len(args))
				}
				var p quant.Promoter
				if *prefer != "" {
					var err error
					if p.Prefer, err = parseFormats(quant.SplitNames(*prefer)); err != nil {
						return err
					}
				}
				return nameError(formatinfo.WritePromote(io.out, p, args))
			}
		}}
}

// latticeCmd is "format lattice": the Hasse diagram of formats.
func latticeCmd() *command {
	return &command{name: "lattice", usage: "F1,F2,... [--out lattice.png] [--csv lattice.csv]",
		summary: "List the Hasse diagram of the given formats under containment of value sets as CSV lower,upper\n(to stdout, or to --csv), and draw it as a PNG with --out: one row per level, the smallest formats\nat the bottom, lines for the covering pairs.",
		setup: func(fs *flag.FlagSet) func([]string, stdio) error {
			out := fs.String("out", "", "write the diagram as a PNG to this file")
			csvPath := fs.String("csv", "", "write the CSV to this file instead of stdout")
			return func(args []string, std stdio) error {
				if len(args) != 1 {
					return usagef("want one comma-separated list of formats, got %d arguments", len(args))
				}
				if *out != "" && !strings.HasSuffix(strings.ToLower(*out), ".png") {
					return usagef("--out %s: want a .png file name", *out)
				}
				fs, err := parseFormats(quant.SplitNames(args[0]))
				if err != nil {
					return err
				}
				if len(fs) < 2 {
					return usagef("want at least two formats, got %d", len(fs))
				}
				l, err := quant.NewLattice(fs)
				if err != nil {
					return err
				}
				if *csvPath != "" {
					err = atomicfile.Write(*csvPath, func(w io.Writer) error { return formatinfo.WriteLatticeCSV(w, l) })
				} else {
					err = formatinfo.WriteLatticeCSV(std.out, l)
				}
				if err != nil || *out == "" {
					return err
				}
				return formatinfo.WriteLatticePlot(*out, l)
			}
		}}
}

// parseFormats parses format names (formatinfo.ParseFormats); an error
// is a usage error.
func parseFormats(names []string) ([]quant.Format, error) {
	fs, err := formatinfo.ParseFormats(names)
	return fs, nameError(err)
}

// nameError words a format name that does not parse
// (*formatinfo.NameError) as a usage error.
func nameError(err error) error {
	var ne *formatinfo.NameError
	if errors.As(err, &ne) {
		return usageError{ne.Err}
	}
	return err
}
