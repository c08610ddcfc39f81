package compute

// concatRows sets row r of dst (n+m values) to row r of a (n values)
// followed by row r of b (m values).
func concatRows[T Float](dst, a, b []T, rows, n, m int) {
	for r := 0; r < rows; r++ {
		copy(dst[r*(n+m):], a[r*n:(r+1)*n])
		copy(dst[r*(n+m)+n:], b[r*m:(r+1)*m])
	}
}

// sliceRows sets row r of dst (w values) to values off to off+w of row r
// of src (cols values).
func sliceRows[T Float](dst, src []T, rows, cols, off, w int) {
	for r := 0; r < rows; r++ {
		copy(dst[r*w:(r+1)*w], src[r*cols+off:r*cols+off+w])
	}
}
