package nn

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/sparsity"
)

// Sparsity is the N:M structured sparsity of a dot-product layer (package
// sparsity), Arbitor's masking policy: the dense master weights are kept,
// and every read of them by the layer's products (forward and backward)
// sees them masked, the mask recomputed from the master values at each
// read. The mask applies before the layer's formats: the kept values are
// then rounded to the Weight format (or block format), the dropped ones
// are zero. The zero Sparsity masks nothing.
//
// Blocks run along the reduction dimension of the layer's forward product
// (see sparsity.Axis): the inputs of a Linear's (Out, In) weights, the
// InC·K·K of a convolution's (OutC, InC, K, K), the InC of a transposed
// convolution's (InC, OutC, K, K).
type Sparsity struct {
	// Weight is the pattern of the weights as the products read them.
	Weight sparsity.Pattern
	// Grad is the pattern of the weight gradient the optimizer sees,
	// chosen by the gradient's own scores (after the weight mask, which
	// passes gradient only to kept weights).
	Grad sparsity.Pattern
	// Score names the scorer (sparsity.Lookup); "" is abs.
	Score string
	// FixedAfter > 0 freezes the weight mask once that many steps are
	// done: the mask of the weights after step FixedAfter is used from
	// then on ("prune, then fine-tune"). Checkpoints keep the frozen mask.
	FixedAfter int
}

// Active reports whether s masks anything.
func (s Sparsity) Active() bool { return !s.Weight.IsDense() || !s.Grad.IsDense() }

// Check reports an error if a pattern is not valid, the scorer is not
// registered or FixedAfter is negative.
func (s Sparsity) Check() error {
	if err := s.Weight.Validate(); err != nil {
		return err
	}
	if err := s.Grad.Validate(); err != nil {
		return err
	}
	if _, err := sparsity.Lookup(s.Score); err != nil {
		return err
	}
	if s.FixedAfter < 0 {
		return fmt.Errorf("nn: sparsity: fixed_after %d must not be negative", s.FixedAfter)
	}
	return nil
}

// A WeightMask is the N:M mask state of one layer's weights, shared by the
// layer's copies in every graph (Share): the run's seed and step, which
// stochastic scorers and FixedAfter read, the frozen mask, and the
// sparsity of the weights last read. Masks returns those of a network; a
// trainer sets their step before each training step.
type WeightMask struct {
	layer      string
	spec       Sparsity
	score      sparsity.Scorer
	rows, cols int
	axis       sparsity.Axis
	wid, gid   uint64 // sparsity keys of the weights and of their gradient

	abs bool // the scorer is abs: sparsity.MaskAbs, no float64 scores
	// The tables of the fast kernels (sparse_kernel.go) for the weight
	// and gradient patterns, nil where the pattern has none.
	tab, gtab *maskTable

	mu         sync.Mutex
	seed, step uint64
	frozen     []bool // nil until frozen
	// The weight node last masked and its mask node: a layer read twice
	// in one graph (a discriminator on real and on fake images) reads the
	// same master values, so both reads share one mask op, which computes
	// the mask once per run and masks the summed gradient once (the
	// same bits: the dropped values are +0 either way). Not with a Grad
	// pattern, which masks each read's gradient by its own scores.
	last struct {
		w, y *gorgonia.Node
		st   *maskNode
	}
	// The weights the layer's products last read (their bits) and their
	// mask. Unless frozen or computed by the fast kernel (which costs less
	// than the check), it is also the last mask computed, with the key it
	// was computed from: a network read by two graphs between two updates
	// is masked once, and bit equality makes the reuse exact. Achieved
	// counts its zeros when asked, not at every read.
	cache struct {
		ok         bool // holds the mask of bits under seed and step
		read       bool // holds a read
		f64        bool // bits are float64s
		seed, step uint64
		bits       []byte
		keep       []bool
		size       int // of the read
		zeros      int // of the read, if counted (else bits and keep hold it)
		counted    bool
	}
}

