package quant

import (
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refTableEncode is the lookup-table rule written out plainly, independent
// of lookup.go: it measures the exact distance |x - v| to the value of
// every code in math/big and keeps the nearest, a tie going to the even
// code, then the smaller. Zeros of both signs are the same distance from
// every x; between them, x's sign decides. Beyond the extremes it
// saturates (x = ±Inf included); NaN takes the first code without a value.
func refTableEncode(vals []float64, x float64) uint32 {
	if math.IsNaN(x) {
		for c, v := range vals {
			if math.IsNaN(v) {
				return uint32(c)
			}
		}
		panic("no NaN code")
	}
	if math.IsInf(x, 0) { // the largest (smallest) value, by the same tie rule
		best := -1
		for c, v := range vals {
			if math.IsNaN(v) {
				continue
			}
			if best < 0 || (x > 0) == (v > vals[best]) && v != vals[best] || v == vals[best] && refPrefer(uint32(c), uint32(best)) {
				best = c
			}
		}
		return uint32(best)
	}
	bx := new(big.Float).SetPrec(2200).SetFloat64(x)
	var bestD *big.Float
	best := -1
	for c, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		d := new(big.Float).SetPrec(2200).SetFloat64(v)
		d.Sub(d, bx).Abs(d)
		switch cmp := 0; {
		case best >= 0:
			cmp = d.Cmp(bestD)
			if cmp > 0 {
				continue
			}
			if cmp == 0 {
				w := vals[best]
				if v == 0 && w == 0 && math.Signbit(v) != math.Signbit(w) {
					if math.Signbit(v) != math.Signbit(x) {
						continue
					}
				} else if !refPrefer(uint32(c), uint32(best)) {
					continue
				}
			}
		}
		best, bestD = c, d
	}
	return uint32(best)
}

// refPrefer reports whether a tie between codes a and b goes to a.
func refPrefer(a, b uint32) bool {
	if a%2 != b%2 {
		return a%2 == 0
	}
	return a < b
}

// tableProbes returns, as float64s, every value and every midpoint of two
// values (computed exactly, then rounded to float32 and to float64), two
// float32 ulps and two float64 ulps either side of each, the zeros, the
// infinities, NaN, and random float32s.
func tableProbes(vals []float64, rng *rand.Rand) []float64 {
	var xs []float64
	add := func(m *big.Float) {
		f32, _ := m.Float32()
		f64, _ := m.Float64()
		k32, k64 := key32(math.Float32bits(f32)), key64(math.Float64bits(f64))
		for d := -2; d <= 2; d++ {
			if x := unkey32(k32 + uint32(d)); x == x {
				xs = append(xs, float64(x))
			}
			if x := unkey64(k64 + uint64(d)); x == x {
				xs = append(xs, x)
			}
		}
	}
	var sorted []float64
	for _, v := range vals {
		if v == v {
			add(new(big.Float).SetFloat64(v))
			sorted = append(sorted, v)
		}
	}
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ { // midpoints of neighbours
		v, w := sorted[i-1], sorted[i]
		if !math.IsInf(v, 0) && !math.IsInf(w, 0) {
			m := new(big.Float).SetPrec(2200).SetFloat64(v)
			m.Add(m, new(big.Float).SetFloat64(w))
			add(m.SetMantExp(m, -1))
		}
	}
	xs = append(xs, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64)
	for range 500 {
		xs = append(xs, float64(math.Float32frombits(rng.Uint32())), rng.NormFloat64())
	}
	return xs
}

// checkTable compares every method of the table format f, whose codes
// have the values vals (NaN for none), with refTableEncode.
func checkTable(t *testing.T, f Format, vals []float64, rng *rand.Rand) {
	t.Helper()
	xs := tableProbes(vals, rng)
	var x32 []float32
	bad := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if bad++; bad <= 10 {
			t.Errorf("%v: "+format, append([]any{f}, args...)...)
		}
	}
	for _, x := range xs {
		c := refTableEncode(vals, x)
		want := vals[c]
		if got := f.Round64(x); !same(got, want) {
			fail("Round64(%g) = %g, want %g (code %d)", x, got, want, c)
		}
		if g, ok := f.(interface{ Encode64(float64) uint32 }); ok {
			if got := g.Encode64(x); got != c {
				fail("Encode64(%g) = %d, want %d", x, got, c)
			}
		}
		if float64(float32(x)) != x && x == x {
			continue
		}
		x32 = append(x32, float32(x))
		if got := f.Encode(float32(x)); got != c {
			fail("Encode(%g) = %d, want %d", x, got, c)
		}
		if got := f.Round(float32(x)); !same(float64(got), float64(float32(want))) {
			fail("Round(%g) = %g, want %g", x, got, want)
		}
	}
	got := make([]float32, len(x32))
	f.RoundSlice(got, x32)
	for i, x := range x32 {
		if want := float32(vals[refTableEncode(vals, float64(x))]); !same(float64(got[i]), float64(want)) {
			fail("RoundSlice: %g gave %g, want %g", x, got[i], want)
		}
	}
}

