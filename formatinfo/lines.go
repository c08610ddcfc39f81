package formatinfo

import (
	"cmp"
	"errors"
	"io"

	"github.com/positgan/positgan/internal/numfmt"
	"github.com/positgan/positgan/quant"
)

// A ReadError is an error of the reader QuantizeLines reads, as opposed
// to a line that is not a number (*numfmt.LineError).
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// QuantizeLines reads one number a line from r (decimal, hex float, inf,
// -inf or nan, each rounded once to float32; blank lines skipped), as
// positgan format quantize reads stdin, and writes WriteQuantized's CSV
// of them to w. A line that is not a number ends the input: the rows of
// the numbers before it are written, then its *numfmt.LineError is
// returned; if there are none, nothing is written, not even the header.
// An error of r is a *ReadError.
func QuantizeLines(w io.Writer, r io.Reader, f quant.Format) error {
	return quantizeLines(r, func(xs []float32) error { return WriteQuantized(w, xs, f) })
}

// QuantizeBlockLines is QuantizeLines for a block format
// (WriteQuantizedBlocks): each run of b.Block() numbers read is a block.
func QuantizeBlockLines(w io.Writer, r io.Reader, b quant.BlockFormat) error {
	return quantizeLines(r, func(xs []float32) error { return WriteQuantizedBlocks(w, xs, b) })
}

// quantizeLines reads r's numbers as float32s and calls write with them,
// as QuantizeLines says.
func quantizeLines(r io.Reader, write func([]float32) error) error {
	xs64, bad := numfmt.ReadLines(r, 32)
	var le *numfmt.LineError
	if bad != nil && !errors.As(bad, &le) {
		bad = &ReadError{bad}
	}
	if len(xs64) == 0 && bad != nil {
		return bad // no header without rows
	}
	xs := make([]float32, len(xs64))
	for i, x := range xs64 {
		xs[i] = float32(x) // exact: each was rounded to float32 already
	}
	return cmp.Or(write(xs), bad)
}
