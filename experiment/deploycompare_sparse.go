package experiment

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/sparsity"
)

// checkSparsity refuses dense and invalid patterns in o.Sparsity.
func (o *DeployOptions) checkSparsity() error {
	for _, p := range o.Sparsity {
		if err := p.Validate(); err != nil {
			return &DeployOptionError{Option: "Sparsity", Err: err}
		}
		if p.IsDense() {
			return &DeployOptionError{Option: "Sparsity", Err: fmt.Errorf("%v is dense: want N < M", p)}
		}
	}
	return nil
}

// sparseRows adds, for every pattern of o.Sparsity, the rows "FP32 N:M",
// and for every width b "Pb N:M" and "Pb+ N:M": the generator with every
// quantized layer's weights masked to the pattern by |w| along the
// reduction axes (deploy.Sparsify, on the float32 weights), exported
// compactly and run, in the format of the dense row of the same name. The
// + rows reuse the exponent biases the dense Pb+ row chose (no search:
// the mask changes the weights' histogram little, since it drops the
// smallest). PSNR is against the dense FP32 row; Zero and Saturated count
// the dense weights.
func (cm *comparer) sparseRows(widths []int) error {
	defer func() { cm.sparse = nil }()
	for _, p := range cm.o.Sparsity {
		cm.sparse = []deploy.Option{deploy.Sparsify(p, nil)}
		suffix := " " + p.String()
		if err := cm.fixed("FP32"+suffix, 32, nil, "", nil); err != nil {
			return err
		}
		cm.out.Rows[len(cm.out.Rows)-1].Sparsity = p
		for _, b := range widths {
			f, err := quant.Parse(deploy.PositFor(b))
			if err != nil {
				return err
			}
			label := "P" + strconv.Itoa(b)
			if err := cm.fixed(label+suffix, b, f, "", nil); err != nil {
				return err
			}
			cm.out.Rows[len(cm.out.Rows)-1].Sparsity = p
			dense := cm.row(label + "+")
			if dense == nil || dense.WeightBias == nil {
				return fmt.Errorf("experiment: deploy-compare: no %s+ row to take the biases of %s+%s from", label, label, suffix)
			}
			if err := cm.fixed(label+"+"+suffix, b, f, "", &[2][]int{dense.WeightBias, dense.ActBias}); err != nil {
				return err
			}
			cm.out.Rows[len(cm.out.Rows)-1].Sparsity = p
		}
	}
	return nil
}

// row returns the table's row of that label, or nil.
func (cm *comparer) row(label string) *DeployRow {
	for i := range cm.out.Rows {
		if cm.out.Rows[i].Label == label {
			return &cm.out.Rows[i]
		}
	}
	return nil
}

// ParsePatterns reads a comma-separated list of N:M patterns ("2:4,1:4"),
// as DeployOptions.Sparsity takes them; "" is none.
func ParsePatterns(s string) ([]sparsity.Pattern, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var ps []sparsity.Pattern
	for _, f := range strings.Split(s, ",") {
		p, err := sparsity.Parse(f)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}
