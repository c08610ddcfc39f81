package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/positgan/positgan/formatinfo"
	"github.com/positgan/positgan/internal/numfmt"
)

// readNumbers reads stdin's numbers (numfmt.ReadLines): a line that is
// not a number is a usage error naming the line (inputError); the
// numbers before it are returned with the error, for the caller to write
// before reporting it.
func readNumbers(r io.Reader, bitSize int) ([]float64, error) {
	xs, err := numfmt.ReadLines(r, bitSize)
	var le *numfmt.LineError
	if err != nil && !errors.As(err, &le) {
		err = &formatinfo.ReadError{Err: err}
	}
	return xs, inputError(err)
}

// inputError words the errors of reading stdin's numbers: a line that is
// not a number (*numfmt.LineError) is a usage error naming the line, an
// error of stdin (*formatinfo.ReadError) says so.
func inputError(err error) error {
	var le *numfmt.LineError
	var re *formatinfo.ReadError
	switch {
	case errors.As(err, &le):
		return usageError{err}
	case errors.As(err, &re):
		return fmt.Errorf("reading stdin: %w", re.Err)
	}
	return err
}
