package quant_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/quant"
)

func ExampleDescribe() {
	d, err := quant.Describe(quant.MustParse("posit(6,1)"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.MinPos, d.MaxPos, d.GapBelow, d.GapAbove)
	fmt.Printf("%.2f decades\n", d.Decades())
	// Tapered precision: 4 values in each binade next to 1 (2 fraction
	// bits), 1 at the ends; 2^-7 and 2^7 are empty because the regime
	// leaves no room for the exponent bit there.
	for _, b := range d.Binades {
		fmt.Printf("%d:%d ", b.Exp, b.Values)
	}
	fmt.Println()
	// Output:
	// 0.00390625 256 0.125 0.25
	// 4.82 decades
	// -8:1 -7:0 -6:1 -5:1 -4:2 -3:2 -2:4 -1:4 0:4 1:4 2:2 3:2 4:1 5:1 6:1 7:0 8:1
}

// binades lists counts for consecutive binades from 2^lo.
func binades(lo int, counts ...int) []quant.Binade {
	bs := make([]quant.Binade, len(counts))
	for i, c := range counts {
		bs[i] = quant.Binade{Exp: lo + i, Values: c}
	}
	return bs
}

// repeat is count n times.
func repeat(count, n int) []int {
	cs := make([]int, n)
	for i := range cs {
		cs[i] = count
	}
	return cs
}

func mustScale(f quant.Format, k int) quant.Format {
	g, err := quant.Scale(f, k)
	if err != nil {
		panic(err)
	}
	return g
}

// TestDescribe checks Describe against figures worked out by hand from
// each format's definition.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		f                  quant.Format
		finite, positive   int
		minPos, maxPos     float64
		minNormal          float64
		gapBelow, gapAbove float64
		binades            []quant.Binade
	}{
		// Posits: useed = 2^2^es; a regime of L bits leaves r = n-1-L bits,
		// es of them exponent (missing ones read as 0), the rest fraction.
		// posit(8,1): useed 4, minpos 4^-6, maxpos 4^6. Binade 2k+e holds
		// 2^(r-1) values while r >= 1; the last regimes (r = 0) give one
		// value each at 2^±10 and 2^±12, none at 2^±11.
		{f: quant.MustParse("posit(8,1)"), finite: 255, positive: 127,
			minPos: 0x1p-12, maxPos: 4096,
			gapBelow: 0x1p-5, gapAbove: 0x1p-4, // 4 fraction bits in [1/2,1) and [1,2)
			binades: binades(-12, 1, 0, 1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 16, 16, 8, 8, 4, 4, 2, 2, 1, 1, 1, 0, 1)},
		// posit(8,0): useed 2, no exponent bits. Binade k >= 0 has a
		// (k+2)-bit regime and 2^(5-k) values, binade -k a (k+1)-bit regime
		// and 2^(6-k) values; maxpos 2^6 is the 7-bit regime of ones.
		{f: quant.MustParse("posit(8,0)"), finite: 255, positive: 127,
			minPos: 0x1p-6, maxPos: 64,
			gapBelow: 0x1p-6, gapAbove: 0x1p-5, // 5 fraction bits next to 1
			binades: binades(-6, 1, 2, 4, 8, 16, 32, 32, 16, 8, 4, 2, 1, 1)},
		// posit(8,1) with exponent bias 2: every value divided by 4, so 1
		// sits where 4 was (3 fraction bits above, 4 below).
		{f: mustScale(quant.MustParse("posit(8,1)"), 2), finite: 255, positive: 127,
			minPos: 0x1p-14, maxPos: 1024,
			gapBelow: 0x1p-5, gapAbove: 0x1p-3,
			binades: binades(-14, 1, 0, 1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 16, 16, 8, 8, 4, 4, 2, 2, 1, 1, 1, 0, 1)},

		// fp8-e4m3 (OCP): bias 7, subnormals m·2^-9 (m = 1..7: 1, 2, 4 per
		// binade), exponent fields 1..15 hold 8 values each but S.1111.111
		// is NaN; max 1.75·2^8 = 448. NaN codes: 2.
		{f: quant.FP8E4M3, finite: 254, positive: 126,
			minPos: 0x1p-9, maxPos: 448, minNormal: 0x1p-6,
			gapBelow: 0x1p-4, gapAbove: 0x1p-3,
			binades: binades(-9, slices.Concat([]int{1, 2, 4}, repeat(8, 14), []int{7})...)},
		// fp8-e5m2: bias 15, subnormals m·2^-16 (m = 1..3), fields 1..30 with
		// 4 values each; field 31 is ±Inf and NaN (8 codes).
		{f: quant.FP8E5M2, finite: 248, positive: 123,
			minPos: 0x1p-16, maxPos: 57344, minNormal: 0x1p-14,
			gapBelow: 0x1p-3, gapAbove: 0x1p-2,
			binades: binades(-16, slices.Concat([]int{1, 2}, repeat(4, 30))...)},
		// Without subnormals the code field 0 is ±0 (8 finite codes), and
		// the smallest value is the smallest normal 2^(1-3).
		{f: quant.MustParse("float(3,2,subnormals=false)"), finite: 56, positive: 24,
			minPos: 0x1p-2, maxPos: 14, minNormal: 0x1p-2,
			gapBelow: 0x1p-3, gapAbove: 0x1p-2,
			binades: binades(-2, repeat(4, 6)...)},

		// fixed(8,4): c/16 for c = -128..127; c = 2^j..2^(j+1)-1 fill
		// binade j-4.
		{f: quant.MustParse("fixed(8,4)"), finite: 256, positive: 127,
			minPos: 0x1p-4, maxPos: 127.0 / 16,
			gapBelow: 0x1p-4, gapAbove: 0x1p-4,
			binades: binades(-4, 1, 2, 4, 8, 16, 32, 64)},
		// fixed(4,-1): 2c for c = -8..7; 1 is not a value, no positive
		// value lies below it, and the next one up is 2.
		{f: quant.MustParse("fixed(4,-1)"), finite: 16, positive: 7,
			minPos: 2, maxPos: 14,
			gapBelow: 0, gapAbove: 1,
			binades: binades(1, 1, 2, 4)},
	} {
		d, err := quant.Describe(tc.f)
		if err != nil {
			t.Errorf("%v: %v", tc.f, err)
			continue
		}
		if d.Format != tc.f {
			t.Errorf("%v: Format %v", tc.f, d.Format)
		}
		if d.FiniteCodes != tc.finite || d.PositiveValues != tc.positive {
			t.Errorf("%v: %d finite codes, %d positive values; want %d, %d", tc.f, d.FiniteCodes, d.PositiveValues, tc.finite, tc.positive)
		}
		if d.MinPos != tc.minPos || d.MaxPos != tc.maxPos || d.MinNormal != tc.minNormal {
			t.Errorf("%v: min %g max %g min normal %g; want %g %g %g", tc.f, d.MinPos, d.MaxPos, d.MinNormal, tc.minPos, tc.maxPos, tc.minNormal)
		}
		if d.GapBelow != tc.gapBelow || d.GapAbove != tc.gapAbove {
			t.Errorf("%v: gaps %g below, %g above 1; want %g, %g", tc.f, d.GapBelow, d.GapAbove, tc.gapBelow, tc.gapAbove)
		}
		if !slices.Equal(d.Binades, tc.binades) {
			t.Errorf("%v: binades\n%v\nwant\n%v", tc.f, d.Binades, tc.binades)
		}
		if want := math.Log10(tc.maxPos / tc.minPos); d.Decades() != want {
			t.Errorf("%v: %g decades, want %g", tc.f, d.Decades(), want)
		}
		if want := math.Max(tc.gapBelow, tc.gapAbove); d.Gap() != want {
			t.Errorf("%v: gap %g, want %g", tc.f, d.Gap(), want)
		}
	}
}

