package gan

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/scaling"
)

// TensorHist is the binade histogram of one tensor of one layer.
type TensorHist struct {
	Layer string
	// Role is "weight", "act" (the layer's input), "out" (its output) or
	// "err" (the error arriving at its output in the generator's step,
	// before loss scaling).
	Role string
	Hist scaling.Histogram
}

// Roles returns the tensor roles in the order Histograms returns them.
func Roles() []string { return []string{"weight", "act", "out", "err"} }

// Histograms measures the binade histograms of every quantized layer's
// weights, and of its activations, outputs and errors in one generator
// step on n latent vectors drawn from seed (G makes n images, D judges
// them, and the generator's loss is differentiated down to every layer).
// It returns them role by role, layers in network order.
func Histograms(m *models.GAN, n int, seed uint64) (hs []TensorHist, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gan: building the inspection graph: %v", r)
		}
	}()
	c := m.Config
	g := gorgonia.NewGraph()
	z, zd := input(g, "z", c.ZShape(n))
	r := rand.New(rand.NewPCG(seed, seedFor(seed, "inspect")))
	for i := range zd {
		zd[i] = float32(r.NormFloat64())
	}
	var y *gorgonia.Node
	if c.Classes > 0 {
		var yd []float32
		y, yd = input(g, "y", tensor.Shape{n, c.Classes})
		labels := make([]int, n)
		for i := range labels {
			labels[i] = i % c.Classes
		}
		oneHot(yd, labels, c.Classes)
	}
	G, D := m.G.Share(g), m.D.Share(g)
	G.CaptureErrors()
	D.CaptureErrors()
	fake, err := G.Fwd(z, y)
	if err != nil {
		return nil, err
	}
	out, err := D.Fwd(fake, y)
	if err != nil {
		return nil, err
	}
	loss, err := models.SoftplusMean(out, -1, nil)
	if err != nil {
		return nil, err
	}
	taps := append(G.Taps(), D.Taps()...)
	var params gorgonia.Nodes
	for _, p := range G.Params() {
		params = append(params, p.Node)
	}
	if _, err := gorgonia.Grad(loss, params...); err != nil {
		return nil, fmt.Errorf("gan: inspection gradients: %w", err)
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		return nil, fmt.Errorf("gan: inspection run: %w", err)
	}
	vals := func(n *gorgonia.Node) []float32 { return n.Value().Data().([]float32) }
	weights := map[string][]float32{}
	for _, p := range m.Params() {
		if p.Weight {
			weights[p.Layer] = p.Data()
		}
	}
	for _, role := range Roles() {
		for _, t := range taps {
			var h scaling.Histogram
			switch role {
			case "weight":
				h = scaling.Log2Histogram(weights[t.Layer])
			case "act":
				h = scaling.Log2Histogram(vals(t.In))
			case "out":
				h = scaling.Log2Histogram(vals(t.Out))
			case "err":
				h = scaling.Log2Histogram(*t.Err)
			}
			hs = append(hs, TensorHist{Layer: t.Layer, Role: role, Hist: h})
		}
	}
	return hs, nil
}
