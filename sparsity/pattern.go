package sparsity

import (
	"strconv"
	"strings"
)

// MaxM is the largest block size a Pattern may have.
const MaxM = 16

// A Pattern is N:M structured sparsity: at most N non-zero values in every
// block of M consecutive values. The zero Pattern is dense (no mask).
type Pattern struct {
	N, M int
}

// PatternError reports a string that names no pattern, or a Pattern out of
// range.
type PatternError string

func (e PatternError) Error() string { return "sparsity: bad pattern: " + string(e) }

// Parse returns the Pattern s names: "N:M" with 1 ≤ N ≤ M ≤ MaxM, in
// decimal digits, or "dense" (or "") for the zero Pattern. Spaces around s
// are ignored. Parse(p.String()) == p for every valid p.
func Parse(s string) (Pattern, error) {
	t := strings.TrimSpace(s)
	if t == "" || t == "dense" {
		return Pattern{}, nil
	}
	ns, ms, ok := strings.Cut(t, ":")
	if !ok {
		return Pattern{}, PatternError(strconv.Quote(s) + ": want N:M (e.g. 2:4) or dense")
	}
	n, okN := digits(ns)
	m, okM := digits(ms)
	if !okN || !okM {
		return Pattern{}, PatternError(strconv.Quote(s) + ": N and M must be decimal numbers")
	}
	p := Pattern{N: n, M: m}
	if err := p.Validate(); err != nil {
		return Pattern{}, PatternError(strconv.Quote(s) + ": " + err.Error()[len("sparsity: bad pattern: "):])
	}
	return p, nil
}

// digits parses a short run of decimal digits (no sign, at most 3 digits,
// which keeps every accepted number far from overflow).
func digits(s string) (int, bool) {
	if len(s) == 0 || len(s) > 3 {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// Validate reports whether p is the zero (dense) Pattern or has
// 1 ≤ N ≤ M ≤ MaxM.
func (p Pattern) Validate() error {
	if p == (Pattern{}) {
		return nil
	}
	if p.N < 1 || p.M < 1 || p.N > p.M || p.M > MaxM {
		return PatternError("need 1 ≤ N ≤ M ≤ " + strconv.Itoa(MaxM) + ", have " + strconv.Itoa(p.N) + ":" + strconv.Itoa(p.M))
	}
	return nil
}

// IsDense reports whether p keeps every value: the zero Pattern, or N == M.
func (p Pattern) IsDense() bool { return p.N == p.M }

// Density returns the largest fraction of values p keeps, N/M (1 if dense).
func (p Pattern) Density() float64 {
	if p.IsDense() {
		return 1
	}
	return float64(p.N) / float64(p.M)
}

// String returns "N:M", or "dense" for the zero Pattern.
func (p Pattern) String() string {
	if p == (Pattern{}) {
		return "dense"
	}
	return strconv.Itoa(p.N) + ":" + strconv.Itoa(p.M)
}

// MarshalText implements encoding.TextMarshaler with String.
func (p Pattern) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with Parse.
func (p *Pattern) UnmarshalText(b []byte) error {
	q, err := Parse(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}
