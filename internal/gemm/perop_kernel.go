package gemm

// perOpKernel runs the sequential rounded dot products on byte indices:
// s = prod[r₀,c₀], then s = sum[s, prod[rₗ,cₗ]] for l = 1, ..., k-1, for
// every row r of ri (rows×k) and every column c, storing vals[s] at
// c[r·ldr + col·ldc]. The column indices come in blocks of eight columns
// interleaved by l (cix[(jb·k+l)·8+t] is column 8jb+t), so that eight
// chains of dependent lookups advance together. Terms whose row index is
// zero (when zero >= 0) are skipped: the caller has checked that adding
// their product changes no sum. nz is scratch space, returned for reuse.
func perOpKernel(c []float32, ldr, ldc int, ri, cix []uint8, rows, cols, k int, prodS, sumS []uint8, vals []float32, zero int, nz []int32) []int32 {
	prod, sum := (*[1 << 16]uint8)(prodS), (*[1 << 16]uint8)(sumS)
	var out [8]uint8
	for r := 0; r < rows; r++ {
		ar := ri[r*k : (r+1)*k]
		// The terms after the first that are not skipped.
		nz = nz[:0]
		for l := 1; l < k; l++ {
			if int(ar[l]) != zero {
				nz = append(nz, int32(l))
			}
		}
		a0 := uint16(ar[0]) << 8
		for j := 0; j < cols; j += 8 {
			blk := cix[j*k : (j+8)*k]
			v := blk[0:8:8]
			s0, s1, s2, s3 := prod[a0|uint16(v[0])], prod[a0|uint16(v[1])], prod[a0|uint16(v[2])], prod[a0|uint16(v[3])]
			s4, s5, s6, s7 := prod[a0|uint16(v[4])], prod[a0|uint16(v[5])], prod[a0|uint16(v[6])], prod[a0|uint16(v[7])]
			for _, l := range nz {
				a := uint16(ar[l]) << 8
				v := blk[int(l)*8:][:8:8]
				s0 = sum[uint16(s0)<<8|uint16(prod[a|uint16(v[0])])]
				s1 = sum[uint16(s1)<<8|uint16(prod[a|uint16(v[1])])]
				s2 = sum[uint16(s2)<<8|uint16(prod[a|uint16(v[2])])]
				s3 = sum[uint16(s3)<<8|uint16(prod[a|uint16(v[3])])]
				s4 = sum[uint16(s4)<<8|uint16(prod[a|uint16(v[4])])]
				s5 = sum[uint16(s5)<<8|uint16(prod[a|uint16(v[5])])]
				s6 = sum[uint16(s6)<<8|uint16(prod[a|uint16(v[6])])]
				s7 = sum[uint16(s7)<<8|uint16(prod[a|uint16(v[7])])]
			}
			out = [8]uint8{s0, s1, s2, s3, s4, s5, s6, s7}
			for t := 0; t < 8 && j+t < cols; t++ {
				c[r*ldr+(j+t)*ldc] = vals[out[t]]
			}
		}
	}
	return nz
}
