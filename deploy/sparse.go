package deploy

import (
	"fmt"
	"math/bits"
)

// Sparsity says that a tensor is N:M sparse and stored compactly: along
// its reduction axes (the dot products' dimension), every block of M
// consecutive values holds at most N non-zero codes, and the file keeps
// only N values of each block with their in-block indices. The zero
// Sparsity is a dense tensor.
//
// The reduction axes are Shape[From:To], flattened row-major: a weight
// tensor is a matrix of rows (the axes before From and after To, the
// GEMM's output side) each reduced over the K values of those axes. A
// linear layer's (out, in) weights reduce over axes [1, 2), a
// convolution's (out, in, k, k) over [1, 4) (in·k·k, im2col's column), a
// transposed convolution's (in, out, k, k) over [0, 1) (its GEMM sums over
// the input channels, one sum per output channel and kernel tap). The
// last block of a row is shorter when M does not divide K; it keeps
// min(N, its length) values.
type Sparsity struct {
	N, M     int
	From, To int
}

// Dense reports whether s is the zero Sparsity.
func (s Sparsity) Dense() bool { return s == Sparsity{} }

// String returns "N:M" ("" for dense).
func (s Sparsity) String() string {
	if s.Dense() {
		return ""
	}
	return fmt.Sprintf("%d:%d", s.N, s.M)
}

// maxBlock bounds M, as the policies do (Arbitor's range; NVIDIA's is 4).
const maxBlock = 16

// IndexBits returns the bits of one in-block index, ⌈log2 M⌉: the file
// and the memory files give every kept value its own index, as NVIDIA's
// 2:4 metadata does (2 bits per value), rather than one rank per block.
func (s Sparsity) IndexBits() int { return bits.Len(uint(s.M - 1)) }

// ReductionAxes returns the reduction axes [from, to) of a layer's weight
// tensor for its kind (Layer.Kind), false for a kind it does not know.
func ReductionAxes(kind string) (from, to int, ok bool) {
	switch kind {
	case "linear":
		return 1, 2, true
	case "conv2d":
		return 1, 4, true
	case "convtranspose2d":
		return 0, 1, true
	}
	return 0, 0, false
}

// valid reports whether s can describe a tensor of the shape.
func (s Sparsity) valid(shape []int) error {
	if s.N < 1 || s.N >= s.M || s.M > maxBlock || s.From < 0 || s.From >= s.To || s.To > len(shape) {
		return fmt.Errorf("sparsity %d:%d over axes [%d, %d) of shape %v: want 1 <= N < M <= %d and axes within the shape",
			s.N, s.M, s.From, s.To, shape, maxBlock)
	}
	return nil
}

// layout returns the tensor's rows as (outer, k, inner): value (o, j, i)
// is at (o·k + j)·inner + i, and row (o, i) reduces over j.
func (s Sparsity) layout(shape []int) (outer, k, inner int) {
	outer, k, inner = 1, 1, 1
	for a, d := range shape {
		switch {
		case a < s.From:
			outer *= d
		case a < s.To:
			k *= d
		default:
			inner *= d
		}
	}
	return outer, k, inner
}

// kept returns the number of values a tensor of the shape keeps.
func (s Sparsity) kept(shape []int) int {
	outer, k, inner := s.layout(shape)
	return outer * inner * (k/s.M*s.N + min(s.N, k%s.M))
}

// compress returns the kept codes and their in-block indices, row by row
// (rows in order (o, i)), block by block, ascending within a block. The
// kept positions of a block are its non-zero codes, then, to make N (or
// the short block's min(N, length)), its first zero codes. A block with
// more non-zero codes than that is an error.
func (s Sparsity) compress(shape []int, codes []uint32) (vals, idx []uint32, err error) {
	outer, k, inner := s.layout(shape)
	n := s.kept(shape)
	vals, idx = make([]uint32, 0, n), make([]uint32, 0, n)
	for o := range outer {
		for i := range inner {
			for b := 0; b < k; b += s.M {
				size := min(s.M, k-b)
				keep := min(s.N, size)
				at := func(j int) uint32 { return codes[(o*k+b+j)*inner+i] }
				nz := 0
				for j := range size {
					if at(j) != 0 {
						nz++
					}
				}
				if nz > keep {
					return nil, nil, fmt.Errorf("%d non-zero values in a block of %d at row %d, value %d: not %s sparse",
						nz, size, o*inner+i, b, s)
				}
				pad := keep - nz // zeros kept, the first ones
				for j := range size {
					if c := at(j); c != 0 || pad > 0 {
						if c == 0 {
							pad--
						}
						vals, idx = append(vals, c), append(idx, uint32(j))
					}
				}
			}
		}
	}
	return vals, idx, nil
}

// expand returns the dense codes of a tensor of the shape from its kept
// codes and indices (as compress returns them): zero codes everywhere
// else. The indices of a block must ascend strictly and lie within it.
func (s Sparsity) expand(shape []int, vals, idx []uint32) ([]uint32, error) {
	outer, k, inner := s.layout(shape)
	if len(vals) != s.kept(shape) || len(idx) != len(vals) {
		return nil, fmt.Errorf("%d values and %d indices for %d kept", len(vals), len(idx), s.kept(shape))
	}
	codes := make([]uint32, outer*k*inner)
	v := 0
	for o := range outer {
		for i := range inner {
			for b := 0; b < k; b += s.M {
				size := min(s.M, k-b)
				prev := -1
				for range min(s.N, size) {
					j := int(idx[v])
					if j <= prev || j >= size {
						return nil, fmt.Errorf("index %d after %d in a block of %d at row %d, value %d: want ascending indices within the block",
							j, prev, size, o*inner+i, b)
					}
					codes[(o*k+b+j)*inner+i] = vals[v]
					prev = j
					v++
				}
			}
		}
	}
	return codes, nil
}
