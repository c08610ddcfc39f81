package formatinfo

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/positgan/positgan/internal/numfmt"
	"github.com/positgan/positgan/quant"
)

// MaxTableBits is the widest format whose codes WriteCodeTable lists.
const MaxTableBits = 16

// CodeString formats the code c of f as 0x-prefixed hex with as many
// digits as f's width needs: 0x7f for an 8-bit code, 0x0001 for a 16-bit
// one.
func CodeString(f quant.Format, c uint32) string {
	return fmt.Sprintf("0x%0*x", (f.Bits()+3)/4, c)
}

// ValueString is the shortest decimal that reads back as the float64 v,
// with the spellings NaR (for a posit f), NaN, +Inf and -Inf.
func ValueString(f quant.Format, v float64) string {
	if _, ok := f.(quant.Posit); ok && math.IsNaN(v) {
		return "NaR"
	}
	return numfmt.Exact(v, 64)
}

// WriteCodeTable writes every code of f, of at most MaxTableBits bits,
// and its value as CSV code,value.
func WriteCodeTable(w io.Writer, f quant.Format) error {
	if f.Bits() > MaxTableBits {
		return fmt.Errorf("formatinfo: %v has %d bits; a code table lists formats of at most %d bits", f, f.Bits(), MaxTableBits)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "code,value")
	for c := uint32(0); c < 1<<f.Bits(); c++ {
		fmt.Fprintf(bw, "%s,%s\n", CodeString(f, c), ValueString(f, f.Decode(c)))
	}
	return bw.Flush()
}

// WriteQuantized quantizes xs with f, by the kernel training uses
// (quant.Quantized), and writes CSV input,code,value, a row per input.
func WriteQuantized(w io.Writer, xs []float32, f quant.Format) error {
	q, codes := quant.Quantized(f, xs)
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "input,code,value")
	for i, x := range xs {
		fmt.Fprintf(bw, "%s,%s,%s\n", numfmt.Exact(float64(x), 32), CodeString(f, codes[i]), ValueString(f, float64(q[i])))
	}
	return bw.Flush()
}

// WriteQuantizedBlocks is WriteQuantized for a block format: each run of
// b.Block() inputs is a block (the last may be shorter), and the rows are
// input,block,scale,code,value, with the block's index and scale code.
func WriteQuantizedBlocks(w io.Writer, xs []float32, b quant.BlockFormat) error {
	q, codes, scales := b.Quantized(xs)
	f := b.Elem()
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "input,block,scale,code,value")
	for i, x := range xs {
		fmt.Fprintf(bw, "%s,%d,0x%02x,%s,%s\n", numfmt.Exact(float64(x), 32), i/b.Block(), scales[i/b.Block()],
			CodeString(f, codes[i]), ValueString(f, float64(q[i])))
	}
	return bw.Flush()
}

// ScaleExpRange returns the exponent biases K that keep every value of f,
// times 2^-K, within float32's range (largest finite to smallest
// subnormal), for formats quant.Describe enumerates (ok false for
// others): biases beyond them turn every input into 0, the largest
// float32 or a rounding of f's extremes.
func ScaleExpRange(f quant.Format) (lo, hi int, ok bool) {
	if f.Bits() > quant.MaxDescribeBits {
		return 0, 0, false
	}
	d, err := quant.Describe(f)
	if err != nil || !(d.MinPos > 0) {
		return 0, 0, false
	}
	lo = int(math.Ceil(math.Log2(d.MaxPos / math.MaxFloat32)))
	hi = int(math.Floor(math.Log2(d.MinPos / math.SmallestNonzeroFloat32)))
	return lo, hi, true
}

// WritePromotion writes a promotion (quant.Promoter.Explain) as
// "positgan format promote" prints it: promote(A, B, ...) = R (or "no
// result"), then a line per candidate with why it is or is not R.
func WritePromotion(w io.Writer, pr quant.Promotion) error {
	bw := bufio.NewWriter(w)
	names := make([]string, len(pr.Operands))
	for i, o := range pr.Operands {
		names[i] = o.String()
	}
	if pr.Result != nil {
		fmt.Fprintf(bw, "promote(%s) = %v\n", strings.Join(names, ", "), pr.Result)
	} else {
		fmt.Fprintf(bw, "promote(%s): no result\n", strings.Join(names, ", "))
	}
	width := 0
	for _, c := range pr.Candidates {
		width = max(width, len(c.Format.String()))
	}
	for _, c := range pr.Candidates {
		fmt.Fprintf(bw, "  %-*s  %s\n", width, c.Format, c.Why)
	}
	return bw.Flush()
}

// WriteBlockPromotion writes the promotion r of the block formats bs
// (quant.Promoter.PromoteBlocks) as "positgan format promote" prints it.
func WriteBlockPromotion(w io.Writer, bs []quant.BlockFormat, r quant.BlockFormat) error {
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.String()
	}
	_, err := fmt.Fprintf(w, "promote(%s) = %v (its elements, %v, are the promotion of the operands' elements)\n", strings.Join(names, ", "), r, r.Elem())
	return err
}

// WriteLatticeCSV writes the covering pairs of l as CSV lower,upper
// (quant.Lattice.CSV).
func WriteLatticeCSV(w io.Writer, l *quant.Lattice) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(l.CSV()); err != nil {
		return err
	}
	return cw.Error()
}
