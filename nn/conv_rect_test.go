package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// rectConv returns an opFunc applying a RectConv2d (kernel 3×2, stride 2,
// padding 1 row and no column) to inputs x, w and b.
func rectConv(f LayerFormats) opFunc {
	return func(in []*gorgonia.Node) (*gorgonia.Node, error) {
		c := &RectConv2d{InC: 2, OutC: 3, KH: 3, KW: 2, Stride: 2, PH: 1, PW: 0, W: in[1], B: in[2], name: "c", roles: newRoles(f, 1)}
		return c.Fwd(in[0])
	}
}

var rectShapes = [][]int{{2, 2, 5, 4}, {3, 2, 3, 2}, {3}}

// TestRectConv2d compares a convolution with a rectangular, strided,
// padded kernel against the definition computed directly, and checks its
// gradients against finite differences.
func TestRectConv2d(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	vals := randVals(rng, rectShapes)
	x, w, b := vals[0], vals[1], vals[2]
	y, _ := runOp(t, tensor.Float64, rectShapes, vals, 1, rectConv(LayerFormats{}))
	const oh, ow = (5+2-3)/2 + 1, (4-2)/2 + 1
	if len(y) != 2*3*oh*ow {
		t.Fatalf("%d outputs, want %d", len(y), 2*3*oh*ow)
	}
	for n := range 2 {
		for o := range 3 {
			for oy := range oh {
				for ox := range ow {
					s := b[o]
					for c := range 2 {
						for i := range 3 {
							for j := range 2 {
								iy, ix := oy*2-1+i, ox*2+j
								if iy < 0 || iy >= 5 || ix < 0 || ix >= 4 {
									continue
								}
								s += w[((o*2+c)*3+i)*2+j] * x[((n*2+c)*5+iy)*4+ix]
							}
						}
					}
					if got := y[((n*3+o)*oh+oy)*ow+ox]; math.Abs(got-s) > 1e-12 {
						t.Errorf("y[%d,%d,%d,%d] = %v, want %v", n, o, oy, ox, got, s)
					}
				}
			}
		}
	}
	checkOpGrad(t, "rectconv2d", rectShapes, rectConv(LayerFormats{}), nil)
	checkOpGrad(t, "rectconv2d posit(32,2)", rectShapes, rectConv(wideFormats(quant.AccumFP32)), wideOpts)
	agreeFloat32(t, "rectconv2d", rectShapes, rectConv(LayerFormats{}))
}

func TestNewRectConv2d(t *testing.T) {
	g := gorgonia.NewGraph()
	c, err := NewRectConv2d(g, "c", 2, 3, 1, 7, 1, 0, 3, LayerFormats{}, WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	if s := c.W.Shape(); !s.Eq(tensor.Shape{3, 2, 1, 7}) || len(c.Params()) != 2 {
		t.Errorf("weight shape %v, %d parameters", s, len(c.Params()))
	}
	x := input(g, "x", []int{1, 2, 4, 5}, func() float64 { return 1 })
	y, err := c.Fwd(x)
	if err != nil {
		t.Fatal(err)
	}
	if s := y.Shape(); !s.Eq(tensor.Shape{1, 3, 4, 5}) {
		t.Errorf("output shape %v, want (1, 3, 4, 5)", s)
	}
	g2 := gorgonia.NewGraph()
	d := c.Share(g2)
	if d.W.Graph() != g2 || d.W.Value() != c.W.Value() || d.B.Value() != c.B.Value() {
		t.Error("Share: the copy's parameters are not the same tensors in the new graph")
	}
	if _, err := NewRectConv2d(g, "c", 2, 3, 0, 7, 1, 0, 3, LayerFormats{}); err == nil {
		t.Error("kernel 0x7: no error")
	}
	small, err := NewRectConv2d(g, "s", 2, 3, 7, 1, 1, 0, 0, LayerFormats{}, WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.Fwd(x); err == nil {
		t.Error("kernel 7x1 on 4 rows: no error")
	}
}
