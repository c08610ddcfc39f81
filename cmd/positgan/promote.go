package main

import (
	"cmp"
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
				if bs, ok := blockFormats(args); ok {
					return formatPromoteBlocks(io.out, p, bs)
				}
				ops, err := parseFormats(args)
				if err != nil {
					return err
				}
				return formatPromote(io.out, p, ops)
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

// parseFormats parses format names; an error is a usage error.
func parseFormats(names []string) ([]quant.Format, error) {
	fs := make([]quant.Format, len(names))
	for i, n := range names {
		f, err := quant.Parse(strings.TrimSpace(n))
		if err != nil {
			return nil, usageError{err}
		}
		fs[i] = f
	}
	return fs, nil
}

// blockFormats parses args as block formats, if they all are.
func blockFormats(args []string) ([]quant.BlockFormat, bool) {
	bs := make([]quant.BlockFormat, len(args))
	for i, a := range args {
		b, err := quant.ParseBlock(a)
		if err != nil {
			return nil, false
		}
		bs[i] = b
	}
	return bs, true
}

// formatPromoteBlocks prints the promotion of block formats
// (quant.Promoter.PromoteBlocks).
func formatPromoteBlocks(w io.Writer, p quant.Promoter, bs []quant.BlockFormat) error {
	r, err := p.PromoteBlocks(bs...)
	if err != nil {
		return err
	}
	return formatinfo.WriteBlockPromotion(w, bs, r)
}

// formatPromote prints the promotion of the operands and a line per
// candidate (quant.Promoter.Explain). The candidates are printed before
// an error, so that an ambiguous promotion shows its bounds.
func formatPromote(w io.Writer, p quant.Promoter, ops []quant.Format) error {
	pr, err := p.Explain(ops...)
	return cmp.Or(formatinfo.WritePromotion(w, pr), err)
}
