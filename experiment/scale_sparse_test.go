package experiment_test

import (
	"maps"
	"math"
	"testing"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/scaling"
)

// Under a 2:4 policy the weight histograms count the kept weights only:
// by the definition, the two of largest |w| (ties to the lower index) of
// every four consecutive inputs of a row of the (out, in) weights; the
// other roles are untouched.
func TestKeptWeightHistograms(t *testing.T) {
	c := trainedCGAN(t)
	pol, err := policy.Parse("posit6-deploy@2:4")
	if err != nil {
		t.Fatal(err)
	}
	nets, _, err := models.Load(c, pol)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := gan.Histograms(nets, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := append([]gan.TensorHist(nil), hs...)
	pats := experiment.KeptWeightHistograms(nets, hs)
	for i, h := range hs {
		if h.Role != "weight" {
			if !maps.Equal(h.Hist.Counts, before[i].Hist.Counts) {
				t.Errorf("%s %s changed", h.Layer, h.Role)
			}
			continue
		}
		if pats[h.Layer] != "2:4" {
			t.Errorf("%s: pattern %q", h.Layer, pats[h.Layer])
		}
		w := c.Tensors[h.Layer+".w"]
		in := w.Shape[1]
		var kept []float32
		for p, x := range w.Data {
			row, pos := p/in, p%in
			beaten := 0
			for q := row * in; q < (row+1)*in; q++ {
				if qp := q % in; qp/4 == pos/4 && q != p {
					a, b := math.Abs(float64(w.Data[q])), math.Abs(float64(x))
					if a > b || (a == b && qp < pos) {
						beaten++
					}
				}
			}
			if beaten < 2 {
				kept = append(kept, x)
			}
		}
		want := scaling.Log2Histogram(kept)
		if !maps.Equal(h.Hist.Counts, want.Counts) || h.Hist.Zeros != want.Zeros || in >= 4 && len(kept) >= len(w.Data)*3/4 {
			t.Errorf("%s: weight histogram %v (%d zeros), want the %d kept of %d: %v", h.Layer, h.Hist.Counts, h.Hist.Zeros, len(kept), len(w.Data), want.Counts)
		}
	}
}
