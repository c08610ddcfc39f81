package policy_test

import (
	"strings"
	"testing"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

func TestPolicyBlockRoles(t *testing.T) {
	p, err := policy.Parse("mxfp8")
	if err != nil {
		t.Fatal(err)
	}
	want := nn.LayerFormats{
		Weight: nn.Quantizer{Block: quant.MustParseBlock("mxfp8-e4m3")},
		Act:    nn.Quantizer{Block: quant.MustParseBlock("mxfp8-e4m3")},
		Err:    nn.Quantizer{Block: quant.MustParseBlock("mxfp8-e5m2")},
	}
	if got := p.For("G/fc1"); got != want {
		t.Errorf("mxfp8: For = %+v, want %+v", got, want)
	}
	// A role takes an element format or a block format, never both: the
	// later setting replaces the earlier.
	if err := p.Apply("D/*:weight=posit(8,1)"); err != nil {
		t.Fatal(err)
	}
	if err := p.Apply("G/out:err=posit(6,1,block=16)"); err != nil {
		t.Fatal(err)
	}
	d := p.For("D/conv1")
	if d.Weight.Format != quant.MustParse("posit(8,1)") || !d.Weight.Block.IsZero() || d.Act != want.Act {
		t.Errorf("D/conv1: %+v", d)
	}
	if g := p.For("G/out"); g.Err != (nn.Quantizer{Block: quant.MustParseBlock("posit(6,1,block=16)")}) {
		t.Errorf("G/out: %+v", g)
	}
	// The TOML file keeps the block formats.
	q, err := policy.Read(strings.NewReader(p.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range []string{"G/fc1", "D/conv1", "G/out"} {
		if q.For(layer) != p.For(layer) {
			t.Errorf("%s after TOML: %+v, want %+v", layer, q.For(layer), p.For(layer))
		}
	}
	if q.String() != p.String() {
		t.Errorf("TOML round trip differs:\n%s\nwant\n%s", q, p)
	}
	// Results are not dot-product operands.
	for _, s := range []string{"out=mxfp8-e4m3", "wgrad=posit(8,1,block=32)", "accum_format=mxint8", "all=mxfp4-e2m1"} {
		if err := p.Apply(s); err == nil || !strings.Contains(err.Error(), "only the dot-product operands") {
			t.Errorf("Apply(%q) = %v, want an error about operands", s, err)
		}
	}
	// One block format names a policy: the three operand roles.
	p, err = policy.Parse("mxfp6-e3m2(block=16)")
	if err != nil {
		t.Fatal(err)
	}
	b := nn.Quantizer{Block: quant.MustParseBlock("mxfp6-e3m2(block=16)")}
	if got := p.For("x"); got != (nn.LayerFormats{Weight: b, Act: b, Err: b}) || p.Name != b.String() {
		t.Errorf("ParsePolicy(mxfp6-e3m2(block=16)) = %q %+v", p.Name, got)
	}
	for _, name := range []string{"mxfp6", "mxfp4-deploy", "posit8-block"} {
		p, err := policy.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		if lf := p.For("x"); lf.Weight.Block.IsZero() || lf.Weight.Format != nil {
			t.Errorf("%s: %+v", name, lf)
		}
	}
}
