package compute

func avgPool[T Float](g Pool, dst, src []T) {
	inv := 1 / T(g.K*g.K)
	for p := 0; p < g.N; p++ {
		img := src[p*g.H*g.W : (p+1)*g.H*g.W]
		out := dst[p*g.OH*g.OW : (p+1)*g.OH*g.OW]
		for oy := 0; oy < g.OH; oy++ {
			for ox := 0; ox < g.OW; ox++ {
				var s T
				for i := 0; i < g.K; i++ {
					row := img[(oy*g.S+i)*g.W+ox*g.S:]
					for _, v := range row[:g.K] {
						s += v
					}
				}
				out[oy*g.OW+ox] = s * inv
			}
		}
	}
}

func avgPoolBack[T Float](g Pool, dst, dy []T) {
	clear(dst)
	inv := 1 / T(g.K*g.K)
	for p := 0; p < g.N; p++ {
		img := dst[p*g.H*g.W : (p+1)*g.H*g.W]
		d := dy[p*g.OH*g.OW : (p+1)*g.OH*g.OW]
		for oy := 0; oy < g.OH; oy++ {
			for ox := 0; ox < g.OW; ox++ {
				v := T(d[oy*g.OW+ox] * inv) // T(…) stops arm64 fusing it into row[j] += v: same bits as amd64
				for i := 0; i < g.K; i++ {
					row := img[(oy*g.S+i)*g.W+ox*g.S:]
					for j := range row[:g.K] {
						row[j] += v
					}
				}
			}
		}
	}
}

func upsample[T Float](dst, src []T, g Upscale) {
	n, h, w, s := g.N, g.H, g.W, g.S
	ow := w * s
	for p := 0; p < n*h; p++ { // one input row at a time
		in := src[p*w : (p+1)*w]
		out := dst[p*s*ow : (p+1)*s*ow]
		first := out[:ow]
		for x, v := range in {
			for j := range first[x*s : (x+1)*s] {
				first[x*s+j] = v
			}
		}
		for r := 1; r < s; r++ {
			copy(out[r*ow:(r+1)*ow], first)
		}
	}
}

func upsampleBack[T Float](dst, dy []T, g Upscale) {
	n, h, w, s := g.N, g.H, g.W, g.S
	ow := w * s
	for p := 0; p < n*h; p++ {
		out := dst[p*w : (p+1)*w]
		in := dy[p*s*ow : (p+1)*s*ow]
		for x := range out {
			var sum T
			for r := 0; r < s; r++ {
				for _, v := range in[r*ow+x*s : r*ow+(x+1)*s] {
					sum += v
				}
			}
			out[x] = sum
		}
	}
}

// planeMean sets dst[p] to the mean of plane p of src (n planes of hw
// values), summed in float64.
func planeMean[T Float](dst, src []T, n, hw int) {
	for p := 0; p < n; p++ {
		var s float64
		for _, v := range src[p*hw : (p+1)*hw] {
			s += float64(v)
		}
		dst[p] = T(s / float64(hw))
	}
}

// planeMeanBack sets every value of plane p of dst to dy[p]·(1/hw).
func planeMeanBack[T Float](dst, dy []T, n, hw int) {
	inv := 1 / T(hw)
	for p := 0; p < n; p++ {
		v := dy[p] * inv
		d := dst[p*hw : (p+1)*hw]
		for i := range d {
			d[i] = v
		}
	}
}