// newWeightMask returns the mask state of a layer's rows × cols weights
// (blocks along axis), or nil if s masks nothing.
func newWeightMask(layer string, s Sparsity, rows, cols int, axis sparsity.Axis) (*WeightMask, error) {
	if !s.Active() {
		return nil, nil
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	sc, _ := sparsity.Lookup(s.Score)
	m := &WeightMask{layer: layer, spec: s, score: sc, rows: rows, cols: cols, axis: axis,
		abs: s.Score == "" || s.Score == sparsity.DefaultScorer,
		wid: sparsity.TensorID(layer + ".w"), gid: sparsity.TensorID(layer + ".w.grad")}
	if m.abs && hasMaskKernel(s.Weight, axis) {
		m.tab = newMaskTable(s.Weight)
	}
	if m.abs && hasMaskKernel(s.Grad, axis) {
		m.gtab = newMaskTable(s.Grad)
	}
	return m, nil
}

// Layer returns the name of the layer whose weights m masks.
func (m *WeightMask) Layer() string { return m.layer }

// Spec returns the layer's Sparsity.
func (m *WeightMask) Spec() Sparsity { return m.spec }

// Dims returns the weights as the mask sees them: a rows × cols matrix
// (the weight tensor's row-major data) with blocks along axis.
func (m *WeightMask) Dims() (rows, cols int, axis sparsity.Axis) { return m.rows, m.cols, m.axis }

// SetStep sets the run's seed and the number of steps done, which the
// masks computed from now on use (stochastic scores, FixedAfter).
func (m *WeightMask) SetStep(seed uint64, step int) {
	m.mu.Lock()
	m.seed, m.step = seed, uint64(max(step, 0))
	m.mu.Unlock()
}

// Frozen returns a copy of the frozen weight mask, or nil if the mask is
// not frozen.
func (m *WeightMask) Frozen() []bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.frozen)
}

// Freeze freezes the weight mask to keep (rows·cols values, true for a
// kept weight), as when resuming from a checkpoint. keep must conform to
// the layer's pattern: at most N kept values in every block.
func (m *WeightMask) Freeze(keep []bool) error {
	if len(keep) != m.rows*m.cols {
		return fmt.Errorf("nn: %s: frozen mask of %d values, want %d", m.layer, len(keep), m.rows*m.cols)
	}
	ones := make([]float32, len(keep))
	for i, k := range keep {
		if k {
			ones[i] = 1
		}
	}
	if !sparsity.Conforms(ones, m.rows, m.cols, m.spec.Weight, m.axis) {
		return fmt.Errorf("nn: %s: frozen mask keeps more than %v allows", m.layer, m.spec.Weight)
	}
	m.mu.Lock()
	m.frozen = slices.Clone(keep)
	m.mu.Unlock()
	return nil
}

// Achieved returns the fraction of zeros in the weights as the layer's
// products last read them (masked), and false if they were never read.
func (m *WeightMask) Achieved() (float64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &m.cache
	if !c.read || c.size == 0 {
		return 0, false
	}
	if !c.counted {
		c.zeros, c.counted = maskedZeros(c.bits, c.keep, c.f64), true
	}
	return float64(c.zeros) / float64(c.size), true
}

// maskedZeros returns how many of the values bits holds (float64s if f64,
// else float32s) are ±0 or dropped by keep: the zeros of the masked
// weights.
func maskedZeros(bits []byte, keep []bool, f64 bool) int {
	n := 0
	if f64 {
		v := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(bits))), len(keep))
		for i, k := range keep {
			if !k || v[i]<<1 == 0 {
				n++
			}
		}
		return n
	}
	v := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(bits))), len(keep))
	for i, k := range keep {
		if !k || v[i]<<1 == 0 {
			n++
		}
	}
	return n
}

// Mask sets keep to the weight mask the layer would use now for the
// weights w (the frozen one, if frozen), scratch holding scores; it
// returns scratch for reuse. Exporters use it to store what training
// used.
func (m *WeightMask) Mask(keep []bool, w []float32, scratch []float64) []float64 {
	return maskOf(m, keep, w, scratch, nil)
}

