package tanhapprox

// The error table as "positgan approx table" prints it: the settings,
// the measured rows, and the text and CSV reports.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/positgan/positgan/quant"
)

// ErrNoCodes is the error of a Report whose code range holds no code of
// its posit format.
var ErrNoCodes = errors.New("tanhapprox: no code of the format in the range")

// A Report says what an error table measures: the methods compared for
// each function, input set (a), the codes of the bitwise methods' posit
// format with values in [CodeLo, CodeHi], input set (b), GridN points
// evenly spaced on [GridLo, GridHi], and the timing.
type Report struct {
	Fns     []Func
	Methods Methods
	// CodeLo and CodeHi bound the codes of input set (a) by value;
	// AllCodes says that they take in every finite code, for the heading.
	CodeLo, CodeHi float64
	AllCodes       bool
	GridLo, GridHi float64
	GridN          int
	// CostN is the number of inputs each method is timed on (BenchInputs
	// with Seed); 0 leaves the cost columns empty, and the table the same
	// from run to run.
	CostN int
	Seed  uint64
}

// A Table is a Report measured: its rows in ErrorTable's order.
type Table struct {
	Report
	Rows   []Row
	NCodes int // the number of inputs in set (a)
}

// Measure measures the report's rows. A code range without a code of
// Methods.Posit is ErrNoCodes.
func (r Report) Measure() (*Table, error) {
	codes := CodeValues(r.Methods.Posit, r.CodeLo, r.CodeHi)
	if len(codes) == 0 {
		return nil, fmt.Errorf("%w: %v codes in [%g,%g]", ErrNoCodes, r.Methods.Posit, r.CodeLo, r.CodeHi)
	}
	var bench []float32
	if r.CostN > 0 {
		bench = BenchInputs(r.CostN, r.Seed)
	}
	rows, err := ErrorTable(r.Fns, r.Methods, codes, Grid(r.GridLo, r.GridHi, r.GridN), bench)
	if err != nil {
		return nil, err
	}
	return &Table{Report: r, Rows: rows, NCodes: len(codes)}, nil
}

// codeSet and gridSet describe the two input sets, as the CSV's inputs
// column and the text's heading name them.
func (t *Table) codeSet() string {
	if t.AllCodes {
		return fmt.Sprintf("all finite %v codes", t.Methods.Posit)
	}
	return fmt.Sprintf("%v codes in [%g,%g]", t.Methods.Posit, t.CodeLo, t.CodeHi)
}

func (t *Table) gridSet() string {
	return fmt.Sprintf("grid [%g,%g] N=%d", t.GridLo, t.GridHi, t.GridN)
}

// WriteCSV writes the rows as CSV (WriteTableCSV).
func (t *Table) WriteCSV(w io.Writer) error {
	return WriteTableCSV(w, t.Rows, t.codeSet(), t.gridSet())
}

