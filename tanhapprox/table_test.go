package tanhapprox

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// five prints a figure as the table does, to 5 decimals.
func five(x float64) string { return fmt.Sprintf("%.5f", x) }

// The error table of the default settings (posit(16,0), the published
// theta and delta, all codes and the grid of step 0.01 on [-8,8]): rows
// and errors as "positgan approx table" printed them before the table
// moved here.
func TestErrorTable(t *testing.T) {
	p16 := posit(t, 16, 0)
	m := Methods{Posit: p16, Theta: DefaultTheta, Delta: DefaultDelta, Pieces: []int{2}}
	codes := CodeValues(p16, math.Inf(-1), math.Inf(1))
	rows, err := ErrorTable([]Func{Tanh, Sigmoid}, m, codes, Grid(-8, 8, 1601), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.Fn.String()+" "+r.Method)
		if r.NS != 0 {
			t.Errorf("%v %s: timed without bench inputs", r.Fn, r.Method)
		}
		if r.Codes.N != len(codes) || r.Grid.N != 1601 {
			t.Errorf("%v %s: %d and %d inputs, want %d and 1601", r.Fn, r.Method, r.Codes.N, r.Grid.N, len(codes))
		}
	}
	want := []string{"tanh exact", "tanh bitwise", "tanh bitwise-corrected", "tanh bitwise-corrected --rounded", "tanh pwl:2",
		"sigmoid exact", "sigmoid bitwise", "sigmoid pwl:2"}
	if !slices.Equal(names, want) {
		t.Fatalf("rows %q, want %q", names, want)
	}
	for _, tc := range []struct {
		row  int
		want string // codes max, codes mean, grid max, grid mean
	}{
		{0, "0.00000 0.00000 0.00000 0.00000"},
		{1, "0.09800 0.04013 0.09801 0.05591"},
		{2, "0.03843 0.01358 0.03788 0.00858"},
		{6, "0.04900 0.01274 0.04900 0.03253"},
	} {
		r := rows[tc.row]
		if got := strings.Join([]string{five(r.Codes.Max), five(r.Codes.Mean), five(r.Grid.Max), five(r.Grid.Mean)}, " "); got != tc.want {
			t.Errorf("%s: %s, want %s", names[tc.row], got, tc.want)
		}
	}
}

// Methods names each pwl:K also with rounded outputs when PWLOut is set,
// and refuses a bad piece count or format.
func TestMethodsOf(t *testing.T) {
	p8 := posit(t, 8, 0)
	ms, err := Methods{Posit: posit(t, 16, 0), Pieces: []int{3}, PWLOut: p8}.Of(Sigmoid)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if want := []string{"exact", "bitwise", "pwl:3", "pwl:3 --format posit(8,0)"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	// pwl:2's tail 0.9178 of tanh rounds to 59/64 in posit(8,0).
	tanh, err := Methods{Posit: p8, Theta: DefaultTheta, Delta: DefaultDelta, Pieces: []int{2}, PWLOut: p8}.Of(Tanh)
	if err != nil {
		t.Fatal(err)
	}
	if last := tanh[len(tanh)-1]; last.Approx.At(10) != 59.0/64 {
		t.Errorf("%s at 10 = %g, want 59/64", last.Name, last.Approx.At(10))
	}
	for _, m := range []Methods{
		{Posit: posit(t, 16, 1)},
		{Posit: p8, Theta: DefaultTheta, Delta: -1},
		{Posit: p8, Theta: DefaultTheta, Delta: DefaultDelta, Pieces: []int{1}},
	} {
		if _, err := m.Of(Tanh); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}

// Timing fills NS with a positive figure for every row.
func TestErrorTableBench(t *testing.T) {
	p8 := posit(t, 8, 0)
	bench := BenchInputs(256, 1)
	if again := BenchInputs(256, 1); !slices.Equal(bench, again) {
		t.Error("BenchInputs differs between two calls with one seed")
	}
	rows, err := ErrorTable([]Func{Sigmoid}, Methods{Posit: p8}, CodeValues(p8, -1, 1), Grid(-1, 1, 3), bench)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !(r.NS > 0) {
			t.Errorf("%s: NS %g, want a time", r.Method, r.NS)
		}
	}
}

// The published figures are reproduced by the grid of step 0.01 on
// [-8,8], and not by all codes: the conclusion "approx table" prints.
func TestCheckPublished(t *testing.T) {
	p, err := CheckPublished()
	if err != nil {
		t.Fatal(err)
	}
	if !p.GridReproduces {
		t.Error("the grid of step 0.01 does not reproduce the published figures")
	}
	if len(p.Rows) != 6 {
		t.Fatalf("%d rows, want 6", len(p.Rows))
	}
	for _, tc := range []struct {
		set  string
		want string // plain max, plain mean, corr max, corr mean; figures off
	}{
		{"grid [-8,8] step 0.01 (1601)", "0.09801 0.05591 0.03788 0.00858 []"},
		{"all finite posit(16,0) codes", "0.09800 0.04013 0.03843 0.01358 [plain mean corr max corr mean]"},
	} {
		i := slices.IndexFunc(p.Rows, func(r PublishedRow) bool { return r.Set == tc.set })
		if i < 0 {
			t.Errorf("no row %q", tc.set)
			continue
		}
		r := p.Rows[i]
		got := fmt.Sprintf("%s %s %s %s %v", five(r.Plain.Max), five(r.Plain.Mean), five(r.Corrected.Max), five(r.Corrected.Mean), r.Off)
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.set, got, tc.want)
		}
	}
	if five(p.Codes.Max) != "0.03843" || math.Abs(p.Codes.ArgMax+1.066) > 1e-3 {
		t.Errorf("corrected tanh over all codes: max %g at %g, want 0.03843 at -1.066", p.Codes.Max, p.Codes.ArgMax)
	}
}

func TestRoundTo(t *testing.T) {
	for _, tc := range []struct {
		x      float64
		digits int
		want   float64
	}{
		{0.09801, 3, 0.098},
		{0.05591, 3, 0.056},
		{0.037884, 4, 0.0379},
		{0.00858, 4, 0.0086},
	} {
		if got := roundTo(tc.x, tc.digits); got != tc.want {
			t.Errorf("roundTo(%g, %d) = %g, want %g", tc.x, tc.digits, got, tc.want)
		}
	}
}
