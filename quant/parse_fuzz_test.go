package quant

import (
	"os"
	"strings"
	"testing"
)

// FuzzParse: any name gives a format or an error, never a panic; a format
// that parses prints as a name that parses back to the same format.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"posit(8,1)", "posit8", "p16", "fp8-e4m3", "fp8-e5m2", "fp16", "bf16", "fp32",
		"posit(8,1,scale=-3)", "float(5,2)", "fixed(8,4)", "POSIT(6,0)", "posit(99999999999999999999,1)", "posit(8,", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		fm, err := Parse(name)
		if err != nil {
			return
		}
		back, err := Parse(fm.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %v, whose String does not parse: %v", name, fm, err)
		}
		if back != fm {
			t.Fatalf("Parse(%q) = %v, which parses back to %v", name, fm, back)
		}
		if b := fm.Bits(); b < 1 || b > 64 {
			t.Fatalf("%v: %d bits", fm, b)
		}
		fm.Round(1.5)
		fm.Decode(fm.Encode(-0.25))
	})
}

// roundTrip checks that p's String (TOML) reads back into a policy with the
// same String.
func roundTrip(t *testing.T, what string, p *Policy) {
	t.Helper()
	s := p.String()
	q, err := ReadPolicy(strings.NewReader(s))
	if err != nil {
		t.Fatalf("%s: String does not read back: %v\n%s", what, err, s)
	}
	if q.String() != s {
		t.Fatalf("%s: String does not round-trip:\n%s\nread back as\n%s", what, s, q.String())
	}
}

// FuzzPolicyApply: any setting is applied or refused, never a panic; a
// policy it was applied to round-trips through String and ReadPolicy.
func FuzzPolicyApply(f *testing.F) {
	for _, s := range []string{"weight=posit(8,1)", "G/conv*:err=posit(8,1,scale=-3)", "all=fp8-e4m3", "dot=none",
		"accum=quire", "accum=per-op", "accum_format=posit(16,1)", "rounding=stochastic", "tanh=pwl:3",
		"tanh=bitwise-corrected:posit(8,0)", "D/*:rounding=nearest", "[:weight=fp16", ":weight=fp16", "weight", "x=y"} {
		f.Add("posit8+", s)
		f.Add("fp32", s)
	}
	f.Fuzz(func(t *testing.T, preset, setting string) {
		p, err := PolicyPreset(preset)
		if err != nil {
			p = &Policy{}
		}
		if err := p.Apply(setting); err != nil {
			return
		}
		roundTrip(t, "Apply("+setting+")", p)
	})
}

// FuzzReadPolicy: any file gives a policy or an error, never a panic; a
// policy read round-trips through String.
func FuzzReadPolicy(f *testing.F) {
	for _, p := range []string{"testdata/policy-posit8plus-custom.toml", "testdata/policy-unknown-key.toml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	if p, err := PolicyPreset("posit8+"); err == nil {
		f.Add(p.String())
	}
	f.Add("preset = \"fp16\"\n[loss_scale]\nscale = 1e30\ndynamic = false\n")
	f.Add("[[layer]]\nmatch = \"G/*\"\nweight = \"posit(6,0)\"\n")
	f.Fuzz(func(t *testing.T, file string) {
		p, err := ReadPolicy(strings.NewReader(file))
		if err != nil {
			return
		}
		roundTrip(t, "ReadPolicy", p)
	})
}

// FuzzParsePolicy: any preset or format name gives a policy or an error,
// never a panic. (Names of existing files are skipped: they are read.)
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{"fp32", "posit8+", "posit(8,1)", "fp8-e4m3", "nope", "posit6-deploy"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := os.Stat(s); err == nil || strings.HasSuffix(s, ".toml") || strings.ContainsRune(s, os.PathSeparator) {
			return
		}
		p, err := ParsePolicy(s)
		if err != nil {
			return
		}
		roundTrip(t, "ParsePolicy("+s+")", p)
	})
}
