package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

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

// parsePieces parses "pwl:K" (or "pwlK") and returns K.
func parsePieces(method string) (int, bool, error) {
	s, ok := strings.CutPrefix(method, "pwl")
	if !ok {
		return 0, false, nil
	}
	s = strings.TrimPrefix(s, ":")
	k, err := strconv.Atoi(s)
	if err != nil || k < 2 || k > tanhapprox.MaxPieces {
		return 0, true, usagef("method %q: want pwl:K with K an integer in [2,%d]", method, tanhapprox.MaxPieces)
	}
	return k, true, nil
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

// evalMethod builds the approximation eval's flags name.
func evalMethod(fn tanhapprox.Func, method string, af approxFlags, formatSet, rounded bool) (tanhapprox.Approx, error) {
	if k, ok, err := parsePieces(method); ok {
		if err != nil {
			return nil, err
		}
		p, err := tanhapprox.NewPWL(fn, k)
		if err != nil {
			return nil, usageError{err}
		}
		if formatSet {
			f, err := quant.Parse(*af.format)
			if err != nil {
				return nil, usageError{err}
			}
			p = p.WithOutput(f)
		}
		return p, nil
	}
	switch method {
	case "exact":
		return tanhapprox.Exact{Fn: fn}, nil
	case "bitwise", "bitwise-corrected":
	default:
		return nil, usagef("--method %q: want bitwise, bitwise-corrected, pwl:K or exact", method)
	}
	p, err := af.positFormat()
	if err != nil {
		return nil, err
	}
	var b tanhapprox.Bitwise
	if method == "bitwise" {
		b, err = tanhapprox.NewBitwise(fn, p)
	} else if fn != tanhapprox.Tanh {
		return nil, usagef("--method bitwise-corrected is a tanh method, not %v", fn)
	} else {
		b, err = tanhapprox.NewCorrectedTanh(p, *af.theta, *af.delta)
	}
	if err != nil {
		return nil, usageError{err}
	}
	if rounded {
		b = b.RoundedOutput()
	}
	return b, nil
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

// tableConfig is what approx table measures.
type tableConfig struct {
	fns          []tanhapprox.Func
	p            quant.Posit
	codeLo       float64 // code range, by value
	codeHi       float64
	allCodes     bool
	gridLo       float64
	gridHi       float64
	gridN        int
	pieces       []int
	pwlOut       quant.Format // nil: pwl outputs not rounded
	theta, delta float64
	cost         bool
	costN        int
	seed         uint64
	csv          bool
}

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
		var c tableConfig
		var err error
		if c.fns, err = parseFuncs(*fns); err != nil {
			return err
		}
		if c.p, err = af.positFormat(); err != nil {
			return err
		}
		if c.p.N() > 20 {
			return usagef("--format %v: table enumerates codes of at most 20 bits", c.p)
		}
		if *codes == "all" {
			c.allCodes, c.codeLo, c.codeHi = true, math.Inf(-1), math.Inf(1)
		} else if c.codeLo, c.codeHi, err = parseRange("--codes", *codes); err != nil {
			return err
		}
		if c.gridLo, c.gridHi, c.gridN, err = parseGrid(*grid); err != nil {
			return err
		}
		if c.pieces, err = parsePieceList(*pieces); err != nil {
			return err
		}
		if *pwlOut != "" {
			if c.pwlOut, err = quant.Parse(*pwlOut); err != nil {
				return usageError{err}
			}
		}
		c.theta, c.delta = *af.theta, *af.delta
		if _, err := tanhapprox.NewCorrectedTanh(c.p, c.theta, c.delta); err != nil {
			return usageError{err}
		}
		if *costN < 1 {
			return usagef("--cost-n %d: want at least 1", *costN)
		}
		c.cost, c.costN, c.seed, c.csv = *cost, *costN, *seed, *csv
		return approxTable(io.out, c)
	}
}

func parseRange(name, s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.ParseFloat(a, 64)
	hi, err2 := strconv.ParseFloat(b, 64)
	if !ok || err1 != nil || err2 != nil || !(lo <= hi) {
		return 0, 0, usagef("%s %q: want LO:HI with LO <= HI", name, s)
	}
	return lo, hi, nil
}