// maskOf sets keep to the weight mask of w: the frozen one, or one
// computed now from w (and frozen if FixedAfter says so). A y not nil
// makes the call a read of the weights by the layer's products: y is set
// to w masked, and the read is the one Achieved describes.
func maskOf[T compute.Float](m *WeightMask, keep []bool, w []T, scratch []float64, y []T) []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &m.cache
	bits := rawBytes(w)
	if m.frozen != nil {
		copy(keep, m.frozen)
		if y != nil {
			applyMask(y, w, keep)
			c.ok, c.read, c.counted = false, true, false
			c.f64 = !isFloat32(w)
			c.bits = append(c.bits[:0], bits...)
			c.keep = append(c.keep[:0], keep...)
			c.size = len(keep)
		}
		return scratch
	}
	if y != nil && m.tab != nil && sparseFast() && isFloat32(w) {
		// Masked and applied in one pass, which also counts the zeros:
		// less memory traffic than checking and copying the cache.
		zeros := maskApply32(keep, any(y).([]float32), any(w).([]float32), m.rows, m.cols, m.tab, m.spec.Weight.M)
		c.ok, c.read, c.counted, c.zeros = false, true, true, zeros
		c.size = len(keep)
		m.freezeIfDue(keep)
		return scratch
	}
	hit := c.ok && c.seed == m.seed && c.step == m.step && bytes.Equal(c.bits, bits)
	if hit {
		copy(keep, c.keep)
		if y != nil {
			applyMask(y, w, keep)
		}
	} else {
		if m.abs {
			sparsity.MaskAbs(keep, w, m.rows, m.cols, m.spec.Weight, m.axis)
		} else {
			k := sparsity.Key{Seed: m.seed, Step: m.step, Tensor: m.wid}
			scratch = sparsity.MaskValues(keep, w, m.rows, m.cols, m.spec.Weight, m.axis, m.score, k, scratch)
		}
		if y != nil {
			applyMask(y, w, keep)
		}
	}
	// An export's mask (y nil) is not cached, so that the cache stays the
	// layer's last read.
	if y != nil && !hit {
		c.ok, c.read, c.counted = true, true, false
		c.seed, c.step, c.f64 = m.seed, m.step, !isFloat32(w)
		c.bits = append(c.bits[:0], bits...)
		c.keep = append(c.keep[:0], keep...)
		c.size = len(keep)
	}
	m.freezeIfDue(keep)
	return scratch
}

// freezeIfDue freezes the mask to keep if FixedAfter steps are done.
func (m *WeightMask) freezeIfDue(keep []bool) {
	if m.spec.FixedAfter > 0 && m.step >= uint64(m.spec.FixedAfter) {
		m.frozen = slices.Clone(keep)
	}
}

// rawBytes returns the bytes of w's values.
func rawBytes[T compute.Float](w []T) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*int(unsafe.Sizeof(w[0])))
}

// isFloat32 reports whether w holds float32s.
func isFloat32[T compute.Float](w []T) bool {
	_, ok := any(w).([]float32)
	return ok
}

// applyMask sets dst to src where keep and to +0 elsewhere
// (sparsity.Apply), on the fast kernel for float32.
func applyMask[T compute.Float](dst, src []T, keep []bool) {
	if d, ok := any(dst).([]float32); ok {
		apply32(d, any(src).([]float32), keep)
		return
	}
	sparsity.Apply(dst, src, keep)
}

// Masks returns the weight masks of the layers in net that have a
// Sparsity, in the order of Layers.
func Masks(net Module) []*WeightMask {
	var ms []*WeightMask
	Walk(net, func(c Module) {
		q, ok := c.(*quantLayer)
		if !ok {
			return
		}
		var r *roles
		switch {
		case q.lin != nil:
			r = q.lin.roles
		case q.conv != nil:
			r = q.conv.roles
		default:
			r = q.tconv.roles
		}
		if r.mask != nil && !slices.Contains(ms, r.mask) {
			ms = append(ms, r.mask)
		}
	})
	return ms
}

// maskNode is one application of a weight mask in a graph: its own mask
// buffer, so that the backward pass uses the mask of its forward.
//
// Without a Grad pattern, the layers that read the masked weights mask
// their own weight gradients in place (maskGrad), while their product
// has just written them, and the mask op passes the gradient through:
// one pass over a buffer in cache instead of a copy into another.
type maskNode struct {
	m           *WeightMask
	shape       tensor.Shape
	keep, gkeep []bool
	scores      []float64
	y, dw       outBuf
	layerGrad   bool // the layers mask the gradient (maskGrad)
}

// maskGrad masks dw, the gradient of the weights st masked as a layer's
// product read them, in place, if the layers mask the gradient; st may
// be nil (no mask). It panics if st's forward has not run.
func (st *maskNode) maskGrad(dw *tensor.Dense) {
	if st == nil || !st.layerGrad {
		return
	}
	if len(st.keep) != dw.Size() {
		panic(fmt.Sprintf("nn: %s: weight mask gradient before its forward", st.m.layer))
	}
	if isF64(dw) {
		applyMask(data[float64](dw), data[float64](dw), st.keep)
	} else {
		applyMask(data[float32](dw), data[float32](dw), st.keep)
	}
}

