package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/internal/graphop"
)

// The custom-op plumbing lives in internal/graphop.
type (
	funcOp = graphop.Func
	diffOp = graphop.Diff
	outBuf = graphop.OutBuf
)

// data returns the backing slice of a float32 or float64 tensor. It
// panics if the tensor holds another type. Dense.Data would box the slice
// through reflection, an allocation per call and so thousands per
// training step; the typed accessors do not allocate.
func data[T compute.Float](d *tensor.Dense) []T {
	var s []T
	switch p := any(&s).(type) {
	case *[]float32:
		if d.Dtype() != tensor.Float32 {
			panic(fmt.Sprintf("nn: %v tensor where float32 is wanted", d.Dtype()))
		}
		*p = d.Float32s()
	case *[]float64:
		if d.Dtype() != tensor.Float64 {
			panic(fmt.Sprintf("nn: %v tensor where float64 is wanted", d.Dtype()))
		}
		*p = d.Float64s()
	}
	return s
}

// grow returns a slice of length n, reusing buf's storage when it can.
func grow[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]T, n)
}

func isF64(d *tensor.Dense) bool { return d.Dtype() == tensor.Float64 }

// apply adds op to x's graph applied to children.
func apply(op gorgonia.Op, children ...*gorgonia.Node) (*gorgonia.Node, error) {
	n, err := gorgonia.ApplyOp(op, children...)
	if err != nil {
		return nil, fmt.Errorf("nn: %v: %w", op, err)
	}
	return n, nil
}

func prod(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}
