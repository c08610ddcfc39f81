package gemm

// perOpTable is the length of a per-op product or sum table: 256×256
// result indices, and padding so that the vector kernels may read any
// entry as the low bits of a 32-bit word.
const perOpTable = 1<<16 + 4

// perOpTables are the lookup tables of a per-op GEMM.
type perOpTables struct {
	prod *[perOpTable]uint8 // [a<<8 | b]: index of R(a·b), a the row operand's
	sum  *[perOpTable]uint8 // [s<<8 | p]: index of R(s + p)
}

// perOpLanes is how many columns a row kernel call sums at once; their
// indices come interleaved by term (blk[l·perOpLanes + t] is column t's
// index at term l).
const perOpLanes = 64

// A perOpRowKernel sets out[t] and out[perOpLanes+t], for the perOpLanes
// columns of blk, to the indices of the sequential rounded dot products of
// rows ar0 and ar1 with column t: s = prod[ar[0], col(0)], then
// s = sum[s, prod[ar[l], col(l)]] for each l in nz, in that order. Every
// l in nz is below len(ar0) == len(ar1), and blk holds len(ar0) terms.
// Two rows at once share the column loads and double the independent
// chains of lookups.
type perOpRowKernel func(out *[2 * perOpLanes]uint32, blk []uint8, ar0, ar1 []uint8, nz []int32, t *perOpTables)

// perOpRowGo is the portable perOpRowKernel.
func perOpRowGo(out *[2 * perOpLanes]uint32, blk []uint8, ar0, ar1 []uint8, nz []int32, t *perOpTables) {
	perOpRow1Go((*[perOpLanes]uint32)(out[:perOpLanes]), blk, ar0, nz, t)
	perOpRow1Go((*[perOpLanes]uint32)(out[perOpLanes:]), blk, ar1, nz, t)
}

// perOpRow1Go is perOpRowGo for one row: eight chains of dependent
// lookups advance together, so that their latencies overlap.
func perOpRow1Go(out *[perOpLanes]uint32, blk []uint8, ar []uint8, nz []int32, t *perOpTables) {
	prod, sum := t.prod, t.sum
	a0 := uint16(ar[0]) << 8
	for h := 0; h < perOpLanes; h += 8 {
		col := blk[h:]
		v := col[0:8:8]
		s0, s1, s2, s3 := prod[a0|uint16(v[0])], prod[a0|uint16(v[1])], prod[a0|uint16(v[2])], prod[a0|uint16(v[3])]
		s4, s5, s6, s7 := prod[a0|uint16(v[4])], prod[a0|uint16(v[5])], prod[a0|uint16(v[6])], prod[a0|uint16(v[7])]
		for _, l := range nz {
			a := uint16(ar[l]) << 8
			v := col[int(l)*perOpLanes:][:8:8]
			s0 = sum[uint16(s0)<<8|uint16(prod[a|uint16(v[0])])]
			s1 = sum[uint16(s1)<<8|uint16(prod[a|uint16(v[1])])]
			s2 = sum[uint16(s2)<<8|uint16(prod[a|uint16(v[2])])]
			s3 = sum[uint16(s3)<<8|uint16(prod[a|uint16(v[3])])]
			s4 = sum[uint16(s4)<<8|uint16(prod[a|uint16(v[4])])]
			s5 = sum[uint16(s5)<<8|uint16(prod[a|uint16(v[5])])]
			s6 = sum[uint16(s6)<<8|uint16(prod[a|uint16(v[6])])]
			s7 = sum[uint16(s7)<<8|uint16(prod[a|uint16(v[7])])]
		}
		o := out[h : h+8 : h+8]
		o[0], o[1], o[2], o[3] = uint32(s0), uint32(s1), uint32(s2), uint32(s3)
		o[4], o[5], o[6], o[7] = uint32(s4), uint32(s5), uint32(s6), uint32(s7)
	}
}
