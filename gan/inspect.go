package gan

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
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
	// Promoted is, for Role "sum", the format the residual sum was
	// promoted to (see nn.Promotions): the policy names none for it.
	Promoted quant.Format
}

// Roles returns the tensor roles in the order Histograms returns them.
func Roles() []string { return []string{"weight", "act", "out", "err"} }

// Histograms measures the binade histograms of every quantized layer's
// weights, and of its activations, outputs and errors in one run of the
// generator's update (for a model that is not a Generator, the last
// update) on a batch of n drawn from seed, without data: for a GAN, G
// makes n images, D judges them, and the generator's loss is
// differentiated down to every layer. It returns them role by role,
// layers in the order the update applies them, followed by the residual
// sums promotion rounded (role "sum", with their Promoted format; see
// nn.Promotions), measured in the last update that trains a network
// holding such sums.
func Histograms(nets *Nets, n int, seed uint64) (hs []TensorHist, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gan: building the inspection graph: %v", r)
		}
	}()
	m := nets.Model
	ups := m.Updates()
	up := ups[len(ups)-1]
	if gm, ok := m.(Generator); ok {
		for _, u := range ups {
			if slices.Contains(u.Groups, gm.Generator().Net) {
				up = u
			}
		}
	}
	in, ts := newInputs(m, n)
	m.Feed(in, nil, rand.New(rand.NewPCG(seed, seedFor(seed, "inspect"))))
	u, err := inspectRun(nets, up, ts)
	if err != nil {
		return nil, err
	}
	taps := u.taps()
	vals := func(n *gorgonia.Node) []float32 { return n.Value().Data().([]float32) }
	weights := map[string][]float32{}
	for _, p := range nets.Params() {
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
				if t.Err != nil {
					h = scaling.Log2Histogram(*t.Err)
				}
			}
			hs = append(hs, TensorHist{Layer: t.Layer, Role: role, Hist: h})
		}
	}
	// The residual sums rounded to their inputs' promoted format, role
	// "sum", by name, from the last update that runs a network with
	// residual sums the policy leaves unnamed (the generator of an
	// ESRGAN or a CycleGAN, whose last update trains D alone).
	for i := len(ups) - 1; i >= 0; i-- {
		if su := ups[i]; promotable(nets, su) {
			if su.Name != up.Name {
				if u, err = inspectRun(nets, su, ts); err != nil {
					return nil, err
				}
			}
			break
		}
	}
	sums := nn.PromotedNodes(u.g)
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		n := sums[name]
		f, _ := nn.FormatOf(n)
		hs = append(hs, TensorHist{Layer: name, Role: "sum", Hist: scaling.Log2Histogram(vals(n)), Promoted: f})
	}
	return hs, nil
}

// inspectRun builds the graph of update up with capturing taps on the
// inputs ts, differentiates its loss and runs it once.
func inspectRun(nets *Nets, up Update, ts map[string]*tensor.Dense) (*Graph, error) {
	u := &Graph{update: up, g: gorgonia.NewGraph(), nets: nets, shared: map[string]nn.Module{},
		inputs: map[string]*gorgonia.Node{}, data: ts, scale: new(float64), capture: true, train: true}
	*u.scale = 1
	loss, err := nets.Model.Loss(u)
	if err != nil {
		return nil, err
	}
	ps, err := u.params()
	if err != nil {
		return nil, err
	}
	params := make(gorgonia.Nodes, len(ps))
	for i, p := range ps {
		params[i] = p.Node
	}
	if _, err := gorgonia.Grad(loss, params...); err != nil {
		return nil, fmt.Errorf("gan: inspection gradients: %w", err)
	}
	prog, err := graphexec.Compile(u.g.Roots()...)
	if err != nil {
		return nil, fmt.Errorf("gan: inspection graph: %w", err)
	}
	if err := prog.Run(); err != nil {
		return nil, fmt.Errorf("gan: inspection run: %w", err)
	}
	return u, nil
}

// promotable reports whether update up trains a network with residual
// sums whose format the policy leaves unnamed (nn.PromotableSums).
func promotable(nets *Nets, up Update) bool {
	for _, g := range nets.Groups {
		if slices.Contains(up.Groups, g.Name) && len(nn.PromotableSums(g.Net)) > 0 {
			return true
		}
	}
	return false
}
