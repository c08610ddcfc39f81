package gan

// N:M structured sparsity in training (issue 31): the trainer tells the
// layers' weight masks the step, checkpoints keep the frozen masks, and
// sparsity.csv logs the sparsity each masked layer achieved.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/internal/numfmt"
	"github.com/positgan/positgan/nn"
)

// MaskTensor prefixes the checkpoint key of a frozen weight mask: the mask
// of the layer G/fc1 is "sparsity.mask/G/fc1.w", a tensor of the weight's
// shape holding 1 for a kept weight and 0 for a dropped one. Training
// reads it back on Resume (so a resumed run uses the same mask, bit for
// bit); exporters can read it to store what training used.
const MaskTensor = "sparsity.mask/"

// SparsityLog is the file in a run folder that logs, per step, the
// fraction of zeros in each masked layer's weights as its products read
// them (written only when the policy masks some layer).
const SparsityLog = "sparsity.csv"

// Masks returns the weight masks of the networks' layers that have an N:M
// Sparsity, in layer order.
func (n *Nets) Masks() []*nn.WeightMask {
	if n.masks != nil { // found when built: a step must not allocate
		return *n.masks
	}
	return n.findMasks()
}

func (n *Nets) findMasks() []*nn.WeightMask {
	var ms []*nn.WeightMask
	for _, g := range n.Groups {
		ms = append(ms, nn.Masks(g.Net)...)
	}
	return ms
}

// setMaskStep tells every mask the run's seed and the steps done.
func (n *Nets) setMaskStep(seed uint64, step int) {
	for _, m := range n.Masks() {
		m.SetStep(seed, step)
	}
}

// maskParam returns the name and shape of the weight tensor m masks.
func maskParam(n *Nets, m *nn.WeightMask) (string, []int, error) {
	name := m.Layer() + ".w"
	for _, p := range n.Params() {
		if p.Name == name {
			return name, p.Node.Shape().Clone(), nil
		}
	}
	return "", nil, fmt.Errorf("gan: no weight tensor %s for the mask of layer %s", name, m.Layer())
}

// saveMasks adds the frozen masks of n to c.
func saveMasks(c *ckpt.Checkpoint, n *Nets) error {
	for _, m := range n.Masks() {
		keep := m.Frozen()
		if keep == nil {
			continue
		}
		name, shape, err := maskParam(n, m)
		if err != nil {
			return err
		}
		data := make([]float32, len(keep))
		for i, k := range keep {
			if k {
				data[i] = 1
			}
		}
		c.Tensors[MaskTensor+name] = ckpt.Tensor{Shape: shape, Data: data}
	}
	return nil
}

// loadMasks freezes the masks of n that c holds frozen. A mask tensor must
// have its weight's shape, hold only 0 and 1 and conform to the layer's
// pattern; masks of layers n does not mask (loaded with another policy)
// are ignored.
func loadMasks(c *ckpt.Checkpoint, n *Nets) error {
	for _, m := range n.Masks() {
		name, shape, err := maskParam(n, m)
		if err != nil {
			return err
		}
		t, ok := c.Tensors[MaskTensor+name]
		if !ok {
			continue
		}
		if !slices.Equal(t.Shape, shape) || len(t.Data) != prodInts(shape) {
			return fmt.Errorf("gan: checkpoint mask %q has shape %v, the weights %v", MaskTensor+name, t.Shape, shape)
		}
		keep := make([]bool, len(t.Data))
		for i, v := range t.Data {
			switch v {
			case 0:
			case 1:
				keep[i] = true
			default:
				return fmt.Errorf("gan: checkpoint mask %q holds %v: want 0 or 1", MaskTensor+name, v)
			}
		}
		if err := m.Freeze(keep); err != nil {
			return fmt.Errorf("gan: checkpoint mask %q: %w", MaskTensor+name, err)
		}
	}
	return nil
}

func prodInts(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}

// copyMasks carries the frozen masks of from over to to, networks built
// again by the same model (a rebuild after a bias change).
func copyMasks(from, to *Nets) error {
	old, now := from.Masks(), to.Masks()
	if len(old) != len(now) {
		return fmt.Errorf("gan: rebuilt networks have %d weight masks, were %d", len(now), len(old))
	}
	for i, m := range old {
		if keep := m.Frozen(); keep != nil {
			if err := now[i].Freeze(keep); err != nil {
				return err
			}
		}
	}
	return nil
}

// sparsityLog writes SparsityLog: step, then one column per masked layer.
type sparsityLog struct {
	f *os.File
	w *bufio.Writer
}

// openSparsityLog opens dir's SparsityLog for appending after step (see
// openLog), or returns nil if no layer of n is masked.
func openSparsityLog(dir string, n *Nets, step int) (*sparsityLog, error) {
	ms := n.Masks()
	if len(ms) == 0 {
		return nil, nil
	}
	cols := []string{"step"}
	for _, m := range ms {
		cols = append(cols, m.Layer())
	}
	f, _, err := openLog(filepath.Join(dir, SparsityLog), strings.Join(cols, ","), step)
	if err != nil {
		return nil, err
	}
	return &sparsityLog{f: f, w: bufio.NewWriter(f)}, nil
}

// write logs the sparsity each mask of n last achieved, after step.
func (l *sparsityLog) write(step int, n *Nets) error {
	if l == nil {
		return nil
	}
	fmt.Fprintf(l.w, "%d", step)
	for _, m := range n.Masks() {
		a, _ := m.Achieved()
		fmt.Fprintf(l.w, ",%s", numfmt.Float(a))
	}
	io.WriteString(l.w, "\n")
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("gan: writing %s: %w", SparsityLog, err)
	}
	return nil
}

func (l *sparsityLog) Close() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}
