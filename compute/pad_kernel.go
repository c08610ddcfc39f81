package compute

func reflectPad[T Float](g Reflect, dst, src []T) {
	for p := 0; p < g.N; p++ {
		in, out := src[p*g.H*g.W:(p+1)*g.H*g.W], dst[p*g.OH*g.OW:(p+1)*g.OH*g.OW]
		for i, r := range g.Rows {
			row, o := in[r*g.W:(r+1)*g.W], out[i*g.OW:(i+1)*g.OW]
			for j, c := range g.Cols {
				o[j] = row[c]
			}
		}
	}
}

func reflectPadBack[T Float](g Reflect, dst, dy []T) {
	clear(dst)
	for p := 0; p < g.N; p++ {
		d, in := dst[p*g.H*g.W:(p+1)*g.H*g.W], dy[p*g.OH*g.OW:(p+1)*g.OH*g.OW]
		for i, r := range g.Rows {
			row, o := d[r*g.W:(r+1)*g.W], in[i*g.OW:(i+1)*g.OW]
			for j, c := range g.Cols {
				row[c] += o[j]
			}
		}
	}
}
