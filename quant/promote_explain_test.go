package quant_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/quant"
)

func ExamplePromoter_Explain() {
	a, b := quant.MustParse("posit(8,0)"), quant.MustParse("posit(16,1)")
	pr, err := quant.Promoter{BuiltinOnly: true}.Explain(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("result:", pr.Result) // posit(8,0) lacks posit(16,1)'s minpos, 4^-14 = 2^-28
	for _, c := range pr.Candidates[:2] {
		fmt.Printf("%v: %s\n", c.Format, c.Why)
	}
	// Output:
	// result: posit(16,1)
	// posit(16,1): result: holds every operand
	// posit(8,0): lacks 3.725290298461914e-09 of posit(16,1)
}

// positValues returns the values of posit(n,0) from the definition: a
// regime of k+1 equal bits (value 2^k or 2^-(k+1)), then fraction bits.
func positValues(n int) []float64 {
	var vs []float64
	for c := 1; c < 1<<(n-1); c++ { // the positive codes
		bits := fmt.Sprintf("%0*b", n-1, c)
		r := bits[0]
		run := len(bits) - len(strings.TrimLeft(bits, string(r)))
		k := -run
		if r == '1' {
			k = run - 1
		}
		frac := bits[min(run+1, len(bits)):]
		f := 1.0
		for i, b := range frac {
			if b == '1' {
				f += math.Ldexp(1, -(i + 1))
			}
		}
		vs = append(vs, math.Ldexp(f, k))
	}
	return vs
}

// e5m2Has reports whether v > 0 is an fp8-e5m2 value: 2 fraction bits,
// exponents -14..15, subnormals down to 2^-16.
func e5m2Has(v float64) bool {
	for e := -14; e <= 15; e++ {
		for m := 0; m < 4; m++ {
			if v == math.Ldexp(1+float64(m)/4, e) || (e == -14 && v == math.Ldexp(float64(m)/4, e)) {
				return true
			}
		}
	}
	return false
}

// TestExplainLacks checks the reason Explain gives for fp8-e5m2 against
// the smallest posit(8,0) magnitude it lacks, found from both formats'
// definitions.
func TestExplainLacks(t *testing.T) {
	want := math.Inf(1)
	for _, v := range positValues(8) {
		if !e5m2Has(v) {
			want = min(want, v)
		}
	}
	p8, e5 := quant.MustParse("posit(8,0)"), quant.MustParse("fp8-e5m2")
	pr, _ := quant.Promoter{BuiltinOnly: true}.Explain(p8, e5)
	var why string
	for _, c := range pr.Candidates {
		if c.Format == e5 {
			why = c.Why
		}
	}
	s, ok := strings.CutSuffix(strings.TrimPrefix(why, "lacks "), " of posit(8,0)")
	got, err := strconv.ParseFloat(s, 64)
	if !ok || err != nil || math.Abs(got) != want {
		t.Errorf("fp8-e5m2: %q, want lacks ±%v of posit(8,0)", why, want)
	}
}

// TestExplainResult: a format promoted with itself is the result, and the
// reason says so; the operands of a failed promotion still get reasons.
func TestExplainResult(t *testing.T) {
	p8 := quant.MustParse("posit(8,0)")
	pr, err := quant.Promoter{BuiltinOnly: true}.Explain(p8, p8)
	if err != nil || pr.Result != p8 || pr.Candidates[0] != (quant.Candidate{Format: p8, Why: "result: holds every operand"}) {
		t.Fatalf("Explain(p8, p8) = %+v, %v", pr, err)
	}
	a, b := quant.MustParse("posit(8,0)"), quant.MustParse("posit(8,1)")
	pr, err = quant.Promoter{}.Explain(a, b)
	if err == nil || pr.Result != nil || len(pr.Candidates) < 2 {
		t.Fatalf("Explain(posit(8,0), posit(8,1)) = %+v, %v; want candidates and an ambiguity", pr, err)
	}
}

func TestPromoteBlocks(t *testing.T) {
	a, _ := quant.ParseBlock("mxfp8-e4m3")
	r, err := quant.Promoter{}.PromoteBlocks(a, a, a)
	if err != nil || r != a {
		t.Errorf("PromoteBlocks(a, a, a) = %v, %v; want %v", r, err, a)
	}
}
