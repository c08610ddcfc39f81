package nn

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/quant"
)

// A conditional layer's concatenation of x with one-hot labels keeps x's
// format when it holds 0 and 1; a concatenation with any other tensor of
// unknown format has none.
func TestConcatLabels(t *testing.T) {
	for _, tc := range []struct {
		f    quant.Format
		want bool
	}{
		{quant.MustParse("posit(8,1)"), true},
		{quant.FP8E4M3, true},
		{quant.MustParse("fixed(8,6)"), true},
		{quant.MustParse("posit(8,1,scale=-20)"), false}, // 1 is beyond its largest value, 2^-8
	} {
		if got := holdsOneHot(tc.f); got != tc.want {
			t.Errorf("holdsOneHot(%v) = %v, want %v", tc.f, got, tc.want)
		}
		g := gorgonia.NewGraph()
		x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(2, 3), gorgonia.WithName("x"))
		y := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(2, 4), gorgonia.WithName("y"))
		p := &Pass{Cond: y}
		p.know(x, Quantizer{Format: tc.f})
		xy, err := Concat(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := formatOf(p, xy); ok != tc.want || ok && f != tc.f {
			t.Errorf("%v with labels: %v, %v; want known %v", tc.f, f, ok, tc.want)
		}
		if _, ok := formatOf(&Pass{}, xy); ok {
			t.Errorf("%v with unknown y: known", tc.f)
		}
		if _, ok := formatOf(nil, xy); ok {
			t.Errorf("%v without a pass: known", tc.f)
		}
	}
}
