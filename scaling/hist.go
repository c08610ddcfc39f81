package scaling

import (
	"math"
	"sort"
)

// Histogram counts the values of a tensor by binade: Counts[e] is how many
// values have |x| in [2^e, 2^(e+1)).
type Histogram struct {
	Counts    map[int]int
	Zeros     int // exact zeros
	NonFinite int // ±Inf and NaN
}

// Log2Histogram returns the binade histogram of src.
func Log2Histogram(src []float32) Histogram {
	h := Histogram{Counts: map[int]int{}}
	h.Add(src)
	return h
}

// Add counts the values of src into h.
func (h *Histogram) Add(src []float32) {
	if h.Counts == nil {
		h.Counts = map[int]int{}
	}
	for _, x := range src {
		b := math.Float32bits(x) & 0x7fffffff
		switch e := int(b >> 23); {
		case b == 0:
			h.Zeros++
		case e == 0xff:
			h.NonFinite++
		case e == 0: // float32 subnormal: exponent from the leading one
			h.Counts[-149+31-leadingZeros32(b)]++
		default:
			h.Counts[e-127]++
		}
	}
}

func leadingZeros32(x uint32) int {
	n := 0
	for x&0x80000000 == 0 {
		x <<= 1
		n++
	}
	return n
}

// Total returns the number of nonzero finite values counted.
func (h Histogram) Total() int {
	n := 0
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Binades returns the occupied binade exponents in increasing order.
func (h Histogram) Binades() []int {
	es := make([]int, 0, len(h.Counts))
	for e := range h.Counts {
		es = append(es, e)
	}
	sort.Ints(es)
	return es
}

// Quantile returns the binade exponent below which a fraction q of the
// nonzero finite values lie (q in [0,1]); ok is false for an empty
// histogram.
func (h Histogram) Quantile(q float64) (e int, ok bool) {
	total := h.Total()
	if total == 0 {
		return 0, false
	}
	target := q * float64(total)
	seen := 0
	es := h.Binades()
	for _, e := range es {
		seen += h.Counts[e]
		if float64(seen) >= target {
			return e, true
		}
	}
	return es[len(es)-1], true
}
