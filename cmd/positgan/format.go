package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
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
					inf, err := describe(f)
					if err != nil {
						return err
					}
					inf.print(io.out)
					if *plot != "" {
						return plotHistogram(*plot, inf)
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

// formatInfo is what info prints about a format.
type formatInfo struct {
	f                  quant.Format
	min, max           float64 // smallest and largest positive finite values
	minNormal          float64 // 0 when the format has no subnormals to tell apart
	decades            float64
	gapBelow, gapAbove float64 // distance from 1 (or the values around it) to its neighbours
	hist               []binade
	finite, positive   int
}

type binade struct {
	exp   int // values in [2^exp, 2^(exp+1))
	codes int
}

// describe enumerates a format's codes (at most 16 bits) and derives the
// figures info prints.
func describe(f quant.Format) (*formatInfo, error) {
	if f.Bits() > maxTableBits {
		return nil, usagef("%v has %d bits; info enumerates formats of at most %d bits", f, f.Bits(), maxTableBits)
	}
	inf := &formatInfo{f: f}
	var pos []float64
	seen := map[float64]bool{}
	for c := uint32(0); c < 1<<f.Bits(); c++ {
		v := f.Decode(c)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		inf.finite++
		if v > 0 && !seen[v] {
			seen[v] = true
			pos = append(pos, v)
		}
	}
	if len(pos) == 0 {
		return nil, fmt.Errorf("%v has no positive finite values", f)
	}
	sort.Float64s(pos)
	inf.positive = len(pos)
	inf.min, inf.max = pos[0], pos[len(pos)-1]
	inf.decades = math.Log10(inf.max / inf.min)
	if mn, ok := f.(interface{ MinNormal() float64 }); ok {
		inf.minNormal = mn.MinNormal()
	}
	// The values bracketing 1.
	i := sort.SearchFloat64s(pos, 1) // first >= 1
	switch {
	case i < len(pos) && pos[i] == 1:
		if i > 0 {
			inf.gapBelow = 1 - pos[i-1]
		}
		if i+1 < len(pos) {
			inf.gapAbove = pos[i+1] - 1
		}
	case i > 0 && i < len(pos):
		inf.gapBelow, inf.gapAbove = 1-pos[i-1], pos[i]-1
	}
	for _, v := range pos {
		_, e := math.Frexp(v) // v = frac·2^e, frac in [0.5,1)
		e--
		// Empty binades between occupied ones are listed with 0, so the
		// histogram shows the gaps of a tapered format honestly.
		for n := len(inf.hist); n > 0 && inf.hist[n-1].exp < e-1; n++ {
			inf.hist = append(inf.hist, binade{exp: inf.hist[n-1].exp + 1})
		}
		if n := len(inf.hist); n > 0 && inf.hist[n-1].exp == e {
			inf.hist[n-1].codes++
		} else {
			inf.hist = append(inf.hist, binade{exp: e, codes: 1})
		}
	}
	return inf, nil
}

func (inf *formatInfo) print(w io.Writer) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintf(bw, "format:        %v\n", inf.f)
	fmt.Fprintf(bw, "bits:          %d\n", inf.f.Bits())
	fmt.Fprintf(bw, "finite codes:  %d (%d distinct positive values)\n", inf.finite, inf.positive)
	if _, ok := inf.f.(quant.Posit); ok {
		fmt.Fprintf(bw, "minpos:        %s\n", valueString(inf.f, inf.min))
		fmt.Fprintf(bw, "maxpos:        %s\n", valueString(inf.f, inf.max))
	} else {
		fmt.Fprintf(bw, "min positive:  %s\n", valueString(inf.f, inf.min))
		if inf.minNormal > 0 && inf.minNormal != inf.min {
			fmt.Fprintf(bw, "min normal:    %s (below it: subnormals)\n", valueString(inf.f, inf.minNormal))
		}
		fmt.Fprintf(bw, "max:           %s\n", valueString(inf.f, inf.max))
	}
	fmt.Fprintf(bw, "range:         %.2f decades (log10 max/min)\n", inf.decades)
	fmt.Fprintf(bw, "gap near 1:    %s (below: %s, above: %s)\n", valueString(inf.f, math.Max(inf.gapBelow, inf.gapAbove)),
		valueString(inf.f, inf.gapBelow), valueString(inf.f, inf.gapAbove))
	fmt.Fprintf(bw, "\npositive values per binade [2^e, 2^(e+1)):\n")
	most := 0
	for _, b := range inf.hist {
		most = max(most, b.codes)
	}
	for _, b := range inf.hist {
		bar := strings.Repeat("#", (b.codes*40+most-1)/most) // at least one # for a nonzero count
		fmt.Fprintf(bw, "  2^%-5d %6d %s\n", b.exp, b.codes, bar)
	}
}