// tablesUnderTest returns tables (as value lists) that cover the rules:
// ties between codes of each parity, duplicates, signed zeros, infinities,
// NaN entries, values that are not float32s, and crowded values.
func tablesUnderTest(rng *rand.Rand) [][]float64 {
	nan, inf := math.NaN(), math.Inf(1)
	negz := math.Copysign(0, -1)
	ts := [][]float64{
		{-1, -0.5, 0, 0.5, 1},
		{-1, -0.25, 0, 0.25, 1},
		{0, 5, 1, nan},                             // neighbours 0 (code 0) and 1 (code 2): both even
		{3, 1, 2, 2, 0, nan, 1, 7},                 // duplicates: 1 and 2 twice
		{negz, 0, 1, -1, nan, -2, 2, 3},            // both zeros
		{-inf, -1, 0, 1, inf, nan},                 // infinities
		{0.1, 0.2, 0.3, 1e-40, 1e300, -1e300, nan}, // not float32s
		{1, 1 + 0x1p-23, 1 + 0x1p-22, 1 + 0x1p-21, 1 + 0x1p-20, 1.5, nan}, // crowded
	}
	// Every value of posit(8,1) and of fp8-e4m3, in code order.
	for _, name := range []string{"posit(8,1)", "fp8-e4m3"} {
		ts = append(ts, sortedValues(MustParse(name)))
	}
	// A random 200-value codebook and a random 1000-value one, with one NaN.
	for _, n := range []int{200, 1000} {
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))
		}
		vs[n/2] = nan
		ts = append(ts, vs)
	}
	return ts
}

// Lookup tables round as the plain reference does on every midpoint of
// two values, every value, and two ulps (float32 and float64) around each.
func TestTableVsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, vals := range tablesUnderTest(rng) {
		f, err := NewTable(vals)
		if err != nil {
			t.Fatalf("NewTable(%v): %v", vals, err)
		}
		padded := vals[:len(vals):len(vals)] // unused codes have no value
		for len(padded) < 1<<f.Bits() {
			padded = append(padded, math.NaN())
		}
		checkTable(t, f, padded, rng)
	}
}

