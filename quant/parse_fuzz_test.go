package quant

import (
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