// positBinades counts the positive values of posit(n,es) with exponent
// bias scale in each binade, from the field widths alone: a run of m equal
// regime bits ends with the opposite bit unless it fills all n-1 bits; the
// r bits left hold up to es exponent bits (missing ones read as 0) and then
// r-es fraction bits.
func positBinades(n, es, scale int) map[int]int {
	counts := map[int]int{}
	add := func(k, regimeLen int) {
		r := n - 1 - regimeLen
		if r >= es {
			for e := range 1 << es {
				counts[k<<es+e-scale] += 1 << (r - es)
			}
			return
		}
		for p := range 1 << r {
			counts[k<<es+p<<(es-r)-scale]++
		}
	}
	for m := 1; m <= n-1; m++ { // m ones: k = m-1
		if m == n-1 {
			add(m-1, m)
		} else {
			add(m-1, m+1)
		}
	}
	for m := 1; m <= n-2; m++ { // m zeros, then a one: k = -m (n-1 zeros is 0)
		add(-m, m+1)
	}
	return counts
}

// TestDescribePosits compares Describe with positBinades for every posit
// Describe takes, at a few exponent biases.
func TestDescribePosits(t *testing.T) {
	for n := 2; n <= quant.MaxDescribeBits; n++ {
		for es := 0; es <= quant.MaxPositES; es++ {
			for _, scale := range []int{0, 3, -5} {
				p, err := quant.NewPosit(n, es)
				if err != nil {
					t.Fatal(err)
				}
				f := mustScale(p, scale)
				d, err := quant.Describe(f)
				if err != nil {
					t.Errorf("%v: %v", f, err)
					continue
				}
				want := positBinades(n, es, scale)
				maxExp := (n-2)<<es - scale // maxpos = useed^(n-2)
				minExp := -(n-2)<<es - scale
				if d.MinPos != math.Ldexp(1, minExp) || d.MaxPos != math.Ldexp(1, maxExp) {
					t.Errorf("%v: minpos %g maxpos %g, want 2^%d 2^%d", f, d.MinPos, d.MaxPos, minExp, maxExp)
				}
				if d.FiniteCodes != 1<<n-1 || d.PositiveValues != 1<<(n-1)-1 {
					t.Errorf("%v: %d finite codes, %d positive values", f, d.FiniteCodes, d.PositiveValues)
				}
				if len(d.Binades) != maxExp-minExp+1 {
					t.Errorf("%v: %d binades, want %d", f, len(d.Binades), maxExp-minExp+1)
					continue
				}
				for i, b := range d.Binades {
					if b.Exp != minExp+i || b.Values != want[b.Exp] {
						t.Errorf("%v: binade %d: %+v, want %d values", f, minExp+i, b, want[minExp+i])
					}
				}
			}
		}
	}
}

func TestDescribeTooWide(t *testing.T) {
	for _, name := range []string{"fp32", "posit(17,1)", "fixed(24,8)"} {
		f := quant.MustParse(name)
		if _, err := quant.Describe(f); err == nil || !strings.Contains(err.Error(), "at most 16 bits") {
			t.Errorf("%v: error %v, want one about the width", f, err)
		}
	}
}