// maskWeight returns w masked by m as the layer's products read it, or w
// itself if m is nil, and the mask op, whose maskGrad the layer must call
// on its weight gradient. The gradient reaches only the kept weights, and
// is masked again by the Grad pattern.
func maskWeight(w *gorgonia.Node, m *WeightMask) (*gorgonia.Node, *maskNode, error) {
	if m == nil {
		return w, nil, nil
	}
	m.mu.Lock()
	if m.last.w == w {
		y, st := m.last.y, m.last.st
		m.mu.Unlock()
		return y, st, nil
	}
	m.mu.Unlock()
	shape := w.Shape().Clone()
	if shape.TotalSize() != m.rows*m.cols {
		return nil, nil, fmt.Errorf("nn: %s: weights of shape %v, mask of %d×%d", m.layer, shape, m.rows, m.cols)
	}
	st := &maskNode{m: m, shape: shape, layerGrad: m.spec.Grad.IsDense()}
	op := &diffOp{
		Func: funcOp{Name: fmt.Sprintf("SparseMask[%s %p](%+v)", m.layer, st, m.spec), In: []tensor.Shape{shape}, Out: shape, Fn: st.forward},
		WRT:  []bool{true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		if st.layerGrad { // masked by the layers (maskGrad)
			return gorgonia.Nodes{grad}, nil
		}
		bop := &funcOp{Name: op.Name + ".dw", In: []tensor.Shape{shape}, Out: shape, Fn: st.backward}
		n, err := apply(bop, grad)
		if err != nil {
			return nil, err
		}
		return gorgonia.Nodes{n}, nil
	}
	y, err := apply(op, w)
	if err != nil {
		return nil, nil, err
	}
	if m.spec.Grad.IsDense() {
		m.mu.Lock()
		m.last.w, m.last.y, m.last.st = w, y, st
		m.mu.Unlock()
	}
	return y, st, nil
}

func (st *maskNode) forward(in []*tensor.Dense) (*tensor.Dense, error) {
	y := st.y.Get(in[0].Dtype(), st.shape)
	st.keep = grow(st.keep, in[0].Size())
	if isF64(y) {
		maskForward(st, data[float64](in[0]), data[float64](y))
	} else {
		maskForward(st, data[float32](in[0]), data[float32](y))
	}
	return y, nil
}

func maskForward[T compute.Float](st *maskNode, w, y []T) {
	st.scores = maskOf(st.m, st.keep, w, st.scores, y)
}

func (st *maskNode) backward(in []*tensor.Dense) (*tensor.Dense, error) {
	dw := st.dw.Get(in[0].Dtype(), st.shape)
	if len(st.keep) != in[0].Size() {
		return nil, fmt.Errorf("nn: %s: weight mask gradient before its forward", st.m.layer)
	}
	if isF64(dw) {
		maskBackward(st, data[float64](in[0]), data[float64](dw))
	} else {
		maskBackward(st, data[float32](in[0]), data[float32](dw))
	}
	return dw, nil
}

func maskBackward[T compute.Float](st *maskNode, dy, dw []T) {
	applyMask(dw, dy, st.keep)
	m := st.m
	if m.spec.Grad.IsDense() {
		return
	}
	st.gkeep = grow(st.gkeep, len(dw))
	m.mu.Lock()
	k := sparsity.Key{Seed: m.seed, Step: m.step, Tensor: m.gid}
	m.mu.Unlock()
	if m.gtab != nil && sparseFast() && isFloat32(dw) {
		d := any(dw).([]float32)
		maskApply32(st.gkeep, d, d, m.rows, m.cols, m.gtab, m.spec.Grad.M)
		return
	}
	if m.abs {
		sparsity.MaskAbs(st.gkeep, dw, m.rows, m.cols, m.spec.Grad, m.axis)
	} else {
		st.scores = sparsity.MaskValues(st.gkeep, dw, m.rows, m.cols, m.spec.Grad, m.axis, m.score, k, st.scores)
	}
	applyMask(dw, dw, st.gkeep)
}
