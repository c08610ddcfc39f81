package quant_test

import (
	"errors"
	"testing"

	"github.com/positgan/positgan/quant"
)

// A Known format joins the candidates without settling choices: float
// (5,5) holds posit(8,1) and fp8-e4m3 and lies below both fp16 and bf16,
// their least upper bounds among the built-in formats, so knowing it
// makes it the one least upper bound (checked by enumeration).
func TestPromoteKnown(t *testing.T) {
	a, b := quant.MustParse("posit(8,1)"), quant.FP8E4M3
	k := quant.MustParse("float(5,5)")
	r := &slowRef{sets: map[string]*slowSet{}, leqs: map[[2]string]bool{}}
	if !r.leq(a, k) || !r.leq(b, k) || !r.leq(k, quant.FP16) || !r.leq(k, quant.BF16) || r.leq(quant.FP16, k) {
		t.Fatalf("%v is not the bound below fp16 and bf16 the test needs", k)
	}
	var amb *quant.AmbiguousError
	if _, err := builtin.Promote(a, b); !errors.As(err, &amb) {
		t.Fatalf("without %v: %v, want several bounds", k, err)
	}
	known := quant.Promoter{Known: []quant.Format{k}, BuiltinOnly: true}
	if got, err := known.Promote(a, b); got != k || err != nil {
		t.Errorf("knowing %v: %v, %v", k, got, err)
	}
	// A Known format that is no least bound leaves the choice open.
	wide := quant.Promoter{Known: []quant.Format{quant.MustParse("posit(16,2)")}, BuiltinOnly: true}
	if _, err := wide.Promote(a, b); !errors.As(err, &amb) {
		t.Errorf("knowing posit(16,2): %v, want several bounds", err)
	}
}
