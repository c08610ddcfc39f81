package nn

import (
	"slices"
	"testing"
)

// runWrite is twoGraphs.run with the update reported through a
// WeightWrite: each parameter's new values written and reported in two
// ranges, the second first.
func (tg *twoGraphs) runWrite(t *testing.T, i int) []uint32 {
	t.Helper()
	bits := tg.run(t, i, false, false)
	for j, p := range tg.params[i] {
		ww := p.BeginWrite()
		w, g := p.Data(), tg.grads[i][j].Value().Data().([]float32)
		mid := len(w) / 3
		for _, r := range [][2]int{{mid, len(w)}, {0, mid}} {
			for k := r[0]; k < r[1]; k++ {
				w[k] -= 0.05 * g[k]
			}
			ww.Written(r[0], r[1])
		}
		ww.Changed()
	}
	return bits
}

// TestWeightWriteBits trains each kind of layer under each format as
// TestWeightCacheBits does, the cached run reporting its writes through
// WeightWrite, and wants the bits of the run without the cache; for the
// element-wise formats it checks that the writes did fill the cache.
func TestWeightWriteBits(t *testing.T) {
	for fname, f := range cacheFormats() {
		for _, l := range cacheLayers {
			t.Run(fname+"/"+l.name, func(t *testing.T) {
				off, on := newTwoGraphs(t, l, f, false), newTwoGraphs(t, l, f, true)
				filled := false
				for step := range 4 {
					for i := range 2 {
						want := off.run(t, i, true, true)
						got := on.runWrite(t, i)
						if !slices.Equal(got, want) {
							t.Fatalf("step %d graph %d: bits differ with the cache kept by WeightWrite", step, i)
						}
						if wc := on.params[i][0].wc; wc != nil && wc.elemRead {
							e := wc.forms[formElem]
							filled = filled || e.valid && e.ver == wc.ver.Load()
						}
					}
				}
				// Element-wise rounding to nearest, read through the
				// cache: not float32, block formats, stochastic
				// rounding or masked weights.
				if want := fname == "posit8" || fname == "fp8" || fname == "quire"; want != filled {
					t.Errorf("cache filled by the writes: %v, want %v", filled, want)
				}
			})
		}
	}
}
