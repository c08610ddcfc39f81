package nn_test

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// inFormat reports whether every value of x is a value of f (nil: any).
func inFormat(f quant.Format, x []float32) bool {
	if f == nil {
		return true
	}
	for _, v := range x {
		if f.Round(v) != v {
			return false
		}
	}
	return true
}

// stage is one module of the chain TestPaperPresetsRoundLayerByLayer
// builds, with the formats its output and the gradient it sends back
// must be in.
type stage struct {
	name string
	m    nn.Module
	dot  bool // a dot-product layer (Out, Err) rather than another layer (Other)
}

// TestPaperPresetsRoundLayerByLayer runs a forward and backward pass of a
// small network (Linear, BatchNorm, LeakyReLU, a residual block, Tanh)
// under each paper preset and checks, module by module, that the tensors
// its source sentence names are rounded: each dot-product layer's output
// to its Out format and the gradient it sends back to its Err format;
// each other layer's output and the gradient it sends back to the Other
// format. It also checks that the roles a preset leaves float32 are not
// rounded: the other layers of posit8+ produce values outside P(16,1).
func TestPaperPresetsRoundLayerByLayer(t *testing.T) {
	for _, c := range []struct {
		preset   string
		other    string // the format the sentence names for other layers ("": float32)
		narrower string // other-layer outputs must not all be in this format: not rounded further
	}{
		{preset: "p8-paper", other: "posit(8,2)"},
		{preset: "p8+-paper", other: "posit(16,1)", narrower: "posit(8,1)"},
		{preset: "fp8-ibm-paper", other: "float(6,9)", narrower: "fp8-ibm-fwd"},
		{preset: "fp16-apex", other: "fp16", narrower: "fp8-e5m2"},
		{preset: "posit8+", other: "", narrower: "posit(16,1)"},
	} {
		t.Run(c.preset, func(t *testing.T) {
			pol, err := policy.Preset(c.preset)
			if err != nil {
				t.Fatal(err)
			}
			var want quant.Format
			if c.other != "" {
				if want, err = quant.Parse(c.other); err != nil {
					t.Fatal(err)
				}
			}
			g := gorgonia.NewGraph()
			s := nn.NewScope(g, pol.For, 5).Sub("G")
			stages := []stage{
				{"G/fc1", s.Linear("fc1", 6, 8), true},
				{"G/bn1", s.BatchNorm("bn1", 8), false},
				{"G/leaky_relu", s.LeakyReLU(0.2), false},
				{"G/fc2", s.Linear("fc2", 8, 4), true},
				{"G/add", s.Residual(nn.Seq(s.Linear("fc3", 4, 4), s.ReLU())), false},
				{"G/tanh", s.Tanh(), false},
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			x := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(5, 6), tensor.WithBacking(randFloats(rng, 30))), gorgonia.WithName("x"))
			// After each stage, a node that records the gradient arriving
			// there: the one the next stage sends back.
			outs := make(gorgonia.Nodes, len(stages))
			grads := make([][]float32, len(stages))
			h := x
			for i, st := range stages {
				if h, err = st.m.Forward(nil, h); err != nil {
					t.Fatal(err)
				}
				outs[i] = h
				if h, err = nn.WatchGrad(h, func(dy []float32) { grads[i] = append(grads[i][:0], dy...) }); err != nil {
					t.Fatal(err)
				}
			}
			// The loss Σ h·c, whose gradient at the last output is c.
			cn := gorgonia.NodeFromAny(g, tensor.New(tensor.WithShape(5, 4), tensor.WithBacking(randFloats(rng, 20))), gorgonia.WithName("c"))
			prod, err := gorgonia.HadamardProd(h, cn)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := gorgonia.Sum(prod)
			if err != nil {
				t.Fatal(err)
			}
			first := stages[0].m.Params()[0].Node
			if _, err := gorgonia.Grad(loss, first); err != nil {
				t.Fatal(err)
			}
			vm := gorgonia.NewTapeMachine(g)
			defer vm.Close()
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			for i, st := range stages {
				lf := pol.For(st.name)
				y := outs[i].Value().Data().([]float32)
				if st.dot {
					if !inFormat(lf.Out.Format, y) {
						t.Errorf("%s: output not in its Out format %v", st.name, lf.Out)
					}
				} else {
					if lf.Other.Format != want {
						t.Errorf("%s: Other format %v, the preset's sentence says %v", st.name, lf.Other.Format, want)
					}
					if !inFormat(want, y) {
						t.Errorf("%s: output not in %v", st.name, want)
					}
					// (Not the residual add: a sum of two values of 8-bit
					// formats is often exact in a wider one anyway.)
					if c.narrower != "" && st.name != "G/add" {
						if n, _ := quant.Parse(c.narrower); inFormat(n, y) {
							t.Errorf("%s: every output is in %v too: rounded more than the preset says", st.name, n)
						}
					}
				}
				// The gradient stage i sends back arrives at the output of
				// stage i-1 (at the residual block's input: the sum of
				// both branches' gradients, rounded by the block).
				if i == 0 {
					continue
				}
				dy := grads[i-1]
				wantGrad := want
				if st.dot {
					wantGrad = lf.Err.Format
				}
				if !inFormat(wantGrad, dy) {
					t.Errorf("%s: gradient sent back not in %v", st.name, wantGrad)
				}
			}
		})
	}
}

func randFloats(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}
