package quant

// Quantized returns what f makes of each value of src: the value it
// rounds to (RoundSlice, the kernel training uses) and its code
// (Encode), as positgan format quantize lists them.
func Quantized(f Format, src []float32) (vals []float32, codes []uint32) {
	vals, codes = make([]float32, len(src)), make([]uint32, len(src))
	f.RoundSlice(vals, src)
	for i, x := range src {
		codes[i] = f.Encode(x)
	}
	return vals, codes
}

// Quantized returns what b makes of src, each run of b.Block() values
// one block (the last may be shorter): the values (RoundBlocks, the
// kernel training uses), the element codes and each block's scale code
// (Encode).
func (b BlockFormat) Quantized(src []float32) (vals []float32, codes []uint32, scales []uint8) {
	vals = make([]float32, len(src))
	b.RoundBlocks(vals, src)
	codes, scales = make([]uint32, len(src)), make([]uint8, b.NumBlocks(len(src)))
	b.Encode(codes, scales, src)
	return vals, codes, scales
}