func parseGrid(s string) (lo, hi float64, n int, err error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return 0, 0, 0, usagef("--grid %q: want LO:HI:N", s)
	}
	if lo, hi, err = parseRange("--grid", s[:i]); err != nil {
		return 0, 0, 0, usagef("--grid %q: want LO:HI:N with LO <= HI", s) // the whole flag, not its LO:HI
	}
	n, err = strconv.Atoi(s[i+1:])
	if err != nil || n < 2 || n > 1e8 || lo == hi || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 0, 0, usagef("--grid %q: want LO:HI:N with finite LO < HI and 2 <= N <= 1e8", s)
	}
	return lo, hi, n, nil
}

func parsePieceList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 2 || k > tanhapprox.MaxPieces {
			return nil, usagef("--pwl %q: want piece counts in [2,%d]", f, tanhapprox.MaxPieces)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

func approxTable(w io.Writer, c tableConfig) error {
	codes := tanhapprox.CodeValues(c.p, c.codeLo, c.codeHi)
	if len(codes) == 0 {
		return usagef("--codes %g:%g: no %v code in that range", c.codeLo, c.codeHi, c.p)
	}
	var bench []float32
	if c.cost {
		bench = tanhapprox.BenchInputs(c.costN, c.seed)
	}
	m := tanhapprox.Methods{Posit: c.p, Theta: c.theta, Delta: c.delta, Pieces: c.pieces, PWLOut: c.pwlOut}
	rows, err := tanhapprox.ErrorTable(c.fns, m, codes, tanhapprox.Grid(c.gridLo, c.gridHi, c.gridN), bench)
	if err != nil {
		return err
	}
	codeSet := fmt.Sprintf("%v codes in [%g,%g]", c.p, c.codeLo, c.codeHi)
	if c.allCodes {
		codeSet = fmt.Sprintf("all finite %v codes", c.p)
	}
	gridSet := fmt.Sprintf("grid [%g,%g] N=%d", c.gridLo, c.gridHi, c.gridN)
	if c.csv {
		return tanhapprox.WriteTableCSV(w, rows, codeSet, gridSet)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Absolute error against math.Tanh and 1/(1+e^-x) (float64), over\n")
	fmt.Fprintf(bw, "  (a) codes: %s (%s)\n", codeSet, count(len(codes), "values"))
	fmt.Fprintf(bw, "  (b) grid:  %d points evenly spaced on [%g,%g] (step %g)\n", c.gridN, c.gridLo, c.gridHi, (c.gridHi-c.gridLo)/float64(c.gridN-1))
	fmt.Fprintf(bw, "The bitwise methods round each input to %v; bitwise-corrected uses theta=%g, delta=%g;\n", c.p, c.theta, c.delta)
	fmt.Fprintf(bw, "--rounded rounds delta to %v, giving exactly the posit hardware's output.\n", c.p)
	if c.cost {
		fmt.Fprintf(bw, "Cost: best ns per element of Apply on %d float32 values ~ N(0,4), seed %d (a rough timing;\n", c.costN, c.seed)
		fmt.Fprintf(bw, "see go test -bench ./tanhapprox for benchmarks); x exact: relative to the exact row.\n")
	}
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	var exactNS float64
	for i, r := range rows {
		if i == 0 || rows[i-1].Fn != r.Fn {
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
	for _, fn := range c.fns {
		if fn == tanhapprox.Tanh {
			if err := printPublished(bw); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// printPublished writes which input sets reproduce the published figures
// of the posit(16,0) bitwise tanh (tanhapprox.CheckPublished).
func printPublished(w io.Writer) error {
	p, err := tanhapprox.CheckPublished()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPublished (posit(16,0) bitwise tanh): plain max %g mean %g; corrected (theta %g, delta %g) max %g mean %g.\n",
		tanhapprox.PublishedPlainMax, tanhapprox.PublishedPlainMean, tanhapprox.DefaultTheta, tanhapprox.DefaultDelta,
		tanhapprox.PublishedCorrectedMax, tanhapprox.PublishedCorrectedMean)
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
