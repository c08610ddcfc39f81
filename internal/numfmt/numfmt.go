// Package numfmt formats the numbers of the CSV files positgan writes
// (log.csv, results.csv, runs.csv, the format and eval commands' output),
// so that every writer prints a value the same way: the shortest decimal
// that reads back as the value, without the float noise of float64
// arithmetic (a mean printed as 0.9840192999999999).
package numfmt

import (
	"math"
	"strconv"
)

// Float returns the shortest decimal that reads back as v, except that a
// value whose shortest decimal needs 16 or 17 significant digits is
// printed to 15 (0.9840192999999999 as 0.9840193): those last digits are
// the rounding error of the sum or mean that made v, not information, and
// 15 digits read back within one part in 10^15. Infinities and NaN are
// spelled inf, -inf and nan, as Python and Go's ParseFloat read them.
func Float(v float64) string {
	if s, ok := special(v); ok {
		return s
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if significantDigits(s) <= 15 {
		return s
	}
	return strconv.FormatFloat(v, 'g', 15, 64)
}

// Float32 returns the shortest decimal that reads back as v at float32
// precision: for figures computed in float32, such as a step's losses.
func Float32(v float32) string {
	if s, ok := special(float64(v)); ok {
		return s
	}
	return strconv.FormatFloat(float64(v), 'g', -1, 32)
}

func special(v float64) (string, bool) {
	switch {
	case math.IsNaN(v):
		return "nan", true
	case math.IsInf(v, 1):
		return "inf", true
	case math.IsInf(v, -1):
		return "-inf", true
	}
	return "", false
}

// significantDigits counts the digits of the mantissa of a decimal that
// strconv.FormatFloat wrote, leading zeros excluded.
func significantDigits(s string) int {
	n, lead := 0, true
	for _, c := range s {
		switch {
		case c == 'e' || c == 'E':
			return n
		case c == '0' && lead:
		case c >= '0' && c <= '9':
			n++
			lead = false
		}
	}
	return n
}
