package nn

import (
	"fmt"
	"github.com/positgan/positgan/internal/graphop"

	"github.com/positgan/positgan/internal/gemm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The custom-op plumbing lives in internal/graphop.
type (
	funcOp = graphop.Func
	diffOp = graphop.Diff
	outBuf = graphop.OutBuf
)

// data returns the backing slice of a float32 or float64 tensor.
func data[T gemm.Float](d *tensor.Dense) []T { return d.Data().([]T) }

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
