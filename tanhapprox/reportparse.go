package tanhapprox

// The texts that name a Report's input sets and a table's piece counts,
// as positgan approx's flags give them.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A ParseError says which text (Text) ParseRange, ParseGrid, ParsePieces
// or ParsePWLMethod cannot read, and what it wants instead (Want).
type ParseError struct {
	Text, Want string
}

func (e *ParseError) Error() string { return fmt.Sprintf("tanhapprox: %q: want %s", e.Text, e.Want) }

// ParseRange reads "LO:HI", the bounds of a Report's codes, LO <= HI.
func ParseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.ParseFloat(a, 64)
	hi, err2 := strconv.ParseFloat(b, 64)
	if !ok || err1 != nil || err2 != nil || !(lo <= hi) {
		return 0, 0, &ParseError{s, "LO:HI with LO <= HI"}
	}
	return lo, hi, nil
}

// ParseGrid reads "LO:HI:N", a Report's grid of N points evenly spaced on
// [LO,HI]: LO < HI finite and 2 <= N <= 1e8.
func ParseGrid(s string) (lo, hi float64, n int, err error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return 0, 0, 0, &ParseError{s, "LO:HI:N"}
	}
	if lo, hi, err = ParseRange(s[:i]); err != nil {
		return 0, 0, 0, &ParseError{s, "LO:HI:N with LO <= HI"} // the whole text, not its LO:HI
	}
	n, err = strconv.Atoi(s[i+1:])
	if err != nil || n < 2 || n > 1e8 || lo == hi || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 0, 0, &ParseError{s, "LO:HI:N with finite LO < HI and 2 <= N <= 1e8"}
	}
	return lo, hi, n, nil
}

// ParsePieces reads comma-separated piece counts of piecewise-linear
// methods, each in [2, MaxPieces]; blank text is none. The Text of its
// error is the item it cannot read.
func ParsePieces(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 2 || k > MaxPieces {
			return nil, &ParseError{f, fmt.Sprintf("piece counts in [2,%d]", MaxPieces)}
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// ParsePWLMethod reads a method "pwl:K" (or "pwlK") and returns K, K in
// [2, MaxPieces]; ok is false if method is not a pwl one.
func ParsePWLMethod(method string) (k int, ok bool, err error) {
	s, ok := strings.CutPrefix(method, "pwl")
	if !ok {
		return 0, false, nil
	}
	k, err = strconv.Atoi(strings.TrimPrefix(s, ":"))
	if err != nil || k < 2 || k > MaxPieces {
		return 0, true, &ParseError{method, fmt.Sprintf("pwl:K with K an integer in [2,%d]", MaxPieces)}
	}
	return k, true, nil
}
