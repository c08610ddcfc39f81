package scaling

import (
	"fmt"
	"math"

	"github.com/positgan/positgan/quant"
)

// BiasRange limits the exponent biases ChooseBias considers.
const BiasRange = 64

// ErrorProfile is a format's mean relative rounding error in each binade:
// the accuracy map that bias selection optimises against.
type ErrorProfile struct {
	f        quant.Format
	min, max int       // binades covered
	err      []float64 // err[e-min]
}

// samplesPerBinade is how many log-uniformly spaced points measure one
// binade's error: enough to resolve 2^-16 steps of a 16-bit format's
// rounding error to a few percent.
const samplesPerBinade = 64

// Profile measures f's mean relative rounding error in every binade from
// 2^-(span) to 2^span, by rounding log-uniformly spaced points with
// f.Round64. Binades outside the format's range get the error of
// saturation (or of flushing to zero), so a bias that pushes values out of
// range is penalised as it should be.
func Profile(f quant.Format, span int) ErrorProfile {
	p := ErrorProfile{f: f, min: -span, max: span, err: make([]float64, 2*span+1)}
	for e := -span; e <= span; e++ {
		sum := 0.0
		for i := 0; i < samplesPerBinade; i++ {
			x := math.Ldexp(math.Exp2((float64(i)+0.5)/samplesPerBinade), e)
			r := f.Round64(x)
			if math.IsNaN(r) || math.IsInf(r, 0) {
				sum++ // total loss: count as relative error 1
				continue
			}
			sum += math.Min(math.Abs(r-x)/x, 1)
		}
		p.err[e+span] = sum / samplesPerBinade
	}
	return p
}

// At returns the mean relative error of binade e (clamped to the
// profile's span).
func (p ErrorProfile) At(e int) float64 {
	e = max(p.min, min(p.max, e))
	return p.err[e-p.min]
}

// Cost returns the expected relative rounding error of the histogram's
// values after scaling them by 2^k.
func (p ErrorProfile) Cost(h Histogram, k int) float64 {
	total := h.Total()
	if total == 0 {
		return 0
	}
	sum := 0.0
	for e, c := range h.Counts {
		sum += float64(float64(c) * p.At(e+k)) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
	}
	return sum / float64(total)
}

// ChooseBias returns the exponent bias k in [-BiasRange, BiasRange] that
// minimises the mean relative rounding error of the histogram's values in
// quant.Scale(f, k) — that is, the power of two that moves the bulk of the
// tensor into f's most accurate binades. Among equally good biases it
// returns the one nearest 0. An empty histogram gives 0.
func ChooseBias(h Histogram, f quant.Format) (int, error) {
	if h.NonFinite > 0 {
		return 0, fmt.Errorf("scaling: tensor has %d non-finite values", h.NonFinite)
	}
	if h.Total() == 0 {
		return 0, nil
	}
	lo, _ := h.Quantile(0)
	hi, _ := h.Quantile(1)
	span := BiasRange + max(-lo, hi) + 2
	p := Profile(f, span)
	best, bestCost := 0, math.Inf(1)
	for _, k := range biasOrder() {
		if c := p.Cost(h, k); c < bestCost-1e-12 {
			best, bestCost = k, c
		}
	}
	return best, nil
}

// biasOrder lists candidate biases nearest-zero first, so that ties go to
// the smallest shift.
func biasOrder() []int {
	ks := []int{0}
	for d := 1; d <= BiasRange; d++ {
		ks = append(ks, -d, d)
	}
	return ks
}
