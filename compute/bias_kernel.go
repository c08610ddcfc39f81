package compute

// addBias adds bias[c] to every value of channel c of dst, an (n,
// len(bias), inner) tensor.
func addBias[T Float](dst, bias []T, n, inner int) {
	c := len(bias)
	if inner == 1 { // a linear layer's: add bias to every row
		for b := 0; b < n; b++ {
			r := dst[b*c : (b+1)*c]
			for ch, v := range bias {
				r[ch] += v
			}
		}
		return
	}
	for b := 0; b < n; b++ {
		for ch, v := range bias {
			s := dst[(b*c+ch)*inner : (b*c+ch+1)*inner]
			for k := range s {
				s[k] += v
			}
		}
	}
}

// biasBlock is the number of channels whose sums sumBias keeps side by
// side when each plane is a single value.
const biasBlock = 64

// sumBias sets dst[c] to the sum over b < n and p < inner of
// src[(b·len(dst)+c)·inner+p] (the bias gradient of an (n, C, inner)
// tensor), one chain of float64 adds in that order per channel.
func sumBias[T Float](dst, src []T, n, inner int) {
	c := len(dst)
	if inner == 1 {
		// A linear layer's: a channel's values are a row apart, so
		// walk the rows, a block of channels' chains side by side (each
		// still in its own order), rather than stride down one column
		// at a time.
		for j0 := 0; j0 < c; j0 += biasBlock {
			var acc [biasBlock]float64
			a := acc[:min(biasBlock, c-j0)]
			for b := 0; b < n; b++ {
				r := src[b*c+j0 : b*c+j0+len(a)]
				for k, v := range r {
					a[k] += float64(v)
				}
			}
			for k, s := range a {
				dst[j0+k] = T(s)
			}
		}
		return
	}
	for j := range dst {
		var s float64
		for b := 0; b < n; b++ {
			for _, v := range src[(b*c+j)*inner : (b*c+j+1)*inner] {
				s += float64(v)
			}
		}
		dst[j] = T(s)
	}
}
