package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/positgan/positgan/internal/numfmt"
)

// readNumbers reads stdin's numbers (numfmt.ReadLines): a line that is
// not a number is a usage error naming the line; the numbers before it
// are returned with the error, for the caller to write before reporting
// it.
func readNumbers(r io.Reader, bitSize int) ([]float64, error) {
	xs, err := numfmt.ReadLines(r, bitSize)
	var le *numfmt.LineError
	if errors.As(err, &le) {
		return xs, usageError{err}
	} else if err != nil {
		return xs, fmt.Errorf("reading stdin: %w", err)
	}
	return xs, nil
}
