package quant_test

import (
	"slices"
	"testing"

	"github.com/positgan/positgan/quant"
)

func TestLattice(t *testing.T) {
	var fs []quant.Format
	for _, n := range []string{"fp32", "posit(8,1)", "fp16", "posit(16,1)", "fp8-e4m3", "bf16"} {
		fs = append(fs, quant.MustParse(n))
	}
	l, err := quant.NewLattice(fs)
	if err != nil {
		t.Fatal(err)
	}
	// Worked out by hand: posits have no -0, so fp8-e4m3 is in no posit;
	// posit(8,1) (minpos 2^-12, 4 fraction bits) is in fp16 and bf16;
	// fp16 and bf16 hold neither the other nor posit(16,1).
	want := [][]string{
		{"lower", "upper"},
		{"posit(8,1)", "fp16"}, {"posit(8,1)", "posit(16,1)"}, {"posit(8,1)", "bf16"},
		{"fp16", "fp32"}, {"posit(16,1)", "fp32"},
		{"fp8-e4m3", "fp16"}, {"fp8-e4m3", "bf16"},
		{"bf16", "fp32"},
	}
	if got := l.CSV(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("CSV = %q, want %q", got, want)
	}
	if want := []int{2, 0, 1, 1, 0, 1}; !slices.Equal(l.Level, want) {
		t.Errorf("Level = %v, want %v", l.Level, want)
	}
}
