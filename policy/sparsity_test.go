package policy

import (
	"strings"
	"testing"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/sparsity"
)

func TestSparsitySettings(t *testing.T) {
	p, err := Preset("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"sparsity=2:4", "G/*:sparsity=1:2", "G/*:fixed_after=100", "D/*:grad_sparsity=4:8",
		"D/*:score=random", "D/out:sparsity=dense"} {
		if err := p.Apply(s); err != nil {
			t.Fatalf("Apply(%q): %v", s, err)
		}
	}
	for _, c := range []struct {
		layer string
		want  nn.Sparsity
	}{
		{"G/fc1", nn.Sparsity{Weight: sparsity.Pattern{N: 1, M: 2}, FixedAfter: 100}},
		{"D/fc1", nn.Sparsity{Weight: sparsity.Pattern{N: 2, M: 4}, Grad: sparsity.Pattern{N: 4, M: 8}, Score: "random"}},
		{"D/out", nn.Sparsity{Grad: sparsity.Pattern{N: 4, M: 8}, Score: "random"}},
		{"E/fc", nn.Sparsity{Weight: sparsity.Pattern{N: 2, M: 4}}},
	} {
		lf := p.For(c.layer)
		if lf.Sparsity != c.want {
			t.Errorf("%s: sparsity %+v, want %+v", c.layer, lf.Sparsity, c.want)
		}
		// Sparsity composes with the formats: posit8+'s stay.
		if lf.Weight.Format == nil || lf.Weight.Format.String() != "posit(8,1,scale=4)" {
			t.Errorf("%s: weight format %v, want posit8+'s", c.layer, lf.Weight)
		}
	}
	roundTrip(t, "sparse posit8+", p)
	if !strings.Contains(p.String(), `sparsity = "2:4"`) {
		t.Errorf("String has no sparsity key:\n%s", p)
	}
}

func TestSparsityBadSettings(t *testing.T) {
	for _, s := range []string{"sparsity=3:2", "sparsity=2:32", "sparsity=", "grad_sparsity=x", "score=nosuch", "score=",
		"fixed_after=-1", "fixed_after=1.5", "fixed_after=99999999999999999999", "[:sparsity=2:4"} {
		p := &Policy{}
		if err := p.Apply(s); err == nil {
			t.Errorf("Apply(%q) succeeded", s)
		}
	}
}

func TestSparsityTOML(t *testing.T) {
	file := `name = "sparse"
preset = "fp32"
[default]
sparsity = "2:4"
fixed_after = 0
[[layer]]
match = "G/*"
weight = "posit(8,1)"
grad_sparsity = "1:2"
score = "random"
fixed_after = 500
`
	p, err := Read(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	g, d := p.For("G/fc1"), p.For("D/fc1")
	if want := (nn.Sparsity{Weight: sparsity.Pattern{N: 2, M: 4}, Grad: sparsity.Pattern{N: 1, M: 2}, Score: "random", FixedAfter: 500}); g.Sparsity != want {
		t.Errorf("G/fc1: %+v, want %+v", g.Sparsity, want)
	}
	if want := (nn.Sparsity{Weight: sparsity.Pattern{N: 2, M: 4}}); d.Sparsity != want {
		t.Errorf("D/fc1: %+v, want %+v", d.Sparsity, want)
	}
	roundTrip(t, "TOML", p)
	for _, bad := range []string{"[default]\nsparsity = \"5:4\"\n", "[default]\nfixed_after = -3\n", "[default]\nscore = 3\n",
		"[[layer]]\nmatch = \"G/*\"\nsparsity = \"2:4:8\"\n"} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("Read(%q) succeeded", bad)
		}
	}
}

// TestDensePolicyFilesUnchanged: a policy without sparsity writes no
// sparsity key, so the files (and checkpoints) of dense policies are as
// before.
func TestDensePolicyFilesUnchanged(t *testing.T) {
	names, _ := Presets()
	for _, n := range names {
		p, err := Preset(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range sparseKeyNames {
			if strings.Contains(p.String(), k+" =") {
				t.Errorf("preset %s writes %s:\n%s", n, k, p)
			}
		}
	}
}

func TestSparsePresets(t *testing.T) {
	for _, c := range []struct {
		name   string
		base   string
		want   sparsity.Pattern
		accum  quant.Accumulation
		weight string
	}{
		{"fp32@2:4", "fp32", sparsity.Pattern{N: 2, M: 4}, quant.AccumFP32, "none"},
		{"posit8+@1:8", "posit8+", sparsity.Pattern{N: 1, M: 8}, quant.AccumFP32, "posit(8,1,scale=4)"},
		{"posit8+-quire@4:8", "posit8+-quire", sparsity.Pattern{N: 4, M: 8}, quant.AccumQuire, "posit(8,1,scale=4)"},
		{"fp32@dense", "fp32", sparsity.Pattern{}, quant.AccumFP32, "none"},
	} {
		p, err := ParseName(c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lf := p.For("G/fc1")
		if p.Name != c.name || lf.Sparsity.Weight != c.want || lf.Accum != c.accum || lf.Weight.String() != c.weight {
			t.Errorf("%s: name %q, sparsity %v, accum %v, weight %v", c.name, p.Name, lf.Sparsity.Weight, lf.Accum, lf.Weight)
		}
		base, _ := ParseName(c.base)
		if lf.Sparsity = (nn.Sparsity{}); lf != base.For("G/fc1") {
			t.Errorf("%s: formats differ from %s's", c.name, c.base)
		}
		if p.LossScale != base.LossScale {
			t.Errorf("%s: loss scale %v, want %s's %v", c.name, p.LossScale, c.base, base.LossScale)
		}
		roundTrip(t, c.name, p)
	}
	for _, bad := range []string{"fp32@", "fp32@5:4", "nosuch@2:4", "@2:4", "fp32@2:4@1:2"} {
		if _, err := ParseName(bad); err == nil {
			t.Errorf("ParseName(%q) succeeded", bad)
		}
	}
}

// FuzzSparseSettings: any sparsity setting or sparse preset name is
// applied or refused, never a panic; the policy round-trips through
// String and Read.
func FuzzSparseSettings(f *testing.F) {
	for _, s := range []string{"sparsity=2:4", "G/*:grad_sparsity=1:2", "score=random", "D/*:fixed_after=100",
		"sparsity=16:16", "sparsity=0:4", "fixed_after=-1", "score=abs"} {
		f.Add("posit8+@2:4", s)
		f.Add("fp32", s)
	}
	f.Fuzz(func(t *testing.T, name, setting string) {
		p, err := ParseName(name)
		if err != nil {
			p = &Policy{}
		} else {
			roundTrip(t, "ParseName("+name+")", p)
		}
		if err := p.Apply(setting); err != nil {
			return
		}
		roundTrip(t, "Apply("+setting+")", p)
	})
}
