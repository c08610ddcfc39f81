package quant

import (
	"fmt"
	"math"
	"slices"
)

// MaxDescribeBits is the widest format Describe takes: it decodes every
// code.
const MaxDescribeBits = 16

// Description is what a format's codes add up to: its range, its precision
// near 1 and how its positive values spread over the binades. Describe
// fills it in.
type Description struct {
	Format Format

	FiniteCodes    int // codes with a finite value, zeros and negatives included
	PositiveValues int // distinct positive finite values

	MinPos float64 // smallest positive finite value
	MaxPos float64 // largest positive finite value
	// MinNormal is the smallest positive normal value of a Float (below it
	// lie the subnormals, if any: then MinNormal > MinPos); 0 for formats
	// without the distinction, posits and fixed point.
	MinNormal float64

	// GapBelow and GapAbove are the distances from 1 to the nearest
	// positive values below and above it (other than 1 itself); 0 when
	// there is none on that side.
	GapBelow, GapAbove float64

	// Binades counts the positive values binade by binade, in increasing
	// order, from MinPos's binade to MaxPos's. Binades in between that hold
	// no value are listed with Values 0, so the gaps of a tapered format
	// show.
	Binades []Binade
}

// Binade counts the positive values of a format that lie in [2^Exp,
// 2^(Exp+1)).
type Binade struct {
	Exp    int
	Values int
}

// Decades returns the dynamic range log10(MaxPos/MinPos).
func (d Description) Decades() float64 { return math.Log10(d.MaxPos / d.MinPos) }

// Gap returns the larger of GapBelow and GapAbove: the precision of f near
// 1.
func (d Description) Gap() float64 { return math.Max(d.GapBelow, d.GapAbove) }

// Describe decodes every code of f, which may have at most MaxDescribeBits
// bits, and sums them up. A format with no positive finite value is an
// error.
func Describe(f Format) (Description, error) {
	if f.Bits() > MaxDescribeBits {
		return Description{}, fmt.Errorf("quant: %v has %d bits; Describe takes formats of at most %d bits", f, f.Bits(), MaxDescribeBits)
	}
	d := Description{Format: f}
	var pos []float64 // distinct positive values
	for c := uint32(0); c < 1<<f.Bits(); c++ {
		v := f.Decode(c)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		d.FiniteCodes++
		if v > 0 {
			pos = append(pos, v)
		}
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	if len(pos) == 0 {
		return Description{}, fmt.Errorf("quant: %v has no positive finite values", f)
	}
	d.PositiveValues = len(pos)
	d.MinPos, d.MaxPos = pos[0], pos[len(pos)-1]
	if fl, ok := f.(Float); ok {
		d.MinNormal = fl.MinNormal()
	}

	i, exact := slices.BinarySearch(pos, 1) // pos[i] is the first value >= 1
	if i > 0 {
		d.GapBelow = 1 - pos[i-1]
	}
	if exact {
		i++
	}
	if i < len(pos) {
		d.GapAbove = pos[i] - 1
	}

	lo := binadeOf(d.MinPos)
	d.Binades = make([]Binade, binadeOf(d.MaxPos)-lo+1)
	for j := range d.Binades {
		d.Binades[j].Exp = lo + j
	}
	for _, v := range pos {
		d.Binades[binadeOf(v)-lo].Values++
	}
	return d, nil
}

// binadeOf returns e with v in [2^e, 2^(e+1)), for a positive finite v.
func binadeOf(v float64) int {
	_, e := math.Frexp(v) // v = frac·2^e, frac in [0.5, 1)
	return e - 1
}
