package policy_test

import (
	"strings"
	"testing"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// roleFormats returns the five whole-step roles of lf, in key order.
func roleFormats(lf nn.LayerFormats) [5]nn.Quantizer {
	return [5]nn.Quantizer{lf.Other, lf.Master, lf.Grad, lf.Moment1, lf.Moment2}
}

func rf(t *testing.T, name string, r quant.Rounding) nn.Quantizer {
	t.Helper()
	if name == "" {
		return nn.Quantizer{Rounding: r}
	}
	f, err := quant.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	return nn.Quantizer{Format: f, Rounding: r}
}

// TestPolicyStepRoles: the keys other, master, grad, moment1, moment2,
// their roundings and the shorthands set exactly their roles, by glob,
// and the policy round-trips.
func TestPolicyStepRoles(t *testing.T) {
	const (
		N = quant.Nearest
		S = quant.Stochastic
	)
	tests := []struct {
		settings []string
		layer    string
		want     [5][2]any // format name, rounding per role
	}{
		{[]string{"master=posit(8,2)"}, "G/fc1",
			[5][2]any{{"", N}, {"posit(8,2)", N}, {"", N}, {"", N}, {"", N}}},
		{[]string{"master=posit(8,2)", "master_rounding=stochastic"}, "D/conv1",
			[5][2]any{{"", N}, {"posit(8,2)", S}, {"", N}, {"", N}, {"", N}}},
		{[]string{"other=posit(16,1)", "G/*:other=none"}, "G/bn1",
			[5][2]any{{"", N}, {"", N}, {"", N}, {"", N}, {"", N}}},
		{[]string{"other=posit(16,1)", "G/*:other=none"}, "D/bn2",
			[5][2]any{{"posit(16,1)", N}, {"", N}, {"", N}, {"", N}, {"", N}}},
		{[]string{"moments=posit(16,2)", "moments_rounding=stochastic", "grad=posit(8,2)", "grad_rounding=sr"}, "x",
			[5][2]any{{"", N}, {"", N}, {"posit(8,2)", S}, {"posit(16,2)", S}, {"posit(16,2)", S}}},
		{[]string{"moment1=fp16", "moment2=bf16", "D/*:moment2=none"}, "D/fc",
			[5][2]any{{"", N}, {"", N}, {"", N}, {"fp16", N}, {"", N}}},
		// The dot-product keys leave the new roles alone, and the other
		// way round.
		{[]string{"all=posit(8,1)", "rounding=stochastic"}, "x",
			[5][2]any{{"", N}, {"", N}, {"", N}, {"", N}, {"", N}}},
	}
	for _, tt := range tests {
		name := strings.Join(tt.settings, " ") + " @" + tt.layer
		t.Run(name, func(t *testing.T) {
			p := &policy.Policy{}
			for _, s := range tt.settings {
				if err := p.Apply(s); err != nil {
					t.Fatal(err)
				}
			}
			var want [5]nn.Quantizer
			for i, w := range tt.want {
				want[i] = rf(t, w[0].(string), w[1].(quant.Rounding))
			}
			if got := roleFormats(p.For(tt.layer)); got != want {
				t.Errorf("roles = %+v, want %+v", got, want)
			}
			checkRoundTrip(t, p)
		})
	}
	for _, bad := range []string{"master=posit(8,1,block=32)", "other_rounding=up", "moment3=fp16", "grad=nope"} {
		if err := (&policy.Policy{}).Apply(bad); err == nil {
			t.Errorf("Apply(%q) succeeded", bad)
		}
	}
}

// TestPolicyStepRolesTOML: the new keys read from a file, and a policy
// that does not use them writes the same file as before they existed.
func TestPolicyStepRolesTOML(t *testing.T) {
	p, err := policy.Read(strings.NewReader(`preset = "posit8+"
[default]
other = "posit(16,1)"
moments = "posit(16,2)"
master = "posit(8,2)"
master_rounding = "stochastic"
[[layer]]
match = "loss"
other = "none"
`))
	if err != nil {
		t.Fatal(err)
	}
	lf := p.For("G/fc1")
	if lf.Other.Format.String() != "posit(16,1)" || lf.Moment1.Format.String() != "posit(16,2)" ||
		lf.Moment2.Format.String() != "posit(16,2)" || lf.Master != rf(t, "posit(8,2)", quant.Stochastic) || lf.Grad.Format != nil {
		t.Errorf("For(G/fc1) = %+v", lf)
	}
	if o := p.For("loss").Other; o.Format != nil {
		t.Errorf("For(loss).Other = %v, want none", o)
	}
	checkRoundTrip(t, p)
	for _, name := range []string{"fp32", "posit8+", "fp8-ibm", "posit8", "mxfp8"} {
		q, err := policy.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{" other", " master", " grad ", " moment"} {
			if strings.Contains(q.String(), key) {
				t.Errorf("%s: String mentions %q:\n%s", name, key, q)
			}
		}
	}
}

// TestPaperPresetRoles: each paper preset sets exactly the roles its
// source sentence names (the dot-product roles are in TestPolicyPresets'
// style below; the layer-by-layer check of the rounded tensors is in
// nn and gan).
func TestPaperPresetRoles(t *testing.T) {
	const N = quant.Nearest
	dyn := func(s float64) policy.LossScale { return policy.LossScale{Scale: s, Dynamic: true} }
	tests := []struct {
		name    string
		f       [6]string // weight, act, out, err, wgrad, accum_format
		layer   string
		roles   [5]string // other, master, grad, moment1, moment2
		scale   policy.LossScale
		twinDot string // the preset with the same dot-product roles and loss scaling
		none    bool   // other is named none (OtherNone), not left unnamed
	}{
		{"p8-paper", [6]string{"posit(8,2)", "posit(8,2)", "posit(8,2)", "posit(8,2)", "posit(8,2)"}, "G/fc1",
			[5]string{"posit(8,2)", "posit(8,2)", "posit(8,2)", "posit(8,2)", "posit(8,2)"}, policy.LossScale{}, "posit8", false},
		{"p8+-paper", [6]string{"posit(8,1,scale=4)", "posit(8,1,scale=1)", "posit(8,1,scale=1)", "posit(8,1)", "posit(8,1)"}, "D/bn2",
			[5]string{"posit(16,1)"}, dyn(1024), "posit8+", false},
		{"fp8-ibm-paper", [6]string{"fp8-ibm-fwd", "fp8-ibm-fwd", "float(6,9)", "fp8-ibm-bwd", "fp8-ibm-bwd", "float(6,9)"}, "G/relu",
			[5]string{"float(6,9)"}, dyn(1024), "fp8-ibm", false},
		{"fp16-apex", [6]string{"fp16", "fp16", "fp16", "fp16", "fp16"}, "G/bn1",
			[5]string{"fp16"}, dyn(65536), "fp16", false},
		{"fp16-apex", [6]string{"fp16", "fp16", "fp16", "fp16", "fp16"}, "loss",
			[5]string{}, dyn(65536), "fp16", true}, // loss:other=none
	}
	for _, tt := range tests {
		t.Run(tt.name+"@"+tt.layer, func(t *testing.T) {
			p, err := policy.Preset(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			got := p.For(tt.layer)
			want := lf(tt.f[0], tt.f[1], tt.f[2], tt.f[3], tt.f[4], quant.AccumFP32, tt.f[5], N)
			want.Other, want.Master, want.Grad, want.Moment1, want.Moment2 =
				rf(t, tt.roles[0], N), rf(t, tt.roles[1], N), rf(t, tt.roles[2], N), rf(t, tt.roles[3], N), rf(t, tt.roles[4], N)
			want.OtherNone = tt.none
			if got != want {
				t.Errorf("For(%s) =\n%+v\nwant\n%+v", tt.layer, got, want)
			}
			if p.LossScale != tt.scale {
				t.Errorf("LossScale = %+v, want %+v", p.LossScale, tt.scale)
			}
			twin, err := policy.Preset(tt.twinDot)
			if err != nil {
				t.Fatal(err)
			}
			tw := twin.For(tt.layer)
			got.Other, got.Master, got.Grad, got.Moment1, got.Moment2 = nn.Quantizer{}, nn.Quantizer{}, nn.Quantizer{}, nn.Quantizer{}, nn.Quantizer{}
			got.OtherNone = false
			if got != tw || p.LossScale != twin.LossScale {
				t.Errorf("dot-product roles or loss scaling differ from %s's:\n%+v\n%+v", tt.twinDot, got, tw)
			}
			checkRoundTrip(t, p)
		})
	}
}
