package compute

// addBias adds bias[c] to every value of channel c of dst, an (n,
// len(bias), inner) tensor.
func addBias[T Float](dst, bias []T, n, inner int) {
	c := len(bias)
	for b := 0; b < n; b++ {
		for ch, v := range bias {
			s := dst[(b*c+ch)*inner : (b*c+ch+1)*inner]
			for k := range s {
				s[k] += v
			}
		}
	}
}

// sumBias sets dst[c] to the sum over b < n and p < inner of
// src[(b·len(dst)+c)·inner+p] (the bias gradient of an (n, C, inner)
// tensor), one chain of float64 adds in that order per channel.
func sumBias[T Float](dst, src []T, n, inner int) {
	c := len(dst)
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
