package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// TestConvForwardBands: an inference convolution packed a band of output
// rows at a time (bandRows, convForwardBands) or not packed at all
// (directConv, the implicit GEMM) gives the bits of the whole batch packed
// at once, for paddings, strides and kernels that put the
// band edges in the padding and inside the image, with and without bias,
// in float32 and with posit operands.
func TestConvForwardBands(t *testing.T) {
	p6 := Quantizer{Format: quant.MustParse("posit(6,1)")}
	p16 := Quantizer{Format: quant.MustParse("posit(16,1)")}
	r := rand.New(rand.NewPCG(1, 28))
	for _, tc := range []struct {
		name                           string
		batch, c, h, w, out, k, s, pad int
		kw, pw                         int // a rectangular kernel and padding (RectConv2d's); 0: k, pad
		bias                           bool
		f                              LayerFormats
	}{
		{"3x3 pad 1", 1, 5, 9, 7, 4, 3, 1, 1, 0, 0, true, LayerFormats{}},
		{"7x7 pad 3, batch 2", 2, 3, 11, 10, 2, 7, 1, 3, 0, 0, true, LayerFormats{}},
		{"4x4 stride 2", 1, 4, 12, 12, 3, 4, 2, 1, 0, 0, false, LayerFormats{}},
		{"3x3 stride 2 odd, no pad", 2, 2, 13, 9, 3, 3, 2, 0, 0, 0, true, LayerFormats{}},
		{"5x3 kernel, padding 2 and 1, stride 2", 1, 3, 11, 9, 2, 5, 2, 2, 3, 1, true, LayerFormats{}},
		{"posit(6,1) operands", 2, 6, 10, 8, 5, 3, 1, 1, 0, 0, true, LayerFormats{Weight: p6, Act: p6, Out: p16}},
		// At least chunkCols positions an image: the implicit GEMM.
		{"3x3 pad 1, 32×40, implicit", 2, 3, 32, 40, 9, 3, 1, 1, 0, 0, true, LayerFormats{}},
		{"4x4 stride 2, 66×70, implicit", 1, 2, 66, 70, 3, 4, 2, 1, 0, 0, false, LayerFormats{}},
		{"posit(6,1) operands, 36×36, implicit", 1, 4, 36, 36, 8, 3, 1, 1, 0, 0, true, LayerFormats{Weight: p6, Act: p6, Out: p16}},
	} {
		g := gorgonia.NewGraph()
		conv, err := NewConv2d(g, "c", tc.c, tc.out, tc.k, tc.s, tc.pad, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		kw, pw := tc.k, tc.pad
		if tc.kw > 0 {
			kw, pw = tc.kw, tc.pw
		}
		geom := compute.Geom{C: tc.c, H: tc.h, W: tc.w, KH: tc.k, KW: kw, SH: tc.s, SW: tc.s, PH: tc.pad, PW: pw,
			OH: (tc.h+2*tc.pad-tc.k)/tc.s + 1, OW: (tc.w+2*pw-kw)/tc.s + 1}
		rnd := func(shape ...int) *tensor.Dense {
			d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))
			for i := range d.Float32s() {
				d.Float32s()[i] = float32(2*r.Float64() - 1)
			}
			return d
		}
		in := []*tensor.Dense{rnd(tc.batch, tc.c, tc.h, tc.w), rnd(tc.out, tc.c, tc.k, kw)}
		if tc.bias {
			in = append(in, rnd(tc.out))
		}
		run := func(band int, lend bool) []float32 {
			st := &convState{name: "c", roles: conv.roles, g: geom, batch: tc.batch, inC: tc.c, outC: tc.out, band: band, lend: lend,
				xShape: tensor.Shape{tc.batch, tc.c, tc.h, tc.w}, yShape: tensor.Shape{tc.batch, tc.out, geom.OH, geom.OW}}
			y, err := st.forward(in)
			if err != nil {
				t.Fatal(err)
			}
			return append([]float32(nil), y.Float32s()...)
		}
		// A node with a gradient packs the whole batch's columns; one
		// without runs the implicit GEMM (directConv), or bands.
		want := run(0, false)
		for band := 0; band <= geom.OH; band++ {
			got := run(band, true)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Errorf("%s, bands of %d rows: y[%d] = %v, want %v", tc.name, band, i, got[i], want[i])
					break
				}
			}
		}
	}
}

// TestConvBandRows: bands are used only for a node without a gradient,
// in float32 with fp32 accumulation, and only for images whose columns
// exceed bandBytes twice.
func TestConvBandRows(t *testing.T) {
	g := gorgonia.NewGraph()
	conv, err := NewConv2d(g, "c", 64, 64, 3, 1, 1, LayerFormats{})
	if err != nil {
		t.Fatal(err)
	}
	quire, err := NewConv2d(g, "q", 64, 64, 3, 1, 1, LayerFormats{Accum: quant.AccumQuire, AccumFormat: quant.MustParse("posit(16,1)")})
	if err != nil {
		t.Fatal(err)
	}
	st := func(c *Conv2d, side int, lend bool) *convState {
		geom, err := compute.ConvGeom(64, side, side, 3, 3, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		return &convState{roles: c.roles, g: geom, batch: 1, inC: 64, outC: 64, lend: lend}
	}
	// 64 channels, 3×3: 2304 bytes of columns per output position.
	if n := bandRows[float32](st(conv, 512, true)); n != bandBytes/(4*576*512) {
		t.Errorf("512×512: bands of %d rows, want %d", n, bandBytes/(4*576*512))
	}
	for _, c := range []struct {
		name string
		st   *convState
	}{
		{"a node with a gradient", st(conv, 512, false)},
		{"quire accumulation", st(quire, 512, true)},
		{"a 128×128 image", st(conv, 128, true)},
	} {
		if n := bandRows[float32](c.st); n != 0 {
			t.Errorf("%s: bands of %d rows, want none", c.name, n)
		}
	}
	if n := bandRows[float64](st(conv, 512, true)); n != 0 {
		t.Errorf("float64: bands of %d rows, want none", n)
	}
}
