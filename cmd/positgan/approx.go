package main

import (
	"bufio"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/positgan/positgan/internal/numfmt"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/tanhapprox"
)

// approxCmd groups the commands for sigmoid/tanh approximations.
func approxCmd() *command {
	return &command{name: "approx", summary: "posit sigmoid/tanh approximations (table, eval)", sub: []*command{
		{name: "table", usage: "[--fn tanh,sigmoid] [--format posit(16,0)] [--codes all|LO:HI] [--grid LO:HI:N] [--pwl 2,3,4,8] [flags]",
			summary: "Print, for each approximation method, the max and mean absolute error against math.Tanh and\n" +
				"1/(1+e^-x) over the codes of a posit(n,0) format and over a uniform grid, and the cost per\n" +
				"element; then check the published posit(16,0) bitwise-tanh figures.",
			setup: setupApproxTable},
		{name: "eval", usage: "--fn tanh|sigmoid --method bitwise|bitwise-corrected|pwl:K|exact [--format posit(16,0)] < numbers",
			summary: "Read one number a line from stdin and write CSV input,output. The bitwise methods round the\n" +
				"input to --format first; pwl:K rounds its output to --format only when --format is given.",
			setup: setupApproxEval},
	}}
}

// approxFlags are the method parameters table and eval share.
type approxFlags struct {
	format       *string
	theta, delta *float64
}

func addApproxFlags(fs *flag.FlagSet) approxFlags {
	return approxFlags{
		format: fs.String("format", "posit(16,0)", "posit(n,0) format the bitwise methods round to (table: input set (a) is its codes)"),
		theta:  fs.Float64("theta", tanhapprox.DefaultTheta, "threshold of the bitwise-corrected tanh"),
		delta:  fs.Float64("delta", tanhapprox.DefaultDelta, "correction of the bitwise-corrected tanh"),
	}
}

// positFormat parses --format as a posit(n,0) format for the bitwise methods.
func (a approxFlags) positFormat() (quant.Posit, error) {
	f, err := quant.Parse(*a.format)
	if err != nil {
		return quant.Posit{}, usageError{err}
	}
	p, ok := f.(quant.Posit)
	if !ok || p.ES() != 0 || p.ScaleExp() != 0 || p.N() < 3 {
		return quant.Posit{}, usagef("--format %s: the bitwise methods need posit(n,0), n >= 3, no scale", f)
	}
	return p, nil
}

// parseFuncs parses a comma-separated list of tanh and sigmoid.
func parseFuncs(s string) ([]tanhapprox.Func, error) {
	var fns []tanhapprox.Func
	for _, name := range strings.Split(s, ",") {
		fn, err := tanhapprox.ParseFunc(strings.TrimSpace(name))
		if err != nil {
			return nil, usagef("--fn: %q is not tanh or sigmoid", name)
		}
		fns = append(fns, fn)
	}
	return fns, nil
}

// parseError words a *tanhapprox.ParseError of the flag (or argument)
// name as a usage error.
func parseError(name string, err error) error {
	var pe *tanhapprox.ParseError
	if errors.As(err, &pe) {
		return usagef("%s %q: want %s", name, pe.Text, pe.Want)
	}
	return err
}

// ---- approx eval ----

func setupApproxEval(fs *flag.FlagSet) func([]string, stdio) error {
	fnName := fs.String("fn", "tanh", "function: tanh or sigmoid")
	method := fs.String("method", "bitwise", "bitwise, bitwise-corrected (tanh only), pwl:K (K >= 2) or exact")
	rounded := fs.Bool("rounded", false, "bitwise-corrected: round delta to --format, giving exactly the posit hardware's output")
	af := addApproxFlags(fs)
	return func(args []string, io stdio) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (numbers are read from stdin)", args[0])
		}
		formatSet := flagSet(fs, "format")
		fn, err := tanhapprox.ParseFunc(*fnName)
		if err != nil {
			return usagef("--fn: %q is not tanh or sigmoid", *fnName)
		}
		a, err := evalMethod(fn, *method, af, formatSet, *rounded)
		if err != nil {
			return err
		}
		return approxEval(io.out, io.in, a)
	}
}

