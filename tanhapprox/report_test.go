package tanhapprox_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/tanhapprox"
)

// The bitwise tanh of 1 in posit(16,0), by hand: 2x = 2 is code 0x6000,
// the sigmoid code (0x6000^0x8000)>>2 = 0x3800 is 0.875, and 2·0.875-1 =
// 0.75.
func ExampleSpec_New() {
	p16, _ := quant.NewPosit(16, 0)
	a, err := tanhapprox.Spec{Method: "bitwise", Posit: p16}.New(tanhapprox.Tanh)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.At(1))
	// Output: 0.75
}

func TestSpecNew(t *testing.T) {
	p8, _ := quant.NewPosit(8, 0)
	for _, tc := range []struct {
		s    tanhapprox.Spec
		fn   tanhapprox.Func
		x    float64
		want float64
	}{
		{tanhapprox.Spec{Method: "exact"}, tanhapprox.Sigmoid, 0, 0.5},
		// 0.3 rounds to 19/64 = 0x13 in posit(8,0); (0x13^0x80)>>2 = 0x24 = 36/64.
		{tanhapprox.Spec{Method: "bitwise", Posit: p8}, tanhapprox.Sigmoid, 0.3, 0.5625},
		// pwl:2's tail, 0.9178, rounds to 59/64 in posit(8,0).
		{tanhapprox.Spec{Method: "pwl", Pieces: 2, Output: p8}, tanhapprox.Tanh, 10, 0.921875},
	} {
		a, err := tc.s.New(tc.fn)
		if err != nil || a.At(tc.x) != tc.want {
			t.Errorf("%+v at %g: %v, %v; want %g", tc.s, tc.x, a, err, tc.want)
		}
	}
	for _, s := range []tanhapprox.Spec{{Method: "cubic"}, {Method: "pwl", Pieces: 1}, {Method: "bitwise-corrected", Posit: p8}} {
		if _, err := s.New(tanhapprox.Sigmoid); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}

func TestReport(t *testing.T) {
	p16, _ := quant.NewPosit(16, 0)
	r := tanhapprox.Report{Fns: []tanhapprox.Func{tanhapprox.Sigmoid}, Methods: tanhapprox.Methods{Posit: p16},
		CodeLo: 0.1, CodeHi: 0.1, GridLo: -1, GridHi: 1, GridN: 3}
	if _, err := r.Measure(); !errors.Is(err, tanhapprox.ErrNoCodes) {
		t.Errorf("no codes in range: %v, want ErrNoCodes", err)
	}
	r.CodeLo, r.CodeHi = -1, 1
	tb, err := r.Measure()
	if err != nil {
		t.Fatal(err)
	}
	// posit(16,0) has 2^14 codes in (0,1], 2^14 in [-1,0), and 0.
	if tb.NCodes != 1<<15+1 || len(tb.Rows) != 2 {
		t.Fatalf("%d codes, %d rows", tb.NCodes, len(tb.Rows))
	}
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "(a) codes: posit(16,0) codes in [-1,1] (32769 values)") || strings.Contains(b.String(), "Published") {
		t.Errorf("text:\n%s", b.String())
	}
	// The bitwise sigmoid on the grid -1, 0, 1 gives 0.25, 0.5 and 0.75,
	// so its largest error is 0.75 - sigmoid(1).
	want := 0.75 - 1/(1+math.Exp(-1))
	if tb.Rows[1].Method != "bitwise" || tb.Rows[1].Grid.Max != want {
		t.Errorf("row 1 %s, grid max %v; want bitwise, %v", tb.Rows[1].Method, tb.Rows[1].Grid.Max, want)
	}
	if !strings.Contains(b.String(), fmt.Sprintf("bitwise  %.5f", tb.Rows[1].Codes.Max)) {
		t.Errorf("no bitwise row in\n%s", b.String())
	}
}
