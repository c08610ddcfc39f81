package gradcheck

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Options set the finite-difference step and the tolerance. A nil
// *Options, or a zero field, means the default: Step 1e-6, RelTol 1e-5,
// AbsTol 1e-8, which suit smooth functions of O(1) values (see the
// package documentation for the derivation).
type Options struct {
	// Step is the central-difference step h.
	Step float64
	// RelTol and AbsTol: element i passes when
	// |sym - num| <= AbsTol + RelTol·max(|sym|, |num|).
	RelTol, AbsTol float64
}

// withDefaults returns o with zero fields set to the defaults.
func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Step == 0 {
		r.Step = 1e-6
	}
	if r.RelTol == 0 {
		r.RelTol = 1e-5
	}
	if r.AbsTol == 0 {
		r.AbsTol = 1e-8
	}
	return r
}

// Builder builds a graph in g and returns its scalar loss and the leaf
// nodes to differentiate with respect to.
type Builder func(g *gorgonia.ExprGraph) (loss *gorgonia.Node, wrt []*gorgonia.Node, err error)

// Check builds a fresh graph with build and checks the symbolic gradients
// of its loss against central differences.
func Check(build Builder, opts *Options) error {
	g := gorgonia.NewGraph()
	loss, wrt, err := build(g)
	if err != nil {
		return fmt.Errorf("gradcheck: building the graph: %w", err)
	}
	return CheckGraph(loss, wrt, opts)
}

// CheckGraph checks d(loss)/d(wrt) of a built graph: it adds the gradient
// nodes (gorgonia.Grad), runs the graph, and compares with central
// differences.
func CheckGraph(loss *gorgonia.Node, wrt []*gorgonia.Node, opts *Options) error {
	o := opts.withDefaults()
	sym, err := Symbolic(loss, wrt)
	if err != nil {
		return err
	}
	num, err := Numeric(loss, wrt, o.Step)
	if err != nil {
		return err
	}
	return Compare(wrt, sym, num, &o)
}

// Symbolic returns the gradients of loss with respect to each node of wrt,
// from gorgonia.Grad nodes run on a TapeMachine. It runs the graph twice
// and reports an error if the two runs disagree (gradients accumulating
// across runs, issue 543) or if a run changes a value of wrt.
func Symbolic(loss *gorgonia.Node, wrt []*gorgonia.Node) ([][]float64, error) {
	if err := checkNodes(loss, wrt); err != nil {
		return nil, err
	}
	grads, err := gorgonia.Grad(loss, wrt...)
	if err != nil {
		return nil, fmt.Errorf("gradcheck: gorgonia.Grad: %w", err)
	}
	m, err := newMachine(loss.Graph())
	if err != nil {
		return nil, err
	}
	defer m.Close()
	saved := snapshot(wrt)
	var runs [2][][]float64
	for r := range runs {
		if err := run(m); err != nil {
			return nil, err
		}
		if err := unchanged(wrt, saved); err != nil {
			return nil, err
		}
		runs[r] = make([][]float64, len(wrt))
		for i, gn := range grads {
			v, err := floats(gn.Value())
			if err != nil {
				return nil, fmt.Errorf("gradcheck: gradient of %s: %w", wrt[i].Name(), err)
			}
			if len(v) != len(saved[i]) {
				return nil, fmt.Errorf("gradcheck: gradient of %s has %d elements, the node %d", wrt[i].Name(), len(v), len(saved[i]))
			}
			runs[r][i] = v
		}
	}
	for i := range wrt {
		for j := range runs[0][i] {
			a, b := runs[0][i][j], runs[1][i][j]
			if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				return nil, fmt.Errorf("gradcheck: gradient of %s[%d] changed between identical runs: %g then %g (accumulating gradients? Gorgonia issue 543)",
					wrt[i].Name(), j, a, b)
			}
		}
	}
	return runs[1], nil
}

