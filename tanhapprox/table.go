package tanhapprox

// Error tables: the methods of this package side by side, measured on
// two input sets and timed, as "positgan approx table" prints them.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/positgan/positgan/quant"
)

// A Method is a named approximation of an error table.
type Method struct {
	// Name is the row's name as "positgan approx table" prints it:
	// exact, bitwise, bitwise-corrected, bitwise-corrected --rounded,
	// pwl:K and pwl:K --format F.
	Name   string
	Approx Approx
}

// Methods says which approximations an error table compares.
type Methods struct {
	Posit        quant.Posit  // the format of the bitwise methods, posit(n,0)
	Theta, Delta float64      // the corrected tanh's threshold and correction
	Pieces       []int        // the piece counts of the piecewise-linear methods
	PWLOut       quant.Format // if not nil, each pwl:K also with outputs rounded to it
}

// Of returns the approximations of fn the table compares, in its order:
// the exact function, the bitwise method, for tanh the corrected bitwise
// tanh (also with its correction rounded to the posit format), and pwl:K
// for each piece count (each also rounded to PWLOut if set).
func (m Methods) Of(fn Func) ([]Method, error) {
	ms := []Method{{"exact", Exact{Fn: fn}}}
	b, err := NewBitwise(fn, m.Posit)
	if err != nil {
		return nil, err
	}
	ms = append(ms, Method{"bitwise", b})
	if fn == Tanh {
		corr, err := NewCorrectedTanh(m.Posit, m.Theta, m.Delta)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Method{"bitwise-corrected", corr}, Method{"bitwise-corrected --rounded", corr.RoundedOutput()})
	}
	for _, k := range m.Pieces {
		p, err := NewPWL(fn, k)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Method{fmt.Sprintf("pwl:%d", k), p})
		if m.PWLOut != nil {
			ms = append(ms, Method{fmt.Sprintf("pwl:%d --format %v", k, m.PWLOut), p.WithOutput(m.PWLOut)})
		}
	}
	return ms, nil
}

// A Row is one method's errors on the two input sets of an error table,
// and its cost.
type Row struct {
	Fn          Func
	Method      string  // Method.Name
	Codes, Grid Stats   // the errors over the codes and over the grid
	NS          float64 // least ns per element of Apply (TimeApply); 0: not timed
}

// ErrorTable measures the methods m compares for each function of fns,
// over the inputs codes and grid (see CodeValues and Grid). If bench is
// not empty it also times each method's Apply on it (see TimeApply),
// which makes the rows vary from run to run.
func ErrorTable(fns []Func, m Methods, codes, grid []float64, bench []float32) ([]Row, error) {
	var rows []Row
	for _, fn := range fns {
		ms, err := m.Of(fn)
		if err != nil {
			return nil, err
		}
		for _, mt := range ms {
			r := Row{Fn: fn, Method: mt.Name, Codes: Measure(mt.Approx, codes), Grid: Measure(mt.Approx, grid)}
			if len(bench) > 0 {
				r.NS = TimeApply(mt.Approx, bench)
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// BenchInputs returns n float32 inputs for timing, drawn from N(0,4)
// with a PCG seeded with seed.
func BenchInputs(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 0))
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64() * 2)
	}
	return xs
}

// TimeApply returns the least time per element, in ns, of a.Apply over
// src in repeated runs lasting about 30 ms in all: a rough timing, for a
// table; the package's benchmarks measure properly.
func TimeApply(a Approx, src []float32) float64 {
	dst := make([]float32, len(src))
	best := math.Inf(1)
	start := time.Now()
	for rep := 0; rep < 3 || time.Since(start) < 30*time.Millisecond; rep++ {
		t := time.Now()
		a.Apply(dst, src)
		best = math.Min(best, float64(time.Since(t).Nanoseconds())/float64(len(src)))
	}
	return best
}

// The published errors of the posit(16,0) bitwise tanh: plain, and
// corrected with DefaultTheta and DefaultDelta. They are printed to 3
// and 4 digits.
const (
	PublishedPlainMax, PublishedPlainMean         = 0.098, 0.056
	PublishedCorrectedMax, PublishedCorrectedMean = 0.0379, 0.0086
)

// A PublishedRow holds the errors of the posit(16,0) bitwise tanh, plain
// and corrected, over one input set.
type PublishedRow struct {
	Set              string // the input set, e.g. "grid [-8,8] step 0.01 (1601)"
	Plain, Corrected Stats
	// Off names the published figures the errors do not reproduce, in
	// the order "plain max", "plain mean", "corr max", "corr mean"; a
	// figure is reproduced when the error rounded to its printed digits
	// equals it.
	Off []string
}

// Published is what CheckPublished finds.
type Published struct {
	Rows []PublishedRow
	// GridReproduces reports whether the uniform grid of step 0.01 on
	// [-8,8] reproduces all four figures.
	GridReproduces bool
	// Codes are the corrected tanh's errors over every finite
	// posit(16,0) code.
	Codes Stats
}

// CheckPublished measures the posit(16,0) bitwise tanh, plain and
// corrected with the published constants, on candidate input sets
// (uniform grids, all codes, the codes in [-8,8]), and says which
// reproduce the published figures.
func CheckPublished() (Published, error) {
	p16, err := quant.NewPosit(16, 0)
	if err != nil {
		return Published{}, err
	}
	plain, err := NewBitwise(Tanh, p16)
	if err != nil {
		return Published{}, err
	}
	corr, err := NewCorrectedTanh(p16, DefaultTheta, DefaultDelta)
	if err != nil {
		return Published{}, err
	}
	const (
		other = iota
		grid  // the grid the conclusion is about
		codes // all codes
	)
	sets := []struct {
		name string
		xs   []float64
		role int
	}{
		{"grid [-8,8] step 0.1 (161)", Grid(-8, 8, 161), other},
		{"grid [-8,8] step 0.01 (1601)", Grid(-8, 8, 1601), grid},
		{"grid [-8,8] step 0.001 (16001)", Grid(-8, 8, 16001), other},
		{"grid [-4,4] step 0.01 (801)", Grid(-4, 4, 801), other},
		{"all finite posit(16,0) codes", CodeValues(p16, math.Inf(-1), math.Inf(1)), codes},
		{"posit(16,0) codes in [-8,8]", CodeValues(p16, -8, 8), other},
	}
	var p Published
	for _, s := range sets {
		r := PublishedRow{Set: s.name, Plain: Measure(plain, s.xs), Corrected: Measure(corr, s.xs)}
		for _, f := range []struct {
			name          string
			got, want     float64
			printedDigits int
		}{
			{"plain max", r.Plain.Max, PublishedPlainMax, 3},
			{"plain mean", r.Plain.Mean, PublishedPlainMean, 3},
			{"corr max", r.Corrected.Max, PublishedCorrectedMax, 4},
			{"corr mean", r.Corrected.Mean, PublishedCorrectedMean, 4},
		} {
			if roundTo(f.got, f.printedDigits) != f.want {
				r.Off = append(r.Off, f.name)
			}
		}
		switch s.role {
		case grid:
			p.GridReproduces = len(r.Off) == 0
		case codes:
			p.Codes = r.Corrected
		}
		p.Rows = append(p.Rows, r)
	}
	return p, nil
}

// roundTo rounds x to digits decimal digits.
func roundTo(x float64, digits int) float64 {
	s := math.Pow(10, float64(digits))
	return math.Round(x*s) / s
}
