package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// unarySaving is unary for an element-wise op whose backward pass reads
// a private copy its forward pass keeps (an activation's input or
// output): *keep turns true when the op's gradient is built. A node
// without one (an inference graph's, or a generator's forward pass
// inside a discriminator's update) keeps no copy: its forward pass
// computes the same values straight into its output, and holds nothing
// the size of its input beyond that.
func unarySaving(x *gorgonia.Node, name string, keep *bool, fwd func(x, y *tensor.Dense), bwd func(dy, dx *tensor.Dense)) (*gorgonia.Node, error) {
	n, err := unary(x, name, x.Shape(), fwd, bwd)
	if err != nil {
		return nil, err
	}
	op, ok := n.Op().(*diffOp)
	if !ok {
		return nil, fmt.Errorf("nn: %s: the node's op is a %T", name, n.Op())
	}
	grad := op.Grad
	op.Grad = func(inputs gorgonia.Nodes, output, g *gorgonia.Node) (gorgonia.Nodes, error) {
		*keep = true
		return grad(inputs, output, g)
	}
	return n, nil
}
