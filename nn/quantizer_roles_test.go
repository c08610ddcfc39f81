package nn_test

import (
	"strings"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

func TestLayerFormatsDotRounding(t *testing.T) {
	sr := nn.Quantizer{Rounding: quant.Stochastic}
	for _, tt := range []struct {
		f    nn.LayerFormats
		want quant.Rounding
	}{
		{nn.LayerFormats{}, quant.Nearest},
		{nn.LayerFormats{Weight: nn.Quantizer{Format: quant.MustParse("posit(8,1)")}}, quant.Nearest},
		{nn.LayerFormats{WGrad: sr}, quant.Stochastic}, // a policy's rounding=stochastic on float32 roles
		{nn.LayerFormats{Act: sr, Err: sr}, quant.Stochastic},
		{nn.LayerFormats{Other: sr, Master: sr}, quant.Nearest}, // not dot-product roles
	} {
		if got := tt.f.DotRounding(); got != tt.want {
			t.Errorf("%+v: DotRounding = %v, want %v", tt.f, got, tt.want)
		}
	}
}

// TestLayerBlockRoles: the layers take block formats on their operands
// (weight, act, err) only, and a role holds a format or a block format.
func TestLayerBlockRoles(t *testing.T) {
	b := quant.MustParseBlock("mxfp8-e4m3")
	p8 := quant.MustParse("posit(8,1)")
	for _, tt := range []struct {
		f    nn.LayerFormats
		want string // "" for no error
	}{
		{nn.LayerFormats{Weight: nn.Quantizer{Block: b}, Act: nn.Quantizer{Block: b}, Err: nn.Quantizer{Block: b}}, ""},
		{nn.LayerFormats{Out: nn.Quantizer{Block: b}}, "role out: block format"},
		{nn.LayerFormats{WGrad: nn.Quantizer{Block: b}}, "role wgrad: block format"},
		{nn.LayerFormats{Act: nn.Quantizer{Format: p8, Block: b}}, "role act: both a format"},
	} {
		g := gorgonia.NewGraph()
		_, err := nn.NewLinear(g, "fc", 4, 3, tt.f)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tt.f, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: NewLinear error %v, want %q", tt.f, err, tt.want)
		}
		if _, err := nn.NewConv2d(g, "conv", 2, 3, 3, 1, 1, tt.f); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: NewConv2d error %v, want %q", tt.f, err, tt.want)
		}
	}
}
