// Package lns is a worked example of bringing your own number format to
// positgan: a logarithmic number system, registered with quant.Register so
// that "lns(n,f)" works wherever a format name does (quant.Parse, policy
// files, checkpoints, training). Importing the package registers it.
//
// lns(n,f) is n bits: a sign bit, then an (n-1)-bit two's-complement
// fixed-point base-2 logarithm L with f fraction bits. A code (s, L) has
// the value (-1)^s·2^(L/2^f), except L = -2^(n-2) (the most negative
// logarithm), which is 0 with s = 0 and NaN with s = 1. Rounding is to the
// nearest logarithm (ties, which fall at geometric means, to even);
// magnitudes beyond the largest value saturate, ±Inf included; magnitudes
// below the smallest value by more than half a step of L become 0. There
// is no -0.
//
// Only String, Bits, Encode and Decode are written here: quant.FromCodec
// derives the rounding kernels from them.
package lns

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/positgan/positgan/quant"
)

// LNS is the format lns(n,f). It is a comparable value.
type LNS struct{ n, f int }

// New returns lns(n,f) for 3 <= n <= 16 and 0 <= f <= n-2.
func New(n, f int) (LNS, error) {
	if n < 3 || n > 16 || f < 0 || f > n-2 {
		return LNS{}, fmt.Errorf("lns(%d,%d): want 3 <= n <= 16 and 0 <= f <= n-2", n, f)
	}
	return LNS{n, f}, nil
}

func init() {
	if err := quant.Register("lns", parse); err != nil {
		panic(err)
	}
}

// parse reads the arguments of lns(n,f).
func parse(args []string) (quant.Codec, error) {
	if len(args) != 2 {
		return nil, errors.New("lns takes (n,f): width and fraction bits of the logarithm")
	}
	n, err1 := strconv.Atoi(args[0])
	f, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("lns(%s,%s): arguments must be integers", args[0], args[1])
	}
	return New(n, f)
}

func (l LNS) String() string { return fmt.Sprintf("lns(%d,%d)", l.n, l.f) }

// Bits returns n.
func (l LNS) Bits() int { return l.n }

// lmin and lmax bound the logarithm field; lmin itself is reserved.
func (l LNS) lmin() int { return -1 << (l.n - 2) }
func (l LNS) lmax() int { return 1<<(l.n-2) - 1 }

// code packs a sign and a logarithm.
func (l LNS) code(neg bool, lg int) uint32 {
	c := uint32(lg) & (1<<(l.n-1) - 1)
	if neg {
		c |= 1 << (l.n - 1)
	}
	return c
}

// Decode returns the value of code c.
func (l LNS) Decode(c uint32) float64 {
	c &= 1<<l.n - 1
	neg := c>>(l.n-1) == 1
	sh := 33 - l.n // sign-extend the (n-1)-bit logarithm
	lg := int(int32(c<<sh) >> sh)
	switch {
	case lg == l.lmin() && neg:
		return math.NaN()
	case lg == l.lmin():
		return 0
	}
	v := math.Exp2(float64(lg) / float64(int(1)<<l.f))
	if neg {
		v = -v
	}
	return v
}

// Encode returns the code x rounds to.
func (l LNS) Encode(x float32) uint32 {
	switch {
	case x != x:
		return l.code(true, l.lmin())
	case x == 0:
		return l.code(false, l.lmin())
	}
	a := math.Abs(float64(x))
	lg := math.Log2(a) * float64(int(1)<<l.f) // the logarithm, in units of L
	if lg < float64(l.lmin())+0.5 {
		return l.code(false, l.lmin()) // nearer 0 than the smallest value
	}
	r := int(min(math.RoundToEven(lg), float64(l.lmax())))
	return l.code(x < 0, max(r, l.lmin()+1))
}
