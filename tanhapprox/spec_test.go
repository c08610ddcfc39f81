package tanhapprox

import (
	"math"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		fn   Func
		spec string
		x    float64
		want float64 // hand-derived value at x
	}{
		{Tanh, "exact", 0.5, math.Tanh(0.5)},
		// posit(8,0): 2x = 1 is code 0x40; (0x40^0x80)>>2 = 0x30 = 48/64, so
		// s = 0.75 and R = 2s-1 = 0.5.
		{Tanh, "bitwise:posit(8,0)", 0.5, 0.5},
		// 2x = 3 is code 0x68 (0 110 1000: 2·1.5); (0x68^0x80)>>2 = 0x3a = 58/64,
		// R = 0.8125 > theta, so R + delta.
		{Tanh, "bitwise-corrected:posit(8,0)", 1.5, 0.8125 + DefaultDelta},
		// Sigmoid at 0 is the code 0x80>>2 = 0x20 = 0.5 for any posit(n,0).
		{Sigmoid, "bitwise", 0, 0.5},
	} {
		a, err := Parse(tc.fn, tc.spec)
		if err != nil {
			t.Errorf("Parse(%v, %q): %v", tc.fn, tc.spec, err)
			continue
		}
		if got := a.At(tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Parse(%v, %q).At(%g) = %g, want %g", tc.fn, tc.spec, tc.x, got, tc.want)
		}
	}
	// pwl:K is the minimax fit; its error at its breakpoints is at most the
	// documented maximum for K = 3 (0.0290).
	a, err := Parse(Tanh, "pwl:3")
	if err != nil {
		t.Fatal(err)
	}
	for x := -4.0; x <= 4; x += 1.0 / 64 {
		if d := math.Abs(a.At(x) - math.Tanh(x)); d > 0.0291 {
			t.Fatalf("pwl:3 error %g at %g", d, x)
		}
	}
	if a, err := Parse(Tanh, "pwl:4:posit(8,1)"); err != nil || !strings.Contains(a.(PWL).String(), "posit(8,1)") {
		t.Errorf("pwl:4:posit(8,1): %v, %v; want output rounded to posit(8,1)", a, err)
	}
	for _, bad := range []string{"", "tanh", "pwl", "pwl:x", "pwl:1", "exact:posit(8,0)", "bitwise:fp16",
		"bitwise:posit(8,9)", "bitwise-corrected:posit(8,1)"} {
		if _, err := Parse(Tanh, bad); err == nil {
			t.Errorf("Parse(tanh, %q) succeeded", bad)
		}
	}
	if _, err := Parse(Sigmoid, "bitwise-corrected"); err == nil {
		t.Error("bitwise-corrected sigmoid accepted")
	}
}
