package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// readNumbers reads one number a line (decimal, hex float, inf, -inf,
// nan), each rounded once to a float of the given bit size (32 or 64),
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
		x, err := parseNumber(s, bitSize)
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

// parseNumber converts decimal, hex-float, inf and nan spellings to the
// nearest float of bitSize bits (one rounding, no detour through float64
// for 32).
func parseNumber(s string, bitSize int) (float64, error) {
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), nil
	case "-inf", "-infinity":
		return math.Inf(-1), nil
	case "nan", "+nan", "-nan":
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, bitSize)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, nil // ±Inf or ±0, as IEEE conversion gives
		}
		return 0, err
	}
	return v, nil
}

// numberString is the shortest decimal that round-trips v as a float of
// bitSize bits, with the spellings NaN, +Inf and -Inf.
func numberString(v float64, bitSize int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, bitSize)
}
