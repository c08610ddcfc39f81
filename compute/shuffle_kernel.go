package compute

// shuffle copies between the input planes in (n·r² planes of h×w) and the
// output planes out (n planes of h·r×w·r): into out, or into in when back
// is set (the backward pass).
func shuffle[T Float](g Shuffle, out, in []T, back bool) {
	r, hw, ow := g.R, g.H*g.W, g.W*g.R
	for p := 0; p < g.N; p++ {
		o := out[p*hw*r*r : (p+1)*hw*r*r]
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				src := in[((p*r+i)*r+j)*hw:][:hw]
				for h := 0; h < g.H; h++ {
					row, dst := src[h*g.W:(h+1)*g.W], o[(h*r+i)*ow+j:]
					if back {
						for w := range row {
							row[w] = dst[w*r]
						}
					} else {
						for w, v := range row {
							dst[w*r] = v
						}
					}
				}
			}
		}
	}
}
