package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/graphop"
)

// A Module is a network or a part of one: a layer, an activation, or a
// container of modules. Its parameters live in one graph; Share makes a
// copy for another graph over the same tensors, which is how a trainer
// builds one graph per update (Gorgonia cannot take two gradients of one
// graph over overlapping paths).
type Module interface {
	// Forward adds the module applied to x to x's graph. p carries the
	// pass's labels and hooks; it may be nil.
	Forward(p *Pass, x *gorgonia.Node) (*gorgonia.Node, error)
	// Params returns the learnable tensors, in a fixed order.
	Params() []Param
	// Buffers returns the tensors that are state but not learnt (batch
	// norm's running statistics), in a fixed order.
	Buffers() []Buffer
	// Share returns a copy of the module for graph g holding the same
	// parameter and buffer tensors: an update through one is seen by all.
	Share(g *gorgonia.ExprGraph) Module
}

// Param is a learnable tensor of a network.
type Param struct {
	Name  string // e.g. "G/fc1.w": unique within a model, its checkpoint key
	Layer string // the layer it belongs to, e.g. "G/fc1"
	// Weight is true for the weight tensor of a quantized layer (the
	// tensor whose exponent bias is chosen per layer).
	Weight bool
	// Quantized is true for the weights and bias of a quantized layer,
	// whose gradients the layer rounds to its WGrad format.
	Quantized bool
	Node      *gorgonia.Node

	wc *weightCache // the layer's rounded weights, for a Weight tensor (wcache.go)
}

// Data returns the parameter's float32 values (its backing slice). After
// writing to them, call Changed.
func (p Param) Data() []float32 { return graphop.Float32s(p.Node.Value()) }

// Changed records that p's values were written (through Data or the
// node's tensor): a layer that caches its rounded weights (CacheWeights)
// rounds them again at its next read. Writers of a network's parameters
// (an optimiser, a checkpoint load, a weight import) call it after each
// write; for a parameter whose layer caches nothing it does nothing.
func (p Param) Changed() { p.wc.changed() }

// Buffer is a tensor of a module's state that is not learnt.
type Buffer struct {
	Name   string // e.g. "G/bn2.running_mean": its checkpoint key
	Tensor *tensor.Dense
}

// Data returns the buffer's float32 values (its backing slice).
func (b Buffer) Data() []float32 { return graphop.Float32s(b.Tensor) }

// Layers returns the names of m's quantized layers, in order: the names
// policies address ("G/fc1", "G_AB/res3/conv1").
func Layers(m Module) []string {
	var names []string
	for _, p := range m.Params() {
		if p.Weight {
			names = append(names, p.Layer)
		}
	}
	return names
}

// Trainable is a module whose behaviour differs between training and
// evaluation (batch norm). SetTraining sets the mode of this copy only:
// a sampler's copy can evaluate while the trainer's copies train.
type Trainable interface {
	SetTraining(on bool)
}

// Parent is a module made of other modules.
type Parent interface {
	Children() []Module
}

// Walk calls f for m and, depth first, every module inside it.
func Walk(m Module, f func(Module)) {
	f(m)
	if p, ok := m.(Parent); ok {
		for _, c := range p.Children() {
			Walk(c, f)
		}
	}
}

// SetTraining puts every Trainable module of m in training (on) or
// evaluation mode.
func SetTraining(m Module, on bool) {
	Walk(m, func(c Module) {
		if t, ok := c.(Trainable); ok {
			t.SetTraining(on)
		}
	})
}

// Pass is what one use of modules in a graph shares: the labels that
// conditional layers read and the hooks of quantized layers. The zero
// Pass (or a nil one) has no labels and no hooks.
type Pass struct {
	// Cond holds one-hot labels (batch, classes) for layers built with
	// Conditional.
	Cond *gorgonia.Node
	// Capture makes quantized layers record, after each run with a
	// backward pass, the gradient arriving at their output in Tap.Err.
	Capture bool
	// Watch, if not nil, is shown in every backward pass the gradient
	// arriving at each quantized layer's output (before the layer rounds
	// it to its Err format), as loss scaling needs to see errors that
	// saturate. It must not keep dy.
	Watch func(layer string, dy []float32)
	// WatchLayer, if not nil, says which layers Watch sees: the others
	// get no watching node, whose identity pass costs two copies of the
	// layer's output per step.
	WatchLayer func(layer string) bool
	// FreezeStats keeps batch norm from updating its running statistics
	// in this pass (in training mode it still normalises by the batch).
	FreezeStats bool
	// Taps receives one entry per quantized layer applied in this pass.
	Taps []Tap

	known map[*gorgonia.Node]Quantizer // the Out roles of quantized layers' outputs (promote.go)
}

// Tap records one application of a quantized layer: its input and output
// nodes, whose values after a run are the layer's activations.
type Tap struct {
	Layer   string
	In, Out *gorgonia.Node
	// Err, with Pass.Capture, holds after a run with a backward pass the
	// gradient that arrived at Out (the layer's error).
	Err *[]float32
}

func (p *Pass) cond() *gorgonia.Node {
	if p == nil {
		return nil
	}
	return p.Cond
}

func (p *Pass) frozen() bool { return p != nil && p.FreezeStats }

// tap records a quantized layer's application and, if the pass has
// hooks, returns y behind a node that shows them its gradient.
func (p *Pass) tap(layer string, x, y *gorgonia.Node) (*gorgonia.Node, error) {
	if p == nil {
		return y, nil
	}
	t := Tap{Layer: layer, In: x, Out: y}
	watch := p.Watch
	if watch != nil && p.WatchLayer != nil && !p.WatchLayer(layer) {
		watch = nil
	}
	if p.Capture || watch != nil {
		var dst *[]float32
		if p.Capture {
			dst = new([]float32)
			t.Err = dst
		}
		var err error
		if y, err = watchGrad(y, func(dy []float32) {
			if dst != nil {
				*dst = append((*dst)[:0], dy...)
			}
			if watch != nil {
				watch(layer, dy)
			}
		}); err != nil {
			return nil, err
		}
	}
	p.Taps = append(p.Taps, t)
	return y, nil
}

// watchGrad returns x unchanged; in the backward pass it passes the
// gradient through and shows it to f first. Both directions hand on their
// input itself rather than a copy: the op owns no buffer (it is no
// graphop.Releaser), so a program keeps the input alive as long as the
// result, and nothing writes into a node's value but the op computing it.
// The copies cost a pass over every quantized layer's output and its
// gradient at each step.
func watchGrad(x *gorgonia.Node, f func(dy []float32)) (*gorgonia.Node, error) {
	shape := x.Shape().Clone()
	name := fmt.Sprintf("WatchGrad(%p)", &f)
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{shape}, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			return in[0], nil
		}},
		WRT: []bool{true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		bop := &funcOp{Name: name + ".dx", In: []tensor.Shape{shape}, Out: shape, Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			f(data[float32](in[0]))
			return in[0], nil
		}}
		n, err := apply(bop, grad)
		return gorgonia.Nodes{n}, err
	}
	return apply(op, x)
}
