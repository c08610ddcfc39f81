package quant_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/positgan/positgan/quant"
)

func ExampleParse() {
	f, err := quant.Parse("posit(8,1)")
	if err != nil {
		fmt.Println(err)
		return
	}
	// 0.3 = 1.2·2^-2 keeps 4 fraction bits: 1.2 rounds to 19/16. Beyond
	// maxpos = 4^6 a value saturates; below minpos = 4^-6 it becomes
	// minpos, never 0. (Println shows float32s in their shortest form.)
	fmt.Println(f, f.Bits(), f.Round(0.3), f.Round(1e6), f.Round(1e-9))
	// Output: posit(8,1) 8 0.296875 4096 0.00024414063
}

func ExamplePosit_Decode() {
	p := quant.MustParse("posit(8,0)").(quant.Posit)
	// 0x40 = 0|10|00000: regime k = 0, so 1. 0x7f is maxpos 2^6, 0x01
	// minpos 2^-6, 0x80 NaR.
	fmt.Println(p.Decode(0x40), p.Decode(0x7f), p.Decode(0x01), p.Decode(0x80))
	fmt.Printf("%#x %#x\n", p.Encode(1.5), p.Encode(-1))
	// Output:
	// 1 64 0.015625 NaN
	// 0x50 0xc0
}

func ExamplePosit_Round() {
	p := quant.MustParse("posit(8,1)")
	// Near maxpos the neighbours 1024 and 4096 have no fraction bits left,
	// and the tie between them is the 9-bit posit between them, 2048, not
	// the midpoint 2560. A tie goes to the even code: 1024.
	fmt.Println(p.Round(2047), p.Round(2048), p.Round(2049), p.Round(2500))
	// Output: 1024 1024 4096 4096
}

func ExampleScale() {
	p := quant.MustParse("posit(8,1)")
	q, err := quant.Scale(p, 3) // round 8x, then divide by 8
	if err != nil {
		fmt.Println(err)
		return
	}
	// 0.0013 = 1.33·2^-10 is where posit(8,1) has no fraction bits: it
	// rounds to 2^-10. 8·0.0013 = 1.33·2^-7 keeps one: 1.5·2^-7, over 8.
	fmt.Println(q, p.Round(0.0013), q.Round(0.0013))
	// Output: posit(8,1,scale=3) 0.0009765625 0.0014648438
}

func ExamplePosit_RoundSliceStochastic() {
	p := quant.MustParse("posit(8,1)")
	src := make([]float32, 10000)
	for i := range src {
		src[i] = 1.03 // between the posits 1 and 1.0625
	}
	dst := make([]float32, len(src))
	p.RoundSliceStochastic(dst, src, rand.NewPCG(1, 2)) // same seed, same result
	seen := map[float32]int{}
	sum := 0.0
	for _, y := range dst {
		seen[y]++
		sum += float64(y)
	}
	// About 48% round up, so that the mean stays 1.03.
	fmt.Println(len(seen), seen[1]+seen[1.0625] == len(dst))
	fmt.Printf("%.2f\n", sum/float64(len(dst)))
	// Output:
	// 2 true
	// 1.03
}

func ExampleParseBlock() {
	b, err := quant.ParseBlock("mxfp8-e4m3")
	if err != nil {
		fmt.Println(err)
		return
	}
	// One block: its largest magnitude 1000 has floor(log2) = 9, E4M3's
	// largest normal 448 has exponent 8, so the scale is 2^(9-8) = 2 (E8M0
	// code 127+1). 1000/2 = 500 clamps to 448; 0.3/2 rounds to 0.15625.
	src := []float32{1000, 0.3, -1, 0}
	codes, scales := make([]uint32, len(src)), make([]uint8, b.NumBlocks(len(src)))
	b.Encode(codes, scales, src)
	dst := make([]float32, len(src))
	b.RoundBlocks(dst, src)
	fmt.Println(b, b.Block(), b.BitsPerValue())
	fmt.Printf("scale %#x = %g, codes %#x\n", scales[0], b.ScaleValue(scales[0]), codes)
	fmt.Println(dst)
	// Output:
	// mxfp8-e4m3 32 8.25
	// scale 0x80 = 2, codes [0x7e 0x22 0xb0 0x0]
	// [896 0.3125 -1 0]
}

func ExampleBlockFormat_RoundMatrix() {
	// posit(8,1,block=2): each block of two values gets its own exponent
	// bias k, which puts its largest magnitude in [4, 8). Blocks run down
	// the columns of this 2×2 matrix, as for the right operand of a matrix
	// product. Column 0: k = -7, 1000·2^-7 = 7.8 rounds to 8 (posit(8,1)
	// steps by 1/2 there), 3.3·2^-7 to 0.02734375. Column 1: k = 11,
	// 0.0033·2^11 = 6.76 rounds to 7 and 0.001·2^11 = 2.048 to 2.
	b := quant.MustParseBlock("posit(8,1,block=2)")
	m := []float32{
		1000, 0.001,
		3.3, 0.0033,
	}
	b.RoundMatrix(m, m, 2, 2, quant.AlongColumn, quant.Nearest, nil)
	fmt.Println(m)
	// Output: [1024 0.0009765625 3.5 0.0034179688]
}