// Numeric returns central-difference gradients of loss with respect to each
// node of wrt: (f(x+h) - f(x-h)) / 2h element by element. The values of
// wrt are perturbed in place and restored bit for bit before it returns.
func Numeric(loss *gorgonia.Node, wrt []*gorgonia.Node, h float64) ([][]float64, error) {
	if err := checkNodes(loss, wrt); err != nil {
		return nil, err
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("gradcheck: step %g is not a positive finite number", h)
	}
	m, err := newMachine(loss.Graph())
	if err != nil {
		return nil, err
	}
	defer m.Close()
	saved := snapshot(wrt)
	defer restore(wrt, saved)
	// f evaluates the loss with element j of node i set to v.
	f := func(i, j int, v float64) (float64, error) {
		denseData(wrt[i])[j] = v
		if err := run(m); err != nil {
			return 0, err
		}
		if err := unchangedExcept(wrt, saved, i, j, v); err != nil {
			return 0, err
		}
		l, err := floats(loss.Value())
		if err != nil || len(l) != 1 {
			return 0, fmt.Errorf("gradcheck: loss value %v is not a float64 scalar", loss.Value())
		}
		return l[0], nil
	}
	num := make([][]float64, len(wrt))
	for i, n := range wrt {
		data := denseData(n)
		num[i] = make([]float64, len(data))
		for j, x := range data {
			fp, err := f(i, j, x+h)
			if err != nil {
				return nil, err
			}
			fm, err := f(i, j, x-h)
			if err != nil {
				return nil, err
			}
			data[j] = x
			// Divide by the step actually taken: x±h is rounded.
			num[i][j] = (fp - fm) / ((x + h) - (x - h))
		}
	}
	return num, nil
}

// Compare compares symbolic gradients with expected ones (usually from
// Numeric) element by element and returns an error naming the worst
// mismatch (largest excess over the tolerance) and how many elements
// failed. Only opts' RelTol and AbsTol are used.
func Compare(wrt []*gorgonia.Node, sym, want [][]float64, opts *Options) error {
	o := opts.withDefaults()
	if len(sym) != len(wrt) || len(want) != len(wrt) {
		panic("gradcheck: Compare: lengths differ")
	}
	var (
		bad        int
		worst      = -1.0
		wi, wj     int
		total      int
		worstS, wN float64
	)
	for i := range wrt {
		if len(sym[i]) != len(want[i]) {
			panic("gradcheck: Compare: lengths differ")
		}
		for j := range sym[i] {
			total++
			s, n := sym[i][j], want[i][j]
			diff := math.Abs(s - n)
			// float64(…) stops arm64 fusing a multiply-add: same verdict as amd64.
			tol := o.AbsTol + float64(o.RelTol*math.Max(math.Abs(s), math.Abs(n)))
			excess := diff / tol
			if math.IsNaN(diff) {
				if math.IsNaN(s) && math.IsNaN(n) {
					continue
				}
				excess = math.Inf(1)
			}
			if diff <= tol {
				continue
			}
			bad++
			if excess > worst {
				worst, wi, wj, worstS, wN = excess, i, j, s, n
			}
		}
	}
	if bad == 0 {
		return nil
	}
	n := wrt[wi]
	return &MismatchError{
		Node: n.Name(), Index: wj, Coords: coords(n.Shape(), wj),
		Symbolic: worstS, Numeric: wN, Bad: bad, Total: total,
		RelTol: o.RelTol, AbsTol: o.AbsTol,
	}
}

// MismatchError reports gradients that differ beyond the tolerance.
type MismatchError struct {
	Node              string // name of the node with the worst mismatch
	Index             int    // flat row-major index of the worst element
	Coords            []int  // its coordinates
	Symbolic, Numeric float64
	Bad, Total        int // elements out of tolerance, elements checked
	RelTol, AbsTol    float64
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("gradcheck: %d of %d gradient elements out of tolerance (rel %g, abs %g); worst d/d%s%v: symbolic %.17g, numeric %.17g",
		e.Bad, e.Total, e.RelTol, e.AbsTol, e.Node, e.Coords, e.Symbolic, e.Numeric)
}

