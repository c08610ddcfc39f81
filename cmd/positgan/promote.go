package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

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
					err = atomicfile.Write(*csvPath, func(w io.Writer) error { return writeLatticeCSV(w, l) })
				} else {
					err = writeLatticeCSV(std.out, l)
				}
				if err != nil || *out == "" {
					return err
				}
				return plotLattice(*out, l)
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

// formatPromoteBlocks folds block formats with p.PromoteBlock.
func formatPromoteBlocks(w io.Writer, p quant.Promoter, bs []quant.BlockFormat) error {
	r := bs[0]
	for _, b := range bs[1:] {
		var err error
		if r, err = p.PromoteBlock(r, b); err != nil {
			return err
		}
	}
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.String()
	}
	_, err := fmt.Fprintf(w, "promote(%s) = %v (its elements, %v, are the promotion of the operands' elements)\n", strings.Join(names, ", "), r, r.Elem())
	return err
}

// formatPromote folds the operands with p and prints the result and a
// line per candidate. The candidates are printed before an error, so
// that an ambiguous promotion shows its bounds.
func formatPromote(w io.Writer, p quant.Promoter, ops []quant.Format) error {
	r, err := ops[0], error(nil)
	for _, o := range ops[1:] {
		if r, err = p.Promote(r, o); err != nil {
			break
		}
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = o.String()
	}
	if err == nil {
		fmt.Fprintf(bw, "promote(%s) = %v\n", strings.Join(names, ", "), r)
	} else {
		fmt.Fprintf(bw, "promote(%s): no result\n", strings.Join(names, ", "))
	}
	cands := p.Candidates(ops[0], ops[1])
	for _, o := range ops[2:] {
		if !containsFormat(cands, o) {
			cands = append(cands, o)
		}
	}
	width := 0
	for _, c := range cands {
		width = max(width, len(c.String()))
	}
	for _, c := range cands {
		why, werr := promoteWhy(c, r, err == nil, ops)
		if werr != nil {
			return werr
		}
		fmt.Fprintf(bw, "  %-*s  %s\n", width, c, why)
	}
	return err
}

// promoteWhy says why the candidate c is or is not the result r.
func promoteWhy(c, r quant.Format, ok bool, ops []quant.Format) (string, error) {
	if ok && c == r {
		return "result: holds every operand", nil
	}
	var best float64
	var bestOp quant.Format
	for _, o := range ops {
		v, lacks, err := quant.Lacks(c, o)
		if err != nil {
			return "", err
		}
		if lacks && (bestOp == nil || lackOrder(v) < lackOrder(best)) {
			best, bestOp = v, o
		}
	}
	if bestOp != nil {
		return fmt.Sprintf("lacks %s of %v", promoteValue(best), bestOp), nil
	}
	if !ok {
		return "holds every operand", nil
	}
	if in, err := quant.Contains(c, r); err != nil {
		return "", err
	} else if in {
		if back, _ := quant.Contains(r, c); back {
			return fmt.Sprintf("holds every operand; the same values as %v", r), nil
		}
		return fmt.Sprintf("holds every operand, and %v, which is smaller", r), nil
	}
	return fmt.Sprintf("holds every operand; neither it nor %v holds the other (settled by --prefer)", r), nil
}

// lackOrder ranks a lacked value as quant.Lacks does: zeros, then finite
// values by magnitude, then infinities, then NaN.
func lackOrder(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	if math.IsInf(v, 0) {
		return math.MaxFloat64
	}
	return math.Abs(v)
}

func promoteValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func containsFormat(fs []quant.Format, f quant.Format) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}

func writeLatticeCSV(w io.Writer, l *quant.Lattice) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(l.CSV()); err != nil {
		return err
	}
	return cw.Error()
}

// plotLattice draws the Hasse diagram: formats by level from the bottom,
// spread evenly across each level, with a line for each covering pair.
func plotLattice(path string, l *quant.Lattice) error {
	levels := map[int][]int{}
	top := 0
	for i, lv := range l.Level {
		levels[lv] = append(levels[lv], i)
		top = max(top, lv)
	}
	pos := make(plotter.XYs, len(l.Formats))
	for lv, idx := range levels {
		for k, i := range idx {
			pos[i] = plotter.XY{X: float64(k+1) / float64(len(idx)+1), Y: float64(lv)}
		}
	}
	p := plot.New()
	p.Title.Text = "Formats ordered by containment of value sets"
	p.HideAxes()
	for _, e := range l.Edges {
		line, err := plotter.NewLine(plotter.XYs{pos[e[0]], pos[e[1]]})
		if err != nil {
			return err
		}
		line.Color = color.Gray{Y: 120}
		p.Add(line)
	}
	dots, err := plotter.NewScatter(pos)
	if err != nil {
		return err
	}
	p.Add(dots)
	labels := make([]string, len(l.Formats))
	for i, f := range l.Formats {
		labels[i] = f.String()
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pos, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].XAlign = -0.5 // centred on the node
		lb.Offset.Y = vg.Points(4)
	}
	p.Add(lb)
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = -0.5, float64(top)+0.5
	wt, err := p.WriterTo(8*vg.Inch, vg.Length(2+float64(top))*1.2*vg.Inch, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
