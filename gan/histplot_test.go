package gan_test

import (
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

// Each role's format is the policy's for the layer; without a policy,
// or for an unknown role, there is none.
func TestTensorHistFormat(t *testing.T) {
	pol, err := policy.Parse("posit8")
	if err != nil {
		t.Fatal(err)
	}
	lf := pol.For("g.fc1")
	for role, want := range map[string]quant.Format{"weight": lf.Weight.Format, "act": lf.Act.Format, "out": lf.Out.Format, "err": lf.Err.Format} {
		if want == nil {
			t.Fatalf("posit8 has no %s format", role)
		}
		if got := (gan.TensorHist{Layer: "g.fc1", Role: role}).Format(pol); got != want {
			t.Errorf("%s: %v, want %v", role, got, want)
		}
	}
	if got := (gan.TensorHist{Layer: "g.fc1", Role: "weight"}).Format(nil); got != nil {
		t.Errorf("no policy: %v, want none", got)
	}
	if got := (gan.TensorHist{Layer: "g.fc1", Role: "bias"}).Format(pol); got != nil {
		t.Errorf("unknown role: %v, want none", got)
	}
}

// The histograms of one role plot as a PNG, one line per layer; empty
// histograms and other roles are left out.
func TestPlotHistograms(t *testing.T) {
	hs := []gan.TensorHist{
		{Layer: "g.fc1", Role: "weight", Hist: scaling.Log2Histogram([]float32{0.1, 0.2, 0.3, 4})},
		{Layer: "g.fc2", Role: "weight", Hist: scaling.Log2Histogram([]float32{0.01, 1})},
		{Layer: "g.fc3", Role: "weight", Hist: scaling.Log2Histogram([]float32{0})},
		{Layer: "g.fc1", Role: "act", Hist: scaling.Log2Histogram([]float32{100})},
	}
	path := filepath.Join(t.TempDir(), "weight.png")
	if err := gan.PlotHistograms(path, "weight", hs, "run"); err != nil {
		t.Fatal(err)
	}
	if b := decodePNG(t, path).Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("plot of %v", b)
	}
	if err := gan.PlotHistograms(filepath.Join(t.TempDir(), "missing", "x.png"), "weight", hs, "run"); err == nil {
		t.Error("a plot into a missing folder: no error")
	}
}
