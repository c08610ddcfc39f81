package scaling

import "github.com/positgan/positgan/quant"

// Bulk says where the bulk of a histogram's values lies and which
// exponent bias suits it in a format.
type Bulk struct {
	// Lo, Median and Hi are the binades of the 5%, 50% and 95%
	// quantiles of the nonzero finite values; OK is false, and they
	// are 0, for an empty histogram.
	Lo, Median, Hi int
	OK             bool
	// Bias is the exponent bias ChooseBias picks for the format;
	// HasBias is false when there is none: no format, a format that
	// takes no bias, or an empty histogram.
	Bias    int
	HasBias bool
}

// BulkOf returns the bulk of h and the best bias for f (nil: none).
func BulkOf(h Histogram, f quant.Format) Bulk {
	var b Bulk
	b.Lo, _ = h.Quantile(0.05)
	b.Median, _ = h.Quantile(0.5)
	b.Hi, b.OK = h.Quantile(0.95)
	if f == nil || !b.OK {
		return b
	}
	if _, err := quant.Scale(f, 0); err != nil {
		return b // a format without an exponent bias
	}
	if k, err := ChooseBias(h, f); err == nil {
		b.Bias, b.HasBias = k, true
	}
	return b
}
