package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ZeroGrads sets the gradients of nodes to zero. Gradients bound with
// gorgonia.BindDualValues are added to on every run (Gorgonia issue 543);
// a training loop that does not call a solver's Step after each run must
// call ZeroGrads before the next one. Gorgonia's solvers consume the
// gradients they step with, so after Step it is not needed. Nodes without
// a gradient are skipped.
func ZeroGrads(nodes gorgonia.Nodes) error {
	for _, n := range nodes {
		g, err := n.Grad()
		if err != nil || g == nil {
			continue
		}
		t, ok := g.(tensor.Tensor)
		if !ok {
			return fmt.Errorf("nn: zero gradient of %s: a %T, want a tensor", n.Name(), g)
		}
		t.Zero()
	}
	return nil
}
