package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/positgan/positgan/internal/numfmt"
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
			summary: "Read one number a line (decimal, hex float, inf, -inf, nan) from stdin, convert it to float32,\nquantize it with the training kernel and write CSV input,code,value. A block-scaled FORMAT\n(mxfp8-e4m3, posit(8,1,block=32), ...) takes each run of block inputs as one block (the last may\nbe shorter) and writes input,block,scale,code,value: the block's index and scale code.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				k := fs.Int("scale-exp", 0, "exponent bias K: quantize x as FORMAT quantizes x·2^K, then divide by 2^K")
				return func(args []string, io stdio) error {
					if b, ok := blockFormatArg(args); ok {
						if *k != 0 {
							return usagef("%v chooses a scale per block and takes no --scale-exp", b)
						}
						return formatQuantizeBlocks(io.out, io.in, b)
					}
					f, err := oneFormatArg(args)
					if err != nil {
						return err
					}
					if *k != 0 {
						if lo, hi, ok := scaleExpRange(f); ok && (*k < lo || *k > hi) {
							return usagef("--scale-exp %d: %v's values times 2^-K leave float32's range; want K from %d to %d", *k, f, lo, hi)
						}
						if f, err = quant.Scale(f, *k); err != nil {
							return usageError{err}
						}
					}
					return formatQuantize(io.out, io.in, f)
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
						printBlockScale(io.out, b)
					}
					printDescription(io.out, d)
					if *plot != "" {
						return plotHistogram(*plot, d)
					}
					return nil
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

// formatQuantizeBlocks is formatQuantize for a block format: consecutive
// runs of b.Block() inputs are blocks.
func formatQuantizeBlocks(w io.Writer, r io.Reader, b quant.BlockFormat) error {
	xs64, bad := readNumbers(r, 32) // the rows before a bad line are written, then bad returned
	if len(xs64) == 0 && bad != nil {
		return bad // no header without rows
	}
	xs := make([]float32, len(xs64))
	for i, x := range xs64 {
		xs[i] = float32(x)
	}
	q, codes, scales := b.Quantized(xs) // the kernel training uses
	f := b.Elem()
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "input,block,scale,code,value")
	for i, x := range xs {
		fmt.Fprintf(bw, "%s,%d,0x%02x,%s,%s\n", numfmt.Exact(float64(x), 32), i/b.Block(), scales[i/b.Block()],
			codeString(f, codes[i]), valueString(f, float64(q[i])))
	}
	return cmp.Or(bw.Flush(), bad)
}

// printBlockScale writes what info says about a block format's scale.
func printBlockScale(w io.Writer, b quant.BlockFormat) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintf(bw, "format:        %v (block-scaled)\n", b)
	fmt.Fprintf(bw, "block:         %d consecutive values share one 8-bit scale\n", b.Block())
	fmt.Fprintf(bw, "storage:       %d bits per element + 8 per block = %.4g bits per value\n", b.Bits(), b.BitsPerValue())
	if b.IsMX() {
		fmt.Fprintf(bw, "scale:         E8M0 (OCP MX v1.0): code s is 2^(s-127), s = 0x00..0xfe; 0xff is NaN\n")
		fmt.Fprintf(bw, "               a block's scale is 2^(floor(log2 max|v|) - %d), %d being the exponent of the\n", b.EmaxElem(), b.EmaxElem())
		fmt.Fprintf(bw, "               element's largest normal, clamped to [2^-127, 2^127]; each value is v/scale\n")
		fmt.Fprintf(bw, "               rounded to nearest even and clamped to the element's largest normal.\n")
		fmt.Fprintf(bw, "               A zero block has scale 2^-127 (0x00); a NaN or Inf makes the block NaN (0xff).\n")
	} else {
		fmt.Fprintf(bw, "scale:         an exponent bias k per block, 8-bit two's complement: the block is rounded as\n")
		p := b.Elem().(quant.Posit)
		fmt.Fprintf(bw, "               posit(%d,%d,scale=k) rounds it, so a value is element·2^-k.\n", p.N(), p.ES())
		fmt.Fprintf(bw, "               k = %d - floor(log2 max|finite v|), clamped to [-127, 127] (0 without finite\n", b.EmaxElem())
		fmt.Fprintf(bw, "               nonzero values): the block's largest magnitude lands in [2^%d, 2^%d).\n", b.EmaxElem(), b.EmaxElem()+1)
	}
	fmt.Fprintf(bw, "\nelement format (values at scale 1):\n")
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
	return numfmt.Exact(v, 64)
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

// formatQuantize writes a row for each number up to the first bad line,
// then returns the error naming that line. Blank lines are skipped.
func formatQuantize(w io.Writer, r io.Reader, f quant.Format) error {
	xs64, bad := readNumbers(r, 32)
	if len(xs64) == 0 && bad != nil {
		return bad // no header without rows
	}
	xs := make([]float32, len(xs64))
	for i, x := range xs64 {
		xs[i] = float32(x) // exact: readNumbers rounded to float32 already
	}
	q, codes := quant.Quantized(f, xs) // the kernel training uses
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "input,code,value")
	for i, x := range xs {
		fmt.Fprintf(bw, "%s,%s,%s\n", numfmt.Exact(float64(x), 32), codeString(f, codes[i]), valueString(f, float64(q[i])))
	}
	return cmp.Or(bw.Flush(), bad)
}

// formatInfo describes f for info: the library's description, with the
// width checked here so that a too-wide format is a usage error.
// scaleExpRange returns the exponent biases K that keep every value of f,
// times 2^-K, within float32's range (largest finite to smallest
// subnormal), for formats Describe enumerates: --scale-exp values beyond
// them turn every input into 0, the largest float32 or a rounding of
// f's extremes.
func scaleExpRange(f quant.Format) (lo, hi int, ok bool) {
	if f.Bits() > quant.MaxDescribeBits {
		return 0, 0, false
	}
	d, err := quant.Describe(f)
	if err != nil || !(d.MinPos > 0) {
		return 0, 0, false
	}
	lo = int(math.Ceil(math.Log2(d.MaxPos / math.MaxFloat32)))
	hi = int(math.Floor(math.Log2(d.MinPos / math.SmallestNonzeroFloat32)))
	return lo, hi, true
}

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
	fmt.Fprintf(bw, "gap near 1:    %s\n", gapNearOne(d))
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

// gapNearOne describes the precision of d's format near 1: the gap to
// the neighbouring values, or why there is none. 1 counts as near the
// values only within a binade of them (a fixed(8,9) has values up to 0.248
// only: the distance from it to 1 is no precision).
func gapNearOne(d quant.Description) string {
	f := d.Format
	switch {
	case d.MaxPos < 0.5:
		return fmt.Sprintf("none (every value is below 0.5; max %s)", valueString(f, d.MaxPos))
	case d.MinPos > 2:
		return fmt.Sprintf("none (every positive value is above 2; min %s)", valueString(f, d.MinPos))
	}
	side := func(gap float64) string {
		if gap == 0 {
			return "none"
		}
		return valueString(f, gap)
	}
	return fmt.Sprintf("%s (below: %s, above: %s)", valueString(f, d.Gap()), side(d.GapBelow), side(d.GapAbove))
}