// WriteText writes the table as a report: what was measured, a block of
// rows per function with the cost relative to the exact row, and, if
// tanh is among the functions, which input sets reproduce the published
// figures (WritePublished).
func (t *Table) WriteText(w io.Writer) error {
	p := t.Methods.Posit
	bw := bufio.NewWriter(w)
	values := fmt.Sprintf("%d values", t.NCodes)
	if t.NCodes == 1 {
		values = "1 value"
	}
	fmt.Fprintf(bw, "Absolute error against math.Tanh and 1/(1+e^-x) (float64), over\n")
	fmt.Fprintf(bw, "  (a) codes: %s (%s)\n", t.codeSet(), values)
	fmt.Fprintf(bw, "  (b) grid:  %d points evenly spaced on [%g,%g] (step %g)\n", t.GridN, t.GridLo, t.GridHi, (t.GridHi-t.GridLo)/float64(t.GridN-1))
	fmt.Fprintf(bw, "The bitwise methods round each input to %v; bitwise-corrected uses theta=%g, delta=%g;\n", p, t.Methods.Theta, t.Methods.Delta)
	fmt.Fprintf(bw, "--rounded rounds delta to %v, giving exactly the posit hardware's output.\n", p)
	if t.CostN > 0 {
		fmt.Fprintf(bw, "Cost: best ns per element of Apply on %d float32 values ~ N(0,4), seed %d (a rough timing;\n", t.CostN, t.Seed)
		fmt.Fprintf(bw, "see go test -bench ./tanhapprox for benchmarks); x exact: relative to the exact row.\n")
	}
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	var exactNS float64
	for i, r := range t.Rows {
		if i == 0 || t.Rows[i-1].Fn != r.Fn {
			fmt.Fprintf(tw, "\n%v\tcodes max\tcodes mean\tgrid max\tgrid mean\tns/elem\tx exact\n", r.Fn)
			exactNS = r.NS
		}
		cost, rel := "-", "-"
		if r.NS > 0 {
			cost = fmt.Sprintf("%.2f", r.NS)
			if exactNS > 0 {
				rel = fmt.Sprintf("%.2f", r.NS/exactNS)
			}
		}
		fmt.Fprintf(tw, "%s\t%.5f\t%.5f\t%.5f\t%.5f\t%s\t%s\n", r.Method, r.Codes.Max, r.Codes.Mean, r.Grid.Max, r.Grid.Mean, cost, rel)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, fn := range t.Fns {
		if fn == Tanh {
			if err := WritePublished(bw); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// WritePublished writes which input sets reproduce the published figures
// of the posit(16,0) bitwise tanh (CheckPublished), and what follows.
func WritePublished(w io.Writer) error {
	p, err := CheckPublished()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPublished (posit(16,0) bitwise tanh): plain max %g mean %g; corrected (theta %g, delta %g) max %g mean %g.\n",
		PublishedPlainMax, PublishedPlainMean, DefaultTheta, DefaultDelta, PublishedCorrectedMax, PublishedCorrectedMean)
	fmt.Fprintln(w, "Errors of the same methods here, by input set (R = 2s-1 is exact; it is a posit(16,0) value anyway):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "input set\tplain max\tplain mean\tcorr max\tcorr mean\treproduces\n")
	for _, r := range p.Rows {
		verdict := "yes"
		if len(r.Off) > 0 {
			verdict = "no: " + strings.Join(r.Off, ", ")
		}
		fmt.Fprintf(tw, "%s\t%.5f\t%.5f\t%.5f\t%.5f\t%s\n", r.Set, r.Plain.Max, r.Plain.Mean, r.Corrected.Max, r.Corrected.Mean, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "(reproduces: equal when rounded to the published digits, 3 for plain, 4 for corrected)")
	if p.GridReproduces {
		fmt.Fprintln(w, "So the published figures are errors over a uniform grid on [-8,8] (step 0.01, or 0.1), inputs")
		fmt.Fprintln(w, "rounded to posit(16,0): not over every posit(16,0) input. Over every code the plain maximum")
		fmt.Fprintf(w, "is the same, but the corrected maximum is %.4f, at x = %.4f, where R first passes -theta:\n", p.Codes.Max, p.Codes.ArgMax)
		fmt.Fprintln(w, "a spike of the corrected error narrower than the grid step.")
	} else {
		fmt.Fprintln(w, "None of these input sets reproduces all four published figures.")
	}
	return nil
}

// A Spec names an approximation by its parts, as "positgan approx eval"
// takes them from its flags.
type Spec struct {
	// Method is exact, bitwise, bitwise-corrected (tanh only) or pwl.
	Method string
	Posit  quant.Posit // the bitwise methods' posit(n,0)
	// Theta and Delta are the corrected tanh's threshold and correction.
	Theta, Delta float64
	// Rounded rounds a bitwise method's output to Posit (Bitwise.RoundedOutput).
	Rounded bool
	Pieces  int          // pwl's piece count K
	Output  quant.Format // if not nil, pwl's outputs are rounded to it
}

// New returns the approximation of fn s names.
func (s Spec) New(fn Func) (Approx, error) {
	var b Bitwise
	var err error
	switch s.Method {
	case "exact":
		return Exact{Fn: fn}, nil
	case "pwl":
		p, err := NewPWL(fn, s.Pieces)
		if err != nil {
			return nil, err
		}
		if s.Output != nil {
			p = p.WithOutput(s.Output)
		}
		return p, nil
	case "bitwise":
		b, err = NewBitwise(fn, s.Posit)
	case "bitwise-corrected":
		if fn != Tanh {
			return nil, fmt.Errorf("tanhapprox: bitwise-corrected is a tanh method, not %v", fn)
		}
		b, err = NewCorrectedTanh(s.Posit, s.Theta, s.Delta)
	default:
		return nil, fmt.Errorf("tanhapprox: unknown method %q (want exact, bitwise, bitwise-corrected or pwl)", s.Method)
	}
	if err != nil {
		return nil, err
	}
	if s.Rounded {
		b = b.RoundedOutput()
	}
	return b, nil
}