// evalMethod builds the approximation eval's flags name
// (tanhapprox.Spec).
func evalMethod(fn tanhapprox.Func, method string, af approxFlags, formatSet, rounded bool) (tanhapprox.Approx, error) {
	s := tanhapprox.Spec{Method: method, Theta: *af.theta, Delta: *af.delta, Rounded: rounded}
	var err error
	if k, ok, err := tanhapprox.ParsePWLMethod(method); ok {
		if err != nil {
			return nil, parseError("method", err)
		}
		s.Method, s.Pieces = "pwl", k
		if formatSet {
			if s.Output, err = quant.Parse(*af.format); err != nil {
				return nil, usageError{err}
			}
		}
	} else if method != "exact" && method != "bitwise" && method != "bitwise-corrected" {
		return nil, usagef("--method %q: want bitwise, bitwise-corrected, pwl:K or exact", method)
	} else if method != "exact" {
		if s.Posit, err = af.positFormat(); err != nil {
			return nil, err
		}
		if method == "bitwise-corrected" && fn != tanhapprox.Tanh {
			return nil, usagef("--method bitwise-corrected is a tanh method, not %v", fn)
		}
	}
	a, err := s.New(fn)
	if err != nil {
		return nil, usageError{err}
	}
	return a, nil
}

// approxEval writes a row for each number up to the first bad line, then
// returns the error naming that line.
func approxEval(w io.Writer, r io.Reader, a tanhapprox.Approx) error {
	xs, bad := readNumbers(r, 64)
	if len(xs) == 0 && bad != nil {
		return bad // no header without rows
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "input,output")
	for _, x := range xs {
		fmt.Fprintf(bw, "%s,%s\n", numfmt.Exact(x, 64), numfmt.Exact(a.At(x), 64))
	}
	return cmp.Or(bw.Flush(), bad)
}

// ---- approx table ----

func setupApproxTable(fs *flag.FlagSet) func([]string, stdio) error {
	fns := fs.String("fn", "tanh,sigmoid", "functions: tanh, sigmoid or both, comma-separated")
	codes := fs.String("codes", "all", "input set (a): the finite codes of --format with values in LO:HI, or all")
	grid := fs.String("grid", "-8:8:1601", "input set (b): LO:HI:N, N points evenly spaced on [LO,HI] (-8:8:1601 has step 0.01)")
	pieces := fs.String("pwl", "2,3,4,8", "piece counts K of the piecewise-linear rows, comma-separated (empty: none)")
	pwlOut := fs.String("pwl-out", "", "also show the pwl rows with outputs rounded to this format")
	cost := fs.Bool("cost", true, "time each method (ns per element of a float32 slice; a rough timing, use go test -bench for benchmarks)")
	costN := fs.Int("cost-n", 1<<16, "elements in the timing slice")
	seed := fs.Uint64("seed", 1, "seed of the timing slice's random inputs")
	csv := fs.Bool("csv", false, "write CSV fn,method,inputs,n,max_err,mean_err,argmax,ns_per_elem instead of the report")
	af := addApproxFlags(fs)
	return func(args []string, io stdio) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		var r tanhapprox.Report
		m := &r.Methods
		var err error
		if r.Fns, err = parseFuncs(*fns); err != nil {
			return err
		}
		if m.Posit, err = af.positFormat(); err != nil {
			return err
		}
		if m.Posit.N() > 20 {
			return usagef("--format %v: table enumerates codes of at most 20 bits", m.Posit)
		}
		if *codes == "all" {
			r.AllCodes, r.CodeLo, r.CodeHi = true, math.Inf(-1), math.Inf(1)
		} else if r.CodeLo, r.CodeHi, err = tanhapprox.ParseRange(*codes); err != nil {
			return parseError("--codes", err)
		}
		if r.GridLo, r.GridHi, r.GridN, err = tanhapprox.ParseGrid(*grid); err != nil {
			return parseError("--grid", err)
		}
		if m.Pieces, err = tanhapprox.ParsePieces(*pieces); err != nil {
			return parseError("--pwl", err)
		}
		if *pwlOut != "" {
			if m.PWLOut, err = quant.Parse(*pwlOut); err != nil {
				return usageError{err}
			}
		}
		m.Theta, m.Delta = *af.theta, *af.delta
		if _, err := tanhapprox.NewCorrectedTanh(m.Posit, m.Theta, m.Delta); err != nil {
			return usageError{err}
		}
		if *costN < 1 {
			return usagef("--cost-n %d: want at least 1", *costN)
		}
		if *cost {
			r.CostN, r.Seed = *costN, *seed
		}
		t, err := r.Measure()
		if errors.Is(err, tanhapprox.ErrNoCodes) {
			return usagef("--codes %g:%g: no %v code in that range", r.CodeLo, r.CodeHi, m.Posit)
		} else if err != nil {
			return err
		}
		if *csv {
			return t.WriteCSV(io.out)
		}
		return t.WriteText(io.out)
	}
}
