package quant

import "testing"

func TestQuantized(t *testing.T) {
	p8 := MustParse("posit(8,1)")
	src := []float32{0.3, -1, 1000, 0}
	vals, codes := Quantized(p8, src)
	one := make([]float32, 1)
	for i, x := range src {
		p8.RoundSlice(one, src[i:i+1])
		if vals[i] != one[0] || codes[i] != p8.Encode(x) || p8.Decode(codes[i]) != float64(vals[i]) {
			t.Errorf("Quantized(%g) = %g, code %#x", x, vals[i], codes[i])
		}
	}
	b := MustParseBlock("mxfp8-e4m3")
	src = make([]float32, b.Block()+3)
	for i := range src {
		src[i] = float32(i) / 7
	}
	bv, bc, bs := b.Quantized(src)
	if len(bv) != len(src) || len(bc) != len(src) || len(bs) != 2 {
		t.Fatalf("BlockFormat.Quantized: %d values, %d codes, %d scales", len(bv), len(bc), len(bs))
	}
	want := make([]float32, len(src))
	b.RoundBlocks(want, src)
	for i := range want {
		if bv[i] != want[i] {
			t.Errorf("value %d: %g, RoundBlocks %g", i, bv[i], want[i])
		}
	}
}
