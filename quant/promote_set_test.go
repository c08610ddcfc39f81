package quant

import (
	"math"
	"testing"
)

// TestSetsFromParameters checks the binade descriptions of wide formats
// against enumeration, on narrow formats of the same families.
func TestSetsFromParameters(t *testing.T) {
	for _, name := range []string{
		"posit(2,0)", "posit(3,1)", "posit(5,0)", "posit(6,2)", "posit(8,1)", "posit(8,3)", "posit(10,4)", "posit(8,1,scale=3)", "posit(9,2,scale=-5)",
		"fp8-e4m3", "fp8-e5m2", "fp8-ibm-fwd", "fp4-e2m1", "fp6-e2m3", "fp6-e3m2", "float(3,0,special=none)", "float(2,0,special=ocp)",
		"float(4,3,subnormals=false)", "float(4,3,special=fnuz,subnormals=false)", "float(3,2,bias=-2)", "float(1,3,special=none)", "float(4,3,overflow=saturate)",
		"fixed(2,0)", "fixed(8,4)", "fixed(6,-3)", "fixed(5,9)",
	} {
		f := MustParse(name)
		want := enumerate(f)
		var got *valueSet
		switch f := f.(type) {
		case Posit:
			got = positSet(f)
		case Float:
			got = floatSet(f)
		case Fixed:
			got = fixedSet(f)
		}
		if got.nan != want.nan || got.posInf != want.posInf || got.negInf != want.negInf || got.posZero != want.posZero || got.negZero != want.negZero {
			t.Errorf("%s: specials %+v, want %+v", name, *got, *want)
		}
		n := 0
		for _, bs := range []map[int]binade{got.pos, got.neg} {
			for _, b := range bs {
				n += b.count
			}
		}
		if n != len(want.vals) {
			t.Errorf("%s: %d values from parameters, %d by enumeration", name, n, len(want.vals))
		}
		for _, v := range want.vals {
			if !got.has(v) {
				t.Errorf("%s: %g missing from the parameters' set", name, v)
			}
		}
		// Both directions of lacks agree between the two descriptions.
		if v, ok := lacks(got, want); ok {
			t.Errorf("%s: enumeration lacks %g", name, v)
		}
		if v, ok := lacks(want, got); ok {
			t.Errorf("%s: parameters lack %g", name, v)
		}
		if !got.has(want.vals[0]) || got.has(math.Nextafter(want.vals[len(want.vals)-1], math.Inf(1))) {
			t.Errorf("%s: ends wrong", name)
		}
	}
}

// TestLacksBinades checks lacks on binade descriptions against lacks on
// enumerations, for every pair and every mix of the two descriptions.
func TestLacksBinades(t *testing.T) {
	names := []string{"posit(8,1)", "posit(8,2)", "posit(10,1)", "posit(8,1,scale=2)", "fp8-e4m3", "fp8-e5m2", "fp6-e2m3", "fp4-e2m1",
		"float(4,5,special=none)", "float(5,7)", "fixed(8,4)", "fixed(12,6)", "fixed(10,8)", "posit(12,3)"}
	param := func(f Format) *valueSet {
		switch f := f.(type) {
		case Posit:
			return positSet(f)
		case Float:
			return floatSet(f)
		}
		return fixedSet(f.(Fixed))
	}
	same := func(a, b float64) bool {
		return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for _, an := range names {
		for _, bn := range names {
			a, b := MustParse(an), MustParse(bn)
			ea, eb, pa, pb := enumerate(a), enumerate(b), param(a), param(b)
			v, ok := lacks(ea, eb)
			for _, c := range [][2]*valueSet{{pa, pb}, {ea, pb}, {pa, eb}} {
				w, ok2 := lacks(c[0], c[1])
				if ok != ok2 || ok && !same(v, w) {
					t.Errorf("%s lacks %s: %g %v, want %g %v", bn, an, w, ok2, v, ok)
				}
			}
		}
	}
}
