package policy

import (
	"os"
	"strings"
	"testing"
)

// roundTrip checks that p's String (TOML) reads back into a policy with the
// same String.
func roundTrip(t *testing.T, what string, p *Policy) {
	t.Helper()
	s := p.String()
	q, err := Read(strings.NewReader(s))
	if err != nil {
		t.Fatalf("%s: String does not read back: %v\n%s", what, err, s)
	}
	if q.String() != s {
		t.Fatalf("%s: String does not round-trip:\n%s\nread back as\n%s", what, s, q.String())
	}
}

// FuzzApply: any setting is applied or refused, never a panic; a
// policy it was applied to round-trips through String and Read.
func FuzzApply(f *testing.F) {
	for _, s := range []string{"weight=posit(8,1)", "G/conv*:err=posit(8,1,scale=-3)", "all=fp8-e4m3", "dot=none",
		"accum=quire", "accum=per-op", "accum_format=posit(16,1)", "rounding=stochastic", "tanh=pwl:3",
		"tanh=bitwise-corrected:posit(8,0)", "D/*:rounding=nearest", "[:weight=fp16", ":weight=fp16", "weight", "x=y"} {
		f.Add("posit8+", s)
		f.Add("fp32", s)
	}
	f.Fuzz(func(t *testing.T, preset, setting string) {
		p, err := Preset(preset)
		if err != nil {
			p = &Policy{}
		}
		if err := p.Apply(setting); err != nil {
			return
		}
		roundTrip(t, "Apply("+setting+")", p)
	})
}

// FuzzRead: any file gives a policy or an error, never a panic; a
// policy read round-trips through String.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/policy-posit8plus-custom.toml", "testdata/policy-unknown-key.toml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	if p, err := Preset("posit8+"); err == nil {
		f.Add(p.String())
	}
	f.Add("preset = \"fp16\"\n[loss_scale]\nscale = 1e30\ndynamic = false\n")
	f.Add("[[layer]]\nmatch = \"G/*\"\nweight = \"posit(6,0)\"\n")
	f.Fuzz(func(t *testing.T, file string) {
		p, err := Read(strings.NewReader(file))
		if err != nil {
			return
		}
		roundTrip(t, "Read", p)
	})
}

// FuzzParse: any preset or format name gives a policy or an error,
// never a panic. (Names of existing files are skipped: they are read.)
func FuzzParse(f *testing.F) {
	for _, s := range []string{"fp32", "posit8+", "posit(8,1)", "fp8-e4m3", "nope", "posit6-deploy"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := os.Stat(s); err == nil || strings.HasSuffix(s, ".toml") || strings.ContainsRune(s, os.PathSeparator) {
			return
		}
		p, err := Parse(s)
		if err != nil {
			return
		}
		roundTrip(t, "Parse("+s+")", p)
	})
}
