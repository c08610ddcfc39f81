package formatinfo

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/positgan/positgan/quant"
)

// WriteDescription writes d as "positgan format info" shows it: width,
// codes, extremes, range in decades, the gap near 1, and a bar per binade
// of positive values.
func WriteDescription(w io.Writer, d quant.Description) error {
	bw := bufio.NewWriter(w)
	f := d.Format
	fmt.Fprintf(bw, "format:        %v\n", f)
	fmt.Fprintf(bw, "bits:          %d\n", f.Bits())
	fmt.Fprintf(bw, "finite codes:  %d (%d distinct positive values)\n", d.FiniteCodes, d.PositiveValues)
	if _, ok := f.(quant.Posit); ok {
		fmt.Fprintf(bw, "minpos:        %s\n", ValueString(f, d.MinPos))
		fmt.Fprintf(bw, "maxpos:        %s\n", ValueString(f, d.MaxPos))
	} else {
		fmt.Fprintf(bw, "min positive:  %s\n", ValueString(f, d.MinPos))
		if d.MinNormal > d.MinPos {
			fmt.Fprintf(bw, "min normal:    %s (below it: subnormals)\n", ValueString(f, d.MinNormal))
		}
		fmt.Fprintf(bw, "max:           %s\n", ValueString(f, d.MaxPos))
	}
	fmt.Fprintf(bw, "range:         %.2f decades (log10 max/min)\n", d.Decades())
	fmt.Fprintf(bw, "gap near 1:    %s\n", GapNearOne(d))
	fmt.Fprintf(bw, "\npositive values per binade [2^e, 2^(e+1)):\n")
	most := 0
	for _, b := range d.Binades {
		most = max(most, b.Values)
	}
	for _, b := range d.Binades {
		bar := strings.Repeat("#", (b.Values*40+most-1)/most) // at least one # for a nonzero count
		fmt.Fprintf(bw, "  2^%-5d %6d %s\n", b.Exp, b.Values, bar)
	}
	return bw.Flush()
}

// GapNearOne describes the precision of d's format near 1: the gap to
// the neighbouring values, or why there is none. 1 counts as near the
// values only within a binade of them (a fixed(8,9) has values up to
// 0.248 only: the distance from it to 1 is no precision).
func GapNearOne(d quant.Description) string {
	f := d.Format
	switch {
	case d.MaxPos < 0.5:
		return fmt.Sprintf("none (every value is below 0.5; max %s)", ValueString(f, d.MaxPos))
	case d.MinPos > 2:
		return fmt.Sprintf("none (every positive value is above 2; min %s)", ValueString(f, d.MinPos))
	}
	side := func(gap float64) string {
		if gap == 0 {
			return "none"
		}
		return ValueString(f, gap)
	}
	return fmt.Sprintf("%s (below: %s, above: %s)", ValueString(f, d.Gap()), side(d.GapBelow), side(d.GapAbove))
}

// WriteBlockScale writes how a block format chooses and stores its
// scale, as "positgan format info" shows it before the description of
// the element format.
func WriteBlockScale(w io.Writer, b quant.BlockFormat) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "format:        %v (block-scaled)\n", b)
	fmt.Fprintf(bw, "block:         %d consecutive values share one 8-bit scale\n", b.Block())
	fmt.Fprintf(bw, "storage:       %d bits per element + 8 per block = %.4g bits per value\n", b.Bits(), b.BitsPerValue())
	if b.IsMX() {
		fmt.Fprintf(bw, "scale:         E8M0 (OCP MX v1.0): code s is 2^(s-127), s = 0x00..0xfe; 0xff is NaN\n")
		fmt.Fprintf(bw, "               a block's scale is 2^(floor(log2 max|v|) - %d), %d being the exponent of the\n", b.EmaxElem(), b.EmaxElem())
		fmt.Fprintf(bw, "               element's largest normal, clamped to [2^-127, 2^127]; each value is v/scale\n")
		fmt.Fprintf(bw, "               rounded to nearest even and clamped to the element's largest normal.\n")
		fmt.Fprintf(bw, "               A zero block has scale 2^-127 (0x00); a NaN or Inf makes the block NaN (0xff).\n")
	} else {
		fmt.Fprintf(bw, "scale:         an exponent bias k per block, 8-bit two's complement: the block is rounded as\n")
		p := b.Elem().(quant.Posit)
		fmt.Fprintf(bw, "               posit(%d,%d,scale=k) rounds it, so a value is element·2^-k.\n", p.N(), p.ES())
		fmt.Fprintf(bw, "               k = %d - floor(log2 max|finite v|), clamped to [-127, 127] (0 without finite\n", b.EmaxElem())
		fmt.Fprintf(bw, "               nonzero values): the block's largest magnitude lands in [2^%d, 2^%d).\n", b.EmaxElem(), b.EmaxElem()+1)
	}
	fmt.Fprintf(bw, "\nelement format (values at scale 1):\n")
	return bw.Flush()
}
