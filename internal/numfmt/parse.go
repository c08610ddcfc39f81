package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Parse reads a number as the format and approx commands read their
// input: a decimal or hex float, or inf, -inf, infinity or nan in any
// case, converted to the nearest float of bitSize bits (32 or 64) with
// one rounding (no detour through float64 for 32). Out of range gives
// ±Inf or ±0, as IEEE conversion does.
func Parse(s string, bitSize int) (float64, error) {
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

// Exact returns the shortest decimal that reads back as v at bitSize
// bits (32 or 64), with the spellings NaN, +Inf and -Inf: every digit of
// a value, as the format commands print inputs and rounded values.
func Exact(v float64, bitSize int) string {
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
