package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/positgan/positgan/internal/numfmt"
)

// readNumbers reads one number a line (numfmt.Parse: decimal, hex float,
// inf, -inf, nan), each rounded once to a float of the given bit size (32 or 64),
// skipping blank lines. A line that is not a number stops it with a usage
// error naming the line; the numbers before it are returned with the
// error, for the caller to write before reporting it.
func readNumbers(r io.Reader, bitSize int) ([]float64, error) {
	var xs []float64
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		x, err := numfmt.Parse(s, bitSize)
		if err != nil {
			return xs, usagef("line %d: %q is not a number", line, s)
		}
		xs = append(xs, x)
	}
	if err := sc.Err(); err != nil {
		return xs, fmt.Errorf("reading stdin: %w", err)
	}
	return xs, nil
}
