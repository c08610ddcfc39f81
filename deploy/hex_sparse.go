package deploy

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/positgan/positgan/internal/atomicfile"
)

// writeSparseHex writes a sparse tensor as a sparse accelerator loads it:
// tensors/<name>.values.hex, the kept codes one a line, and
// tensors/<name>.index.hex, one line per block of M with the block's N
// in-block indices packed into one word, index j in bits
// [j·IndexBits, (j+1)·IndexBits) (for 2:4, a 4-bit word per block as
// NVIDIA's sparse metadata). Both run row by row of the GEMM (the output
// side: for a linear layer the output features, for a transposed
// convolution the (out, ky, kx) taps), then block by block along the
// reduction axes; value line v·N+j (for a row without a short last block)
// is the value at index j of block v. A short last block (M does not
// divide the reduction length K) keeps min(N, K mod M) values; its unused
// index fields are zero.
func writeSparseHex(dir string, t *Tensor) ([]HexFile, error) {
	s := t.Sparse
	vals, idx, err := s.compress(t.Shape, t.Codes)
	if err != nil {
		return nil, fmt.Errorf("deploy: tensor %s: %w", t.Name, err)
	}
	outer, k, inner := s.layout(t.Shape)
	rows, blocks := outer*inner, (k+s.M-1)/s.M
	ib := s.IndexBits()
	words := make([]uint64, 0, rows*blocks)
	for v := 0; v < len(idx); {
		for b := 0; b < k; b += s.M {
			var w uint64
			for j := range min(s.N, k-b) {
				w |= uint64(idx[v]) << (j * ib)
				v++
			}
			words = append(words, w)
		}
	}
	base := "tensors/" + FileName(t.Name)
	files := []HexFile{
		{File: base + ".values.hex", Tensor: t.Name, Format: t.Format.String(), Bits: t.Format.Bits(),
			Shape: []int{rows, len(vals) / rows}, Memory: "values", Sparsity: s.String()},
		{File: base + ".index.hex", Tensor: t.Name, Format: "index", Bits: s.N * ib,
			Shape: []int{rows, blocks}, Memory: "indices", Sparsity: s.String()},
	}
	if err := writeHexFile(filepath.Join(dir, files[0].File), t.Name+" kept values ("+s.String()+" sparse, GEMM rows by blocks)",
		t.Format, files[0].Shape, vals); err != nil {
		return nil, err
	}
	digits := (files[1].Bits + 3) / 4
	err = atomicfile.Write(filepath.Join(dir, files[1].File), func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "// %s in-block indices (%s sparse): %d blocks of %d, %d rows; one block a line, index j at bits [%d·j, %d·j+%d)\n",
			t.Name, s, len(words), s.M, rows, ib, ib, ib); err != nil {
			return err
		}
		for _, c := range words {
			if _, err := fmt.Fprintf(w, "%0*x\n", digits, c); err != nil {
				return err
			}
		}
		return nil
	})
	return files, err
}
