package compute

// sumTo sets dst = a + b over a.
func sumTo[T Float](dst, a, b []T) {
	dst, b = dst[:len(a)], b[:len(a)]
	for i, v := range a {
		dst[i] = v + b[i]
	}
}

// scaleTo sets dst = src·k.
func scaleTo[T Float](dst, src []T, k T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v * k
	}
}
