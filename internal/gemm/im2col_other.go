//go:build !amd64 || purego || openblas

package gemm

// pick2Fast and put2Fast have no kernels here: pick2 and put2 run in Go.
func pick2Fast(out []float32, ow, n int, img []float32, s, step int) bool { return false }

func put2Fast(img []float32, d, step int, in []float32, ow, n int) bool { return false }

func col2im42Fast(img []float32, oh, ow int, src []float32, ld int) bool { return false }

func padRowsFast(dst []float32, wp int, src []float32, w, h, pw int) bool { return false }

func col2imWholeFast(dst, src []float32, n, r, r0, r1 int) (rows, imgs int) { return 0, 0 }