func coords(s tensor.Shape, i int) []int {
	c := make([]int, len(s))
	for k := len(s) - 1; k >= 0; k-- {
		c[k] = i % s[k]
		i /= s[k]
	}
	return c
}

func checkNodes(loss *gorgonia.Node, wrt []*gorgonia.Node) error {
	if loss == nil {
		return errors.New("gradcheck: nil loss node")
	}
	if !loss.IsScalar() || loss.Dtype() != tensor.Float64 {
		return fmt.Errorf("gradcheck: loss %s is %v, want a float64 scalar", loss.Name(), loss.Type())
	}
	if len(wrt) == 0 {
		return errors.New("gradcheck: no nodes to check")
	}
	for _, n := range wrt {
		if n == nil {
			return errors.New("gradcheck: nil node to check")
		}
		if n.Op() != nil {
			return fmt.Errorf("gradcheck: %s is not a leaf node (op %v)", n.Name(), n.Op())
		}
		if n.Graph() != loss.Graph() {
			return fmt.Errorf("gradcheck: %s is not in the loss's graph", n.Name())
		}
		d, ok := n.Value().(*tensor.Dense)
		if !ok || d.Dtype() != tensor.Float64 {
			return fmt.Errorf("gradcheck: %s: value is %T, want a float64 *tensor.Dense bound before the check", n.Name(), n.Value())
		}
	}
	return nil
}

// newMachine compiles g; NewTapeMachine panics on compile errors.
func newMachine(g *gorgonia.ExprGraph) (m gorgonia.VM, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gradcheck: compiling the graph: %v", r)
		}
	}()
	return gorgonia.NewTapeMachine(g), nil
}

func run(m gorgonia.VM) error {
	defer m.Reset()
	if err := m.RunAll(); err != nil {
		return fmt.Errorf("gradcheck: running the graph: %w", err)
	}
	return nil
}

func denseData(n *gorgonia.Node) []float64 {
	return n.Value().(*tensor.Dense).Data().([]float64)
}

func snapshot(ns []*gorgonia.Node) [][]float64 {
	s := make([][]float64, len(ns))
	for i, n := range ns {
		s[i] = slices.Clone(denseData(n))
	}
	return s
}

func restore(ns []*gorgonia.Node, s [][]float64) {
	for i, n := range ns {
		copy(denseData(n), s[i])
	}
}

func unchanged(ns []*gorgonia.Node, s [][]float64) error {
	for i, n := range ns {
		for j, v := range denseData(n) {
			if math.Float64bits(v) != math.Float64bits(s[i][j]) {
				return fmt.Errorf("gradcheck: running the graph changed input %s[%d] from %g to %g (an in-place op on a view? Gorgonia issue 511)", n.Name(), j, s[i][j], v)
			}
		}
	}
	return nil
}

// unchangedExcept is unchanged for use during Numeric, where element j of
// node i is perturbed to v.
func unchangedExcept(ns []*gorgonia.Node, s [][]float64, pi, pj int, pv float64) error {
	for i, n := range ns {
		for j, v := range denseData(n) {
			want := s[i][j]
			if i == pi && j == pj {
				want = pv
			}
			if math.Float64bits(v) != math.Float64bits(want) {
				return fmt.Errorf("gradcheck: running the graph changed input %s[%d] from %g to %g (an in-place op on a view? Gorgonia issue 511)", n.Name(), j, want, v)
			}
		}
	}
	return nil
}

// floats returns the elements of a float64 Value.
func floats(v gorgonia.Value) ([]float64, error) {
	switch v := v.(type) {
	case nil:
		return nil, errors.New("no value")
	case *gorgonia.F64:
		return []float64{float64(*v)}, nil
	case tensor.Tensor:
		if v.Dtype() != tensor.Float64 {
			return nil, fmt.Errorf("dtype %v, want float64", v.Dtype())
		}
		switch d := v.Data().(type) {
		case []float64:
			return slices.Clone(d), nil
		case float64:
			return []float64{d}, nil
		}
	}
	return nil, fmt.Errorf("value %T is not float64", v)
}
