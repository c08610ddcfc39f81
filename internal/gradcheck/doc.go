// Package gradcheck checks the gradients of Gorgonia graphs against float64
// central finite differences.
//
// Gorgonia v0.9.18 has ops with silently wrong gradients, so every op the
// project relies on, and every custom op it writes, is checked here first.
//
// API:
//
//	// Build a fresh graph and check d(loss)/d(params):
//	err := gradcheck.Check(func(g *gorgonia.ExprGraph) (*gorgonia.Node, []*gorgonia.Node, error) {
//		...
//		return loss, []*gorgonia.Node{w, x}, nil
//	}, nil) // nil: default step and tolerances
//
//	// Or check an already built graph (CheckGraph calls gorgonia.Grad):
//	err = gradcheck.CheckGraph(loss, []*gorgonia.Node{w, x}, &gradcheck.Options{Step: 1e-4})
//
//	// Or take the steps apart, e.g. to compare against a transformed
//	// numeric gradient (a quantized backward pass):
//	sym, err := gradcheck.Symbolic(loss, wrt)  // gorgonia.Grad + TapeMachine
//	num, err := gradcheck.Numeric(loss, wrt, h) // central differences
//	err = gradcheck.Compare(wrt, sym, num, opts)
//
// Requirements: the loss is a float64 scalar node; each node checked is a
// leaf (an input or learnable parameter) whose value is a float64
// *tensor.Dense bound before the call (WithValue or WithInit); the graph is
// deterministic (no dropout, no stochastic rounding). Gradients are
// returned in flat row-major order, one []float64 per node.
//
// Method: symbolic gradients come from gorgonia.Grad nodes run on a plain
// TapeMachine (no BindDualValues, so gradients do not accumulate across
// runs: Gorgonia issue 543). The graph is run twice and the two symbolic
// gradients must agree bit for bit, which catches accumulation and stale
// state. Numeric gradients perturb each element in place by ±Step and take
// (f(x+h) - f(x-h)) / 2h; after every run the checked values must be
// unchanged, which catches ops that write into their inputs (a Reshape
// view followed by an in-place op: issue 511).
//
// Tolerance: element i passes when |sym - num| <= AbsTol + RelTol·max(|sym|, |num|).
// The defaults (Step 1e-6, RelTol 1e-5, AbsTol 1e-8) suit smooth functions
// of O(1) values: the truncation error of central differences is
// O(h²·f⁽³⁾), about 1e-12, and the cancellation error about
// 1e-16·|f|/h = 1e-10·|f|. Non-smooth functions (ReLU, max-pool, rounding)
// need test points away from their kinks, or, for functions that are exact
// on a grid (a quantizer applied to grid values), a power-of-two Step that
// keeps x±h on the grid.
package gradcheck
