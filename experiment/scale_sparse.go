package experiment

import (
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/scaling"
	"github.com/positgan/positgan/sparsity"
)

// KeptWeightHistograms replaces, in hs (as gan.Histograms returns them
// for nets), the weight histogram of every layer whose policy masks its
// weights N:M by the histogram of the weights its mask keeps (the frozen
// mask, or its scorer's for the weights as they are): the dropped weights
// are not counted, not even as zeros, so the bulk and the exponent bias
// are those of the values a sparse unit stores. It returns the pattern of
// each such layer by name ("2:4").
func KeptWeightHistograms(nets *gan.Nets, hs []gan.TensorHist) map[string]string {
	weights := map[string][]float32{}
	for _, p := range nets.Params() {
		if p.Weight {
			weights[p.Layer] = p.Data()
		}
	}
	kept := map[string]scaling.Histogram{}
	patterns := map[string]string{}
	for _, wm := range nets.Masks() {
		w, ok := weights[wm.Layer()]
		if !ok || wm.Spec().Weight.IsDense() {
			continue
		}
		keep := make([]bool, len(w))
		wm.Mask(keep, w, nil)
		kept[wm.Layer()] = scaling.Log2Histogram(keptValues(w, keep))
		patterns[wm.Layer()] = wm.Spec().Weight.String()
	}
	for i := range hs {
		if h, ok := kept[hs[i].Layer]; ok && hs[i].Role == "weight" {
			hs[i].Hist = h
		}
	}
	return patterns
}

// keptValues returns the values of w that keep keeps, in order.
func keptValues(w []float32, keep []bool) []float32 {
	v := make([]float32, 0, sparsity.Kept(keep))
	for i, k := range keep {
		if k {
			v = append(v, w[i])
		}
	}
	return v
}
