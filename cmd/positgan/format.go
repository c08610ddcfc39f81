package main

import (
	"cmp"
	"flag"
	"strings"

	"github.com/positgan/positgan/formatinfo"
	"github.com/positgan/positgan/quant"
)

// formatCmd groups the commands that inspect number formats.
func formatCmd() *command {
	return &command{name: "format", summary: "inspect number formats (table, quantize, info)", sub: []*command{
		{name: "table", usage: "FORMAT", summary: "Print every code of a format of at most 16 bits as CSV code,value.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				return func(args []string, io stdio) error {
					f, err := oneFormatArg(args)
					if err != nil {
						return err
					}
					if f.Bits() > formatinfo.MaxTableBits {
						return usagef("%v has %d bits; table lists formats of at most %d bits", f, f.Bits(), formatinfo.MaxTableBits)
					}
					return formatinfo.WriteCodeTable(io.out, f)
				}
			}},
		{name: "quantize", usage: "FORMAT [--scale-exp K] < numbers",
			summary: "Read one number a line (decimal, hex float, inf, -inf, nan) from stdin, convert it to float32,\nquantize it with the training kernel and write CSV input,code,value. A block-scaled FORMAT\n(mxfp8-e4m3, posit(8,1,block=32), ...) takes each run of block inputs as one block (the last may\nbe shorter) and writes input,block,scale,code,value: the block's index and scale code.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				k := fs.Int("scale-exp", 0, "exponent bias K: quantize x as FORMAT quantizes x·2^K, then divide by 2^K")
				return func(args []string, io stdio) error {
					if b, ok := blockFormatArg(args); ok {
						if *k != 0 {
							return usagef("%v chooses a scale per block and takes no --scale-exp", b)
						}
						return inputError(formatinfo.QuantizeBlockLines(io.out, io.in, b))
					}
					f, err := oneFormatArg(args)
					if err != nil {
						return err
					}
					if *k != 0 {
						if lo, hi, ok := formatinfo.ScaleExpRange(f); ok && (*k < lo || *k > hi) {
							return usagef("--scale-exp %d: %v's values times 2^-K leave float32's range; want K from %d to %d", *k, f, lo, hi)
						}
						if f, err = quant.Scale(f, *k); err != nil {
							return usageError{err}
						}
					}
					return inputError(formatinfo.QuantizeLines(io.out, io.in, f))
				}
			}},
		{name: "info", usage: "FORMAT [--plot hist.png]",
			summary: "Print a format's width, range, precision near 1 and how many codes fall in each binade.\nFor a block-scaled format, how its scale is chosen and stored, then its element format.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				plot := fs.String("plot", "", "also write the binade histogram as a PNG plot to this file")
				return func(args []string, io stdio) error {
					b, isBlock := blockFormatArg(args)
					var f quant.Format
					var err error
					if isBlock {
						f = b.Elem()
					} else if f, err = oneFormatArg(args); err != nil {
						return err
					}
					d, err := formatInfo(f)
					if err != nil {
						return err
					}
					if *plot != "" { // before anything is printed
						if err := cmp.Or(wantExt("plot", *plot, ".png"), checkOutFile("plot", *plot, false)); err != nil {
							return err
						}
					}
					if isBlock {
						if err := formatinfo.WriteBlockScale(io.out, b); err != nil {
							return err
						}
					}
					if err := formatinfo.WriteDescription(io.out, d); err != nil || *plot == "" {
						return err
					}
					return formatinfo.WriteHistogramPlot(*plot, d)
				}
			}},
		promoteCmd(), latticeCmd(),
	}}
}

// oneFormatArg parses the single FORMAT argument of the format commands.
func oneFormatArg(args []string) (quant.Format, error) {
	switch {
	case len(args) == 0:
		return nil, usagef("missing FORMAT argument (e.g. 'posit(8,1)')")
	case len(args) > 1:
		return nil, usagef("want one FORMAT argument, got %d: %s", len(args), strings.Join(args, " "))
	}
	f, err := quant.Parse(args[0])
	if err != nil {
		return nil, usageError{err}
	}
	return f, nil
}

// blockFormatArg returns the block format args names, if it is one
// argument naming one.
func blockFormatArg(args []string) (quant.BlockFormat, bool) {
	if len(args) != 1 {
		return quant.BlockFormat{}, false
	}
	b, err := quant.ParseBlock(args[0])
	return b, err == nil
}

// formatInfo describes f for info: the library's description, with the
// width checked here so that a too-wide format is a usage error.
func formatInfo(f quant.Format) (quant.Description, error) {
	if f.Bits() > quant.MaxDescribeBits {
		return quant.Description{}, usagef("%v has %d bits; info enumerates formats of at most %d bits", f, f.Bits(), quant.MaxDescribeBits)
	}
	d, err := quant.Describe(f)
	if err != nil {
		return quant.Description{}, usageError{err}
	}
	return d, nil
}
