package gan_test

import (
	"math"
	"strings"
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// TestMasterWeightsStoredInFormat trains with master = posit(8,2) and
// checks that every stored weight in the checkpoint is exactly a P(8,2)
// value; with p8-paper, Adam's moments are too.
func TestMasterWeightsStoredInFormat(t *testing.T) {
	p82, err := quant.Parse("posit(8,2)")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		policy  string // preset, then settings
		moments bool   // the moments must be P(8,2) values too
	}{
		{"posit8+ master=posit(8,2)", false},
		{"fp32 master=posit(8,2) master_rounding=stochastic", false},
		{"p8-paper", true},
	} {
		t.Run(c.policy, func(t *testing.T) {
			tr := newTrainer(t, tinyCGAN(), toyData(t, 32, 8, 1), gan.Options{Policy: policyWith(t, c.policy), Batch: 16, Seed: 4})
			applied := 0
			for range 4 {
				st, err := tr.TrainStep()
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range st.Skipped {
					if !s {
						applied++
					}
				}
			}
			if applied == 0 {
				t.Fatal("every update was skipped: nothing tested")
			}
			ck, err := tr.Checkpoint()
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for name, ten := range ck.Tensors {
				isMoment := strings.HasPrefix(name, "adam.")
				isParam := !isMoment && !strings.Contains(name, "running_") && !strings.HasPrefix(name, "state/")
				if !isParam && !(c.moments && isMoment) {
					continue
				}
				for i, v := range ten.Data {
					if p82.Round(v) != v {
						t.Fatalf("%s[%d] = %g is not a posit(8,2) value", name, i, v)
					}
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("no tensor checked")
			}
		})
	}
}

// TestStochasticMasterMovesSmallUpdates: an update far below half an ulp
// of the stored weight is lost to nearest rounding but moves the weights
// under stochastic rounding, on average by the update.
func TestStochasticMasterMovesSmallUpdates(t *testing.T) {
	p82, err := quant.Parse("posit(8,2)")
	if err != nil {
		t.Fatal(err)
	}
	const n, steps = 4000, 40
	run := func(r quant.Rounding) []float32 {
		a := gan.NewAdam([]int{n})
		a.Formats = []gan.ParamFormats{{Master: nn.Quantizer{Format: p82, Rounding: r}}}
		a.Seed = 7
		p, g := make([]float32, n), make([]float32, n)
		for i := range p {
			p[i], g[i] = 1, 1 // 1 is a P(8,2) value; its ulp is 1/8, Adam's step 2e-4
		}
		for range steps {
			a.Step([][]float32{p}, [][]float32{g}, 1)
		}
		return p
	}
	for _, v := range run(quant.Nearest) {
		if v != 1 {
			t.Fatalf("nearest rounding moved a weight to %g", v)
		}
	}
	p := run(quant.Stochastic)
	var sum float64
	moved := 0
	for _, v := range p {
		if p82.Round(v) != v {
			t.Fatalf("%g is not a posit(8,2) value", v)
		}
		if v != 1 {
			moved++
		}
		sum += float64(v)
	}
	// Each step moves a weight down by one ulp below 1 (1/16) with
	// probability 2e-4/(1/16): about 0.13 moves per weight over 40 steps.
	// The mean must follow the float update, 40·2e-4 = 0.008, within a few
	// standard errors.
	drift := 1 - sum/n
	if moved < n/20 || math.Abs(drift-steps*2e-4) > 0.002 {
		t.Errorf("stochastic rounding: %d of %d weights moved, mean drift %.5f, want about %.5f", moved, n, drift, steps*2e-4)
	}
}

// TestAdamFormatsNoneIsFloat: a zero ParamFormats entry (or rounding to
// formats that hold every value) gives the float update's bits.
func TestAdamFormatsNoneIsFloat(t *testing.T) {
	f32 := func(fs []gan.ParamFormats) []float32 {
		a := gan.NewAdam([]int{64})
		a.Formats = fs
		p, g := make([]float32, 64), make([]float32, 64)
		for i := range p {
			p[i], g[i] = float32(i)/7-3, float32(i%9)-4.5
		}
		for range 5 {
			a.Step([][]float32{p}, [][]float32{g}, 8)
		}
		return append(p, append(a.M[0], a.V[0]...)...)
	}
	want := f32(nil)
	for _, fs := range [][]gan.ParamFormats{{{}}, {{Moment1: nn.Quantizer{Format: wide(t)}}}} {
		if i := sameBits(f32(fs), want); i >= 0 {
			t.Errorf("formats %+v: value %d differs from the float update's", fs, i)
		}
	}
}

// wide returns a format that holds every float32 value Adam produces here.
func wide(t *testing.T) quant.Format {
	f, err := quant.Parse("float(8,23)")
	if err != nil {
		t.Skip("float(8,23) not available:", err)
	}
	return f
}