// table(...) names round-trip; a table read from a file is the same as
// the inline one; `positgan format table`'s CSV reads back.
func TestTableParse(t *testing.T) {
	for _, tc := range []struct{ name, canon string }{
		{"table(-1,-0.5,0,0.5,1)", "table(-1,-0.5,0,0.5,1)"},
		{"TABLE( -1, -.5, 0x1p-1, NaN, 1e0 )", "table(-1,-0.5,0.5,nan,1)"},
		{"table(-inf,0,inf,nar)", "table(-inf,0,inf,nan)"},
		{"table(-0,0,1)", "table(-0,0,1)"},
	} {
		f, err := Parse(tc.name)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.name, err)
		}
		if f.String() != tc.canon {
			t.Errorf("Parse(%q) = %v, want %s", tc.name, f, tc.canon)
		}
		if g := MustParse(f.String()); g != f {
			t.Errorf("Parse(%v) is not == to itself", f)
		}
	}
	f := MustParse("table(-1,-0.5,0,0.5,1)")
	if f.Bits() != 3 || f.Decode(5) == f.Decode(5) || f.Encode(float32(math.NaN())) != 5 {
		t.Errorf("table of 5: bits %d, code 5 = %g, NaN encodes to %d; want 3, NaN, 5", f.Bits(), f.Decode(5), f.Encode(float32(math.NaN())))
	}

	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("code,value\n")
	p8 := MustParse("posit(8,1)")
	for c := range 256 {
		v := strconv.FormatFloat(p8.Decode(uint32(c)), 'g', -1, 64)
		if c == 128 {
			v = "NaR"
		}
		csv.WriteString("0x" + strconv.FormatUint(uint64(c), 16) + "," + v + "\n")
	}
	file := filepath.Join(dir, "Posit8 1.csv")
	if err := os.WriteFile(file, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ft, err := Parse("table:" + file)
	if err != nil {
		t.Fatal(err)
	}
	// A table read from a file is its inline table: the name lists the
	// values in code order, so files that hold it carry the values.
	if s := ft.String(); !strings.HasPrefix(s, "table(0,0.000244140625,") || strings.Contains(s, file) {
		t.Errorf("table:FILE is named %.60q..., want its inline name", s)
	}
	if f, err := ParseSelfContained(ft.String()); err != nil || f != ft {
		t.Errorf("table:FILE is %.40v..., which does not parse back to itself: %v", ft, err)
	}
	if _, err := ParseSelfContained("table:" + file); err == nil || !strings.Contains(err.Error(), "names a file") {
		t.Errorf("ParseSelfContained(table:FILE) = %v, want a refusal", err)
	}
	inline, _ := NewTable(sortedValues(p8))
	xs := []float32{0.3, -2500, 1e-9, 7, 0.0625}
	for _, x := range xs {
		if ft.Round(x) != inline.Round(x) {
			t.Errorf("table:FILE rounds %g to %g, the inline table to %g", x, ft.Round(x), inline.Round(x))
		}
	}
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("# a codebook\n-1\n\n0\n1\nnan\n"), 0o644)
	if f, err := Parse("table:" + plain); err != nil || f.Round(0.7) != 1 {
		t.Errorf("plain list: %v, %v", f, err)
	}
}

// sparse makes a file of n bytes that takes no room on disk.
func sparse(t *testing.T, name string, n int64) string {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(n); err != nil {
		t.Fatal(err)
	}
	return name
}

// Bad tables are errors that say what is wrong; a table file is a regular
// file of bounded size, never a device read without end.
func TestTableErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	big := make([]string, MaxTableValues+1)
	for i := range big {
		big[i] = "1"
	}
	for _, tc := range []struct{ name, want string }{
		{"table()", "no values"},
		{"table(1,x)", `table value 1: "x" is not a number`},
		{"table(-1,0,1,2)", "NaN inputs have no code"},
		{"table(nan,nan)", "no code has a value"},
		{"table:", "wants a file name"},
		{"table:" + filepath.Join(dir, "missing.csv"), "no such file"},
		{"table:" + write("bad.csv", "1\n2\nzz\n"), "line 3"},
		{"table:" + write("order.csv", "0,1\n2,2\n"), "code \"2\", want 1"},
		{"table:" + write("empty.csv", "# nothing\n"), "no values"},
		{"table:" + write("big.csv", strings.Join(big, "\n")), "more than 65536 values"},
		{"table:" + sparse(t, filepath.Join(dir, "huge.csv"), 1<<30), "a table file has at most"},
		{"table:" + dir, "not a regular file"},
		{"table:/dev/zero", "not a regular file"},
	} {
		_, err := Parse(tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%.40q) = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// Stochastic rounding picks between the two bracketing values with the
// probability that makes the mean exact.
func TestTableStochastic(t *testing.T) {
	f := MustParse("table(-1,-0.25,0,0.25,1)")
	const n = 1 << 16
	for _, tc := range []struct {
		x      float32
		lo, hi float32
	}{{0.4, 0.25, 1}, {-0.1, -0.25, 0}, {0.25, 0.25, 0.25}, {3, 1, 1}, {-3, -1, -1}} {
		src, dst := make([]float32, n), make([]float32, n)
		for i := range src {
			src[i] = tc.x
		}
		f.RoundSliceStochastic(dst, src, rand.NewPCG(1, 1))
		sum := 0.0
		for _, v := range dst {
			if v != tc.lo && v != tc.hi {
				t.Fatalf("%g rounded to %g, not %g or %g", tc.x, v, tc.lo, tc.hi)
			}
			sum += float64(v)
		}
		want := float64(tc.x)
		if tc.x > 1 || tc.x < -1 {
			want = float64(tc.lo)
		}
		if mean := sum / n; math.Abs(mean-want) > 0.01 {
			t.Errorf("mean of stochastic %g = %g, want %g", tc.x, mean, want)
		}
	}
}
