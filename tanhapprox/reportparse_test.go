package tanhapprox_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/positgan/positgan/tanhapprox"
)

// The report's texts read as documented; a bad one is a *ParseError
// naming it (the item, for piece counts).
func TestReportParse(t *testing.T) {
	if lo, hi, err := tanhapprox.ParseRange("-1.5:2"); lo != -1.5 || hi != 2 || err != nil {
		t.Errorf("ParseRange(-1.5:2) = %v, %v, %v", lo, hi, err)
	}
	if lo, hi, n, err := tanhapprox.ParseGrid("-8:8:1601"); lo != -8 || hi != 8 || n != 1601 || err != nil {
		t.Errorf("ParseGrid(-8:8:1601) = %v, %v, %v, %v", lo, hi, n, err)
	}
	if ks, err := tanhapprox.ParsePieces("2, 3,64"); !slices.Equal(ks, []int{2, 3, 64}) || err != nil {
		t.Errorf("ParsePieces = %v, %v", ks, err)
	}
	if ks, err := tanhapprox.ParsePieces(" "); ks != nil || err != nil {
		t.Errorf("ParsePieces(blank) = %v, %v", ks, err)
	}
	if k, ok, err := tanhapprox.ParsePWLMethod("pwl:8"); k != 8 || !ok || err != nil {
		t.Errorf("ParsePWLMethod(pwl:8) = %v, %v, %v", k, ok, err)
	}
	if k, ok, err := tanhapprox.ParsePWLMethod("pwl5"); k != 5 || !ok || err != nil {
		t.Errorf("ParsePWLMethod(pwl5) = %v, %v, %v", k, ok, err)
	}
	if _, ok, err := tanhapprox.ParsePWLMethod("bitwise"); ok || err != nil {
		t.Errorf("ParsePWLMethod(bitwise): %v, %v", ok, err)
	}
	parse := func(f func() error, text, want string) {
		t.Helper()
		var pe *tanhapprox.ParseError
		if err := f(); !errors.As(err, &pe) || pe.Text != text || pe.Want != want {
			t.Errorf("%q: %v; want text %q, want %q", text, err, text, want)
		}
	}
	rng := func(s string) func() error { return func() error { _, _, err := tanhapprox.ParseRange(s); return err } }
	grid := func(s string) func() error {
		return func() error { _, _, _, err := tanhapprox.ParseGrid(s); return err }
	}
	parse(rng("2:1"), "2:1", "LO:HI with LO <= HI")
	parse(rng("x"), "x", "LO:HI with LO <= HI")
	parse(grid("-8"), "-8", "LO:HI:N")
	parse(grid("3:1:10"), "3:1:10", "LO:HI:N with LO <= HI")
	parse(grid("1:1:10"), "1:1:10", "LO:HI:N with finite LO < HI and 2 <= N <= 1e8")
	parse(grid("-inf:1:10"), "-inf:1:10", "LO:HI:N with finite LO < HI and 2 <= N <= 1e8")
	parse(grid("0:1:1"), "0:1:1", "LO:HI:N with finite LO < HI and 2 <= N <= 1e8")
	parse(func() error { _, err := tanhapprox.ParsePieces("2, 65"); return err }, " 65", "piece counts in [2,64]")
	parse(func() error { _, _, err := tanhapprox.ParsePWLMethod("pwl:1"); return err }, "pwl:1", "pwl:K with K an integer in [2,64]")
}
