package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/positgan/positgan/quant"
)

// maxTableBits is the widest format whose codes are enumerated.
const maxTableBits = 16

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
					return formatTable(io.out, f)
				}
			}},
		{name: "quantize", usage: "FORMAT [--scale-exp K] < numbers",
			summary: "Read one number a line (decimal, hex float, inf, -inf, nan) from stdin, convert it to float32,\nquantize it with the training kernel and write CSV input,code,value.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				k := fs.Int("scale-exp", 0, "exponent bias K: quantize x as FORMAT quantizes x·2^K, then divide by 2^K")
				return func(args []string, io stdio) error {
					f, err := oneFormatArg(args)
					if err != nil {
						return err
					}
					if *k != 0 {
						if f, err = quant.Scale(f, *k); err != nil {
							return usageError{err}
						}
					}
					return formatQuantize(io.out, io.in, f)
				}
			}},
		{name: "info", usage: "FORMAT [--plot hist.png]",
			summary: "Print a format's width, range, precision near 1 and how many codes fall in each binade.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				plot := fs.String("plot", "", "also write the binade histogram as a PNG plot to this file")
				return func(args []string, io stdio) error {
					f, err := oneFormatArg(args)
					if err != nil {
						return err
					}
					d, err := formatInfo(f)
					if err != nil {
						return err
					}
					printDescription(io.out, d)
					if *plot != "" {
						return plotHistogram(*plot, d)
					}
					return nil
				}
			}},
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

// codeString formats a code as 0x-prefixed hex with as many digits as the
// format's width needs.
func codeString(f quant.Format, c uint32) string {
	return fmt.Sprintf("0x%0*x", (f.Bits()+3)/4, c)
}

// valueString is the shortest decimal that round-trips the float64 v, with
// the spellings NaR (posit), NaN, +Inf and -Inf.
func valueString(f quant.Format, v float64) string {
	if _, ok := f.(quant.Posit); ok && math.IsNaN(v) {
		return "NaR"
	}
	return numberString(v, 64)
}

func formatTable(w io.Writer, f quant.Format) error {
	if f.Bits() > maxTableBits {
		return usagef("%v has %d bits; table lists formats of at most %d bits", f, f.Bits(), maxTableBits)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "code,value")
	for c := uint32(0); c < 1<<f.Bits(); c++ {
		fmt.Fprintf(bw, "%s,%s\n", codeString(f, c), valueString(f, f.Decode(c)))
	}
	return bw.Flush()
}

// formatQuantize reads every line first, so that a bad line leaves no
// partial output behind.
func formatQuantize(w io.Writer, r io.Reader, f quant.Format) error {
	xs64, err := readNumbers(r, 32)
	if err != nil {
		return err
	}
	xs := make([]float32, len(xs64))
	for i, x := range xs64 {
		xs[i] = float32(x) // exact: readNumbers rounded to float32 already
	}
	q := make([]float32, len(xs))
	f.RoundSlice(q, xs) // the kernel training uses
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "input,code,value")
	for i, x := range xs {
		fmt.Fprintf(bw, "%s,%s,%s\n", numberString(float64(x), 32), codeString(f, f.Encode(x)), valueString(f, float64(q[i])))
	}
	return bw.Flush()
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

// printDescription writes d as info shows it.
func printDescription(w io.Writer, d quant.Description) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	f := d.Format
	fmt.Fprintf(bw, "format:        %v\n", f)
	fmt.Fprintf(bw, "bits:          %d\n", f.Bits())
	fmt.Fprintf(bw, "finite codes:  %d (%d distinct positive values)\n", d.FiniteCodes, d.PositiveValues)
	if _, ok := f.(quant.Posit); ok {
		fmt.Fprintf(bw, "minpos:        %s\n", valueString(f, d.MinPos))
		fmt.Fprintf(bw, "maxpos:        %s\n", valueString(f, d.MaxPos))
	} else {
		fmt.Fprintf(bw, "min positive:  %s\n", valueString(f, d.MinPos))
		if d.MinNormal > d.MinPos {
			fmt.Fprintf(bw, "min normal:    %s (below it: subnormals)\n", valueString(f, d.MinNormal))
		}
		fmt.Fprintf(bw, "max:           %s\n", valueString(f, d.MaxPos))
	}
	fmt.Fprintf(bw, "range:         %.2f decades (log10 max/min)\n", d.Decades())
	fmt.Fprintf(bw, "gap near 1:    %s (below: %s, above: %s)\n", valueString(f, d.Gap()),
		valueString(f, d.GapBelow), valueString(f, d.GapAbove))
	fmt.Fprintf(bw, "\npositive values per binade [2^e, 2^(e+1)):\n")
	most := 0
	for _, b := range d.Binades {
		most = max(most, b.Values)
	}
	for _, b := range d.Binades {
		bar := strings.Repeat("#", (b.Values*40+most-1)/most) // at least one # for a nonzero count
		fmt.Fprintf(bw, "  2^%-5d %6d %s\n", b.Exp, b.Values, bar)
	}
}
