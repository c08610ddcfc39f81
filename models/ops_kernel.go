package models

import "math"

// Kernels of the ops in ops.go: plain loops over slices, no checks.

func actForward[T float](dst, x []T, kind actKind, alpha T) {
	switch kind {
	case actLeakyReLU, actReLU:
		for i, v := range x {
			if v > 0 {
				dst[i] = v
			} else {
				dst[i] = alpha * v
			}
		}
	case actTanh:
		for i, v := range x {
			dst[i] = T(math.Tanh(float64(v)))
		}
	}
}

// actBackward sets dst to dy·f'(x); y = f(x).
func actBackward[T float](dst, x, y, dy []T, kind actKind, alpha T) {
	switch kind {
	case actLeakyReLU, actReLU:
		for i, v := range x {
			if v > 0 {
				dst[i] = dy[i]
			} else {
				dst[i] = alpha * dy[i]
			}
		}
	case actTanh:
		for i, v := range y {
			dst[i] = dy[i] * (1 - v*v)
		}
	}
}

func concatCols[T float](dst, a, b []T, rows, n, m int) {
	for r := 0; r < rows; r++ {
		copy(dst[r*(n+m):], a[r*n:(r+1)*n])
		copy(dst[r*(n+m)+n:], b[r*m:(r+1)*m])
	}
}

func sliceCols[T float](dst, src []T, rows, cols, off, w int) {
	for r := 0; r < rows; r++ {
		copy(dst[r*w:(r+1)*w], src[r*cols+off:r*cols+off+w])
	}
}

func addRowDot[T float](dst, s, h, e []T, rows, n int) {
	for r := 0; r < rows; r++ {
		var acc float64
		for j := r * n; j < (r+1)*n; j++ {
			acc += float64(h[j]) * float64(e[j])
		}
		dst[r] = s[r] + T(acc)
	}
}

func mulRows[T float](dst, x, g []T, rows, n int) {
	for r := 0; r < rows; r++ {
		for j := r * n; j < (r+1)*n; j++ {
			dst[j] = g[r] * x[j]
		}
	}
}
