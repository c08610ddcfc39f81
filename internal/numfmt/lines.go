package numfmt

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// A LineError is a line of input that is not a number.
type LineError struct {
	Line int    // from 1
	Text string // the line, without surrounding space
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %q is not a number", e.Line, e.Text) }

// ReadLines reads one number a line (Parse: decimal, hex float, inf,
// -inf, nan), each rounded once to a float of bitSize bits (32 or 64),
// skipping blank lines. A line that is not a number stops it with a
// *LineError; the numbers before it are returned with the error, for the
// caller to use before reporting it. An error of r is returned as it is.
func ReadLines(r io.Reader, bitSize int) ([]float64, error) {
	var xs []float64
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		x, err := Parse(s, bitSize)
		if err != nil {
			return xs, &LineError{Line: line, Text: s}
		}
		xs = append(xs, x)
	}
	return xs, sc.Err()
}
